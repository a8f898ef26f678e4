"""The store layer's one exception tree; front doors translate it at their edges."""


class StoreError(Exception):
    """Anything the store refuses or cannot do, with a message fit for a person."""


class SchemaMismatch(StoreError):
    """The store on disk was written by a newer Origin than this one."""


class NotFound(StoreError):
    """An id that names nothing in the store."""
