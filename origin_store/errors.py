"""The store layer's one exception tree; front doors translate it at their edges."""


class StoreError(Exception):
    """Anything the store refuses or cannot do, with a message fit for a person."""


class SchemaMismatch(StoreError):
    """The store on disk was written by a newer Origin than this one."""


class NotFound(StoreError):
    """An id that names nothing in the store."""


class HomeUnusable(StoreError):
    """ORIGIN_HOME cannot hold the archive: it cannot be created, written or opened there.

    A person fixes it by choosing another directory, so the message names the directory, the
    reason, and the setting; `home` and `reason` are kept apart for callers that show them."""

    def __init__(self, home: str, reason: str) -> None:
        super().__init__(
            f"Cannot use ORIGIN_HOME {home}: {reason}. Set ORIGIN_HOME to a writable directory."
        )
        self.home = home
        self.reason = reason


class BadSetting(StoreError):
    """An environment setting whose value Origin cannot use, named with it."""


class StoreBusy(StoreError):
    """The store is held by others for what was asked: compacting it while it is open, or
    opening it while it is compacted."""
