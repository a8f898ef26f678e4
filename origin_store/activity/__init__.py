"""Activity at a glance: figures per day, source and project, and per session, kept at ingest.

The face: writers of events `Tally` them in their own transaction (`tally`); a store from before
the figures builds them once (`build.backfill`); `verify` recounts them (`build.Recount`); the
activity page and `origin activity` read a window of days (`read.activity`), an answer kept
until the feed moves.
"""

from .build import Recount, backfill, compare, pending
from .read import Activity, BusySession, Figures, activity, forget_answers
from .tally import DAY_MS, Tally, day_label, usage_of

__all__ = [
    "DAY_MS",
    "Activity",
    "BusySession",
    "Figures",
    "Recount",
    "Tally",
    "activity",
    "backfill",
    "compare",
    "day_label",
    "forget_answers",
    "pending",
    "usage_of",
]
