"""The hub's and the admin UI's logs on stderr: one line a request or a write, with its time."""

from __future__ import annotations

import logging
import sys
from typing import Any


class _Stderr(logging.StreamHandler[Any]):
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
    handler = _Stderr()
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s", "%Y-%m-%dT%H:%M:%S%z"))
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False
