"""What every page of the admin UI reaches through: the open Origin, the service, the sessions.

A page never opens a store or searches by itself: it calls the tools through `Ui.call` (the
same `service.call` as MCP and the CLI) and the archive's care through `origin_api.admin`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..errors import OriginError
from ..runtime import Origin
from ..service import Caller, Noted, Relayed, call
from ..stderrlog import show_on_stderr
from .sessions import Sessions, Throttle

#: Sign-ins, refusals and every write, one line each on stderr (who, what, from where).
LOG = logging.getLogger("origin.ui")


@dataclass
class Ui:
    """One admin UI over an open Origin.

    `merged` is True for `origin ui` on a device: its reads and writes then go to the hub too,
    as the device's `origin mcp` does; the hub's own UI answers from the hub's store alone."""

    origin: Origin
    merged: bool = False
    sessions: Sessions = field(default_factory=Sessions)
    throttle: Throttle = field(default_factory=Throttle)

    @property
    def device(self) -> str:
        """The name in `user@<device>`: this device's, or the hub's own."""
        return self.origin.settings.device

    def call(self, tool: str, args: dict[str, Any], caller: Caller) -> Any:
        """Run one tool as the MCP tools run it; raises `OriginError` with the contract's words."""
        result = call(self.origin, tool, args, caller, merged=self.merged)
        if isinstance(result, Noted):
            return result.payload
        if isinstance(result, Relayed):
            content = result.result.get("content") or [{}]
            text = str(content[0].get("text", ""))
            if result.result.get("isError"):
                raise OriginError(text, "upstream_failure")
            return orjson.loads(text)
        return result

    def read(self, tool: str, **args: Any) -> Any:
        """A read tool's answer (reads have no author worth naming)."""
        return self.call(tool, args, Caller("user", self.device))


def log_to_stderr() -> None:
    """Show the UI's log on stderr (`stderrlog`)."""
    show_on_stderr(LOG)
