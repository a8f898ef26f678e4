"""Full-text search over events and entries, in any language.

The service layer needs: :func:`open_searcher` for the one :class:`Searcher` of a process,
whose :meth:`Searcher.find` takes :func:`clauses` of a user query and one :class:`Filters`
(it catches the index up, scans what is stored but not yet indexed, and asks the index), and
:func:`snippet` for result snippets. :class:`SearchIndex` and :class:`IndexWriter` are the
index itself, for rebuilds and tests.
"""

from .analyzer import tokens
from .catchup import CatchUp
from .errors import IndexBusy, IndexUnavailable, QueryError, SearchError
from .filters import VALID_FOREVER, Filters
from .index import Hit, IndexStats, SearchIndex
from .partitions import MESSAGE_KINDS, PARTITIONS
from .query import MAX_CLAUSES, Clause, clauses, matches
from .searcher import Searcher, Snapshot, open_searcher
from .snippet import snippet
from .writer import IndexWriter

__all__ = [
    "MAX_CLAUSES",
    "MESSAGE_KINDS",
    "PARTITIONS",
    "VALID_FOREVER",
    "CatchUp",
    "Clause",
    "Filters",
    "Hit",
    "IndexBusy",
    "IndexStats",
    "IndexUnavailable",
    "IndexWriter",
    "QueryError",
    "SearchError",
    "SearchIndex",
    "Searcher",
    "Snapshot",
    "clauses",
    "matches",
    "open_searcher",
    "snippet",
    "tokens",
]
