"""The search server a fresh `origin search` or `origin get` leaves behind when no Origin process
answers on the home's socket: it serves the next fresh commands (`server.CliServer`, the same
answers as alone) and leaves after `ORIGIN_CLI_LINGER_S` seconds without one.

It ends as soon as it is not wanted: its socket removed or replaced (the home deleted, another
process serving), Origin's code changed under it (an upgrade, an edit in a checkout: it would
answer with the old code), SIGTERM or SIGINT. It writes its pid to `cli-server.pid` in the home
while it serves, so a person or a script can find it. Started by `start_lingering` as `python -m
origin_api.lingering.process`, detached, with its stderr in `cli-server.log`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from types import FrameType

from origin_search import SearchError
from origin_store import StoreError

from ..errors import OriginError
from ..runtime import Origin
from ..settings import Settings
from . import PID_FILE
from .server import CliServer

#: How often it looks at its socket and its idle time.
TICK_S = 0.5
#: How long the end waits for commands being answered before it leaves the store open.
STOP_WAIT_S = 5.0


def main() -> int:
    started_ns = time.time_ns()  # its modules were read just before: a later write is a change
    signal.signal(signal.SIGTERM, _leave)
    signal.signal(signal.SIGINT, _leave)
    try:
        settings = Settings.from_env()
        if settings.cli_linger_s <= 0:
            return 0
        with Origin.open(settings) as origin:
            server = CliServer(origin)
            if not server.start():
                return 0  # another process serves already
            pid_file = origin.home / PID_FILE
            try:
                pid_file.write_text(f"{os.getpid()}\n")
                linger(server, settings.cli_linger_s, started_ns)
            finally:
                server.stop(STOP_WAIT_S)
                if server.busy:
                    origin.keep_open()
                with contextlib.suppress(OSError):
                    if pid_file.read_text().strip() == str(os.getpid()):
                        pid_file.unlink()
    except (OriginError, StoreError, SearchError) as error:
        print(f"{time.strftime('%Y-%m-%dT%H:%M:%S%z')} error: {error}", file=sys.stderr)
        return 2
    return 0


def linger(server: CliServer, idle_s: float, started_ns: int) -> None:
    """Serve until `idle_s` seconds pass without a command, the socket is no longer ours, or
    Origin's code changed since this process started."""
    while (
        server.owns_socket()
        and time.monotonic() - server.last_used < idle_s
        and not code_changed(started_ns)
    ):
        time.sleep(TICK_S)


#: The packages whose loaded modules a lingering server watches.
PACKAGES = ("origin_store", "origin_search", "origin_api")


def code_changed(since_ns: int) -> bool:
    """Whether a file of Origin's loaded modules was written after `since_ns`, or is gone: a
    new command would run the new code, and this process must not answer for it (~100 stats,
    a fraction of a millisecond)."""
    for name, module in list(sys.modules.items()):
        if name.partition(".")[0] not in PACKAGES:
            continue
        path = getattr(module, "__file__", None)
        if not path:
            continue
        try:
            if os.stat(path).st_mtime_ns > since_ns:
                return True
        except OSError:
            return True  # uninstalled or moved
    return False


def _leave(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


if __name__ == "__main__":
    sys.exit(main())
