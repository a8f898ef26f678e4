"""Full-text search over events and entries, in any language.

The service layer needs: :func:`clauses` to turn a user query into clauses, :class:`SearchIndex`
to search and (through one :class:`IndexWriter` per device) feed the index, :func:`matches` for
events stored but not yet indexed, and :func:`snippet` for result snippets.
"""

from .analyzer import tokens
from .errors import IndexBusy, IndexUnavailable, QueryError, SearchError
from .index import VALID_FOREVER, IndexStats, IndexWriter, SearchIndex
from .query import MAX_CLAUSES, Clause, clauses, matches
from .snippet import snippet

__all__ = [
    "MAX_CLAUSES",
    "VALID_FOREVER",
    "Clause",
    "IndexBusy",
    "IndexStats",
    "IndexUnavailable",
    "IndexWriter",
    "QueryError",
    "SearchError",
    "SearchIndex",
    "clauses",
    "matches",
    "snippet",
    "tokens",
]
