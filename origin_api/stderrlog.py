"""The hub's and the admin UI's logs on stderr: one line a request or a write, with its time;
uvicorn's own lines (its start, its stop, an error) in the same format (`UVICORN_LOGGING`)."""

from __future__ import annotations

import logging
import sys
from typing import Any

#: Every line: its time, then what happened.
FORMAT = "%(asctime)s %(message)s"
DATE_FORMAT = "%Y-%m-%dT%H:%M:%S%z"


class Stderr(logging.StreamHandler[Any]):
    """Writes to whatever `sys.stderr` is when a line is logged (a test's capture, a redirected
    stream), not to the stream there was when the logger was set up."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass


def show_on_stderr(log: logging.Logger) -> None:
    """Show `log`'s INFO lines on stderr, each with its time, unless whoever runs Origin
    configured that logger already (an app embedding the hub); uvicorn's logging setup keeps it."""
    if log.handlers:
        return
    handler = Stderr()
    handler.setFormatter(logging.Formatter(FORMAT, DATE_FORMAT))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


#: uvicorn's logging (its `log_config`): its lines in Origin's format, not its own
#: `INFO:     Started server process`, among the hub's timed lines; its access log off (the
#: hub logs each request itself).
UVICORN_LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"origin": {"format": FORMAT, "datefmt": DATE_FORMAT}},
    "handlers": {"stderr": {"class": f"{__name__}.Stderr", "formatter": "origin"}},
    "loggers": {
        "uvicorn": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
        "uvicorn.error": {"level": "INFO"},
        "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
    },
}
