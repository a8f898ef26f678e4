"""The search layer's one exception tree; the service turns it into tool errors at its edge."""


class SearchError(Exception):
    """Anything the search layer refuses or cannot do, with a message fit for a person."""


class QueryError(SearchError):
    """A query that cannot be searched as given (too many words, not text); the user can fix it."""


class IndexBusy(SearchError):
    """Another process holds the index for writing; only one writer may exist at a time."""


class IndexUnavailable(SearchError):
    """The index directory cannot be opened or created (permissions, disk, damaged files)."""
