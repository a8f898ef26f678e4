"""The server side of `origin_api.lingering`: a long-running Origin process (`origin mcp`, the
hub, `origin run`, the search server a fresh command left) answers fresh `origin search` and
`origin get` commands over a Unix socket in ORIGIN_HOME, with the store, the index and the tools
it has loaded already (`lean.answer`, as the command would alone).

Only the first of the home's processes to start serves; the others see its socket answer and
leave it alone. A socket nobody answers on (its process was killed) is taken over. The socket
is made owner-only: it answers with the archive, as the home's files do. A command that fails
here (an unknown id, a bad option) is answered `no`, and the command runs in its own process
to report it as it always did.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import sys
import threading
import time
import traceback
from typing import TYPE_CHECKING

from . import ANSWER_TIMEOUT_S, CODE, CONNECT_TIMEOUT_S, PROTOCOL, SOCKET, receive, send

if TYPE_CHECKING:
    from ..runtime import Origin


class CliServer:
    """Serves one Origin over ORIGIN_HOME/cli.sock while started."""

    def __init__(self, origin: Origin) -> None:
        self.origin = origin
        self.path = str(origin.home / SOCKET)
        self.answered = 0
        #: When the last command was answered (time.monotonic), or the server started.
        self.last_used = time.monotonic()
        self._sock: socket.socket | None = None
        self._inode: int | None = None
        self._answering: set[threading.Thread] = set()
        self._answering_lock = threading.Lock()

    def start(self) -> bool:
        """Listen, unless another live process already does; whether this one serves."""
        if _alive(self.path):
            return False
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)  # left by a process that is gone
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            old = os.umask(0o177)
            try:
                sock.bind(self.path)
            finally:
                os.umask(old)
            sock.listen(16)
        except OSError:
            sock.close()
            return False
        self._sock = sock
        self._inode = os.stat(self.path).st_ino
        self.last_used = time.monotonic()
        threading.Thread(target=self._accept, name="origin-cli-serve", daemon=True).start()
        return True

    @property
    def serving(self) -> bool:
        return self._sock is not None

    def owns_socket(self) -> bool:
        """Whether the socket file is still this server's (not removed with its home, not
        replaced by another process's)."""
        try:
            found = os.stat(self.path)
        except OSError:
            return False
        return stat.S_ISSOCK(found.st_mode) and found.st_ino == self._inode

    @property
    def busy(self) -> bool:
        """Still answering a command: the store must not be closed under it."""
        with self._answering_lock:
            return bool(self._answering)  # each answer leaves the set as it ends

    def stop(self, wait_s: float = 0.0) -> None:
        """Stops listening, then waits up to `wait_s` for the commands being answered."""
        self._close_socket()
        deadline = time.monotonic() + wait_s
        with self._answering_lock:
            answering = list(self._answering)
        for thread in answering:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _close_socket(self) -> None:
        sock, self._sock = self._sock, None
        if sock is None:
            return
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()
        with contextlib.suppress(OSError):
            if self.owns_socket():
                os.unlink(self.path)  # ours, not a newer server's

    def _accept(self) -> None:
        while (sock := self._sock) is not None:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            thread = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            with self._answering_lock:  # started under the lock: `stop` joins no unstarted one
                self._answering.add(thread)
                thread.start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            with conn:
                conn.settimeout(ANSWER_TIMEOUT_S)
                request = receive(conn)
                send(conn, self.answer(request))
                self.last_used = time.monotonic()
        except (OSError, ValueError):
            return
        finally:
            with self._answering_lock:
                self._answering.discard(threading.current_thread())

    def answer(self, request: bytes) -> bytes:
        """`ok LF <len> LF stdout stderr`, or `no` for the command to answer itself."""
        from . import lean

        protocol, code, *args = request.split(b"\0")
        if protocol != PROTOCOL or code != CODE:
            return b"no"
        parsed = lean.parse([a.decode(errors="replace") for a in args])
        if parsed is None:
            return b"no"
        try:
            out, err = lean.answer(self.origin, parsed)
        except lean.errors():
            return b"no"
        except Exception:
            traceback.print_exc(file=sys.stderr)  # a bug: reported here, answered there
            return b"no"
        self.answered += 1
        printed = out.encode()
        return b"ok\n%d\n" % len(printed) + printed + err.encode()


def _alive(path: str) -> bool:
    """Whether a process answers on the socket at `path`."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(CONNECT_TIMEOUT_S)
        try:
            probe.connect(path)
        except OSError:
            return False
    return True
