"""The lingering search server: a fresh `origin search` or `origin get` answered by an Origin
process that is already running (each agent's `origin mcp`, the hub, `origin run`, or the server
a fresh command left behind), over a Unix socket in ORIGIN_HOME.

This face is the client side, which a fresh command imports first (`ask`, `start_lingering`),
and `stop_lingering` for what needs the store to itself (`origin compact`, the bench); being the
package's `__init__`, it is the only module of the package on that path. The server side is
`server.CliServer`, which long-running processes start (`freshness`), imported from there: it
reads the exchange's constants here, so handing it on from here would make the two import each
other. `process` is the search server a fresh command leaves, `lean` what both sides answer
(the commands' options, their parse, their answer, the people's text of both) and how a fresh
process answers alone, and `names` what an empty answer whose filter names nothing says.

A new Python process spends most of its ~90 ms importing the store, the index and the tools;
the answer itself takes ~2 ms. A running process has all of that loaded, so the command asks it
first: this module imports only what a socket and the home's name need. Nothing answering (no
such process, a socket left by one that died, another installation's server, a refusal) means
the command runs in its own process, as it always did: the answer is the same either way.

With no such process, the command answers alone and then starts one that lingers
(`process.py`, `ORIGIN_CLI_LINGER_S` idle seconds; 0 starts none), so the next command is
answered by it: a shell user without an agent running gets the same quick answers.

The exchange is one request and one answer on a connection, each a length-prefixed message:
request ``PROTOCOL NUL code-dir NUL arg NUL arg…``; answer ``ok LF <len> LF stdout stderr``
(print both, exit 0), or anything else: answer here.
"""

from __future__ import annotations

import os
import sys

#: Bump when the exchange changes: a server of another protocol is not asked.
PROTOCOL = b"origin-cli-1"
#: The socket, under ORIGIN_HOME.
SOCKET = "cli.sock"
#: How long a fresh command waits for a running process before answering alone.
CONNECT_TIMEOUT_S = 0.05
ANSWER_TIMEOUT_S = 10.0
#: Where this installation's code is: a server running other code is not asked.
CODE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))).encode()


def socket_path(environ: dict[str, str] | os._Environ[str]) -> str:
    """ORIGIN_HOME/cli.sock. ORIGIN_HOME is read here as `origin_store.home.home_of` reads it
    (a test holds the two together): importing even that package's `__init__` costs a fresh
    command more than the whole exchange with a running process."""
    home = environ.get("ORIGIN_HOME") or "~/.origin"
    if home.startswith("~"):
        home = home.replace("~", environ.get("HOME") or os.path.expanduser("~"), 1)
    return os.path.join(home, SOCKET)


#: What `ask` found: the command was answered; a process is there but left it to this one;
#: nobody answers on the socket.
ANSWERED, DECLINED, NOBODY = "answered", "declined", "nobody"


def ask(args: list[str]) -> str:
    """Print a running process's answer to `args` (ANSWERED), or say why to answer here."""
    # The C socket module: `socket` imports enum and selectors (~4 ms of a fresh process).
    import _socket

    try:
        path = socket_path(os.environ)
        conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            conn.settimeout(CONNECT_TIMEOUT_S)
            conn.connect(path)
        except OSError:
            conn.close()
            return NOBODY
        try:
            conn.settimeout(ANSWER_TIMEOUT_S)
            send(conn, b"\0".join([PROTOCOL, CODE, *(a.encode() for a in args)]))
            answer = receive(conn)
        finally:
            conn.close()
        status, _, rest = answer.partition(b"\n")
        if status != b"ok":
            return DECLINED
        head, _, rest = rest.partition(b"\n")
        size = int(head)
    except (OSError, ValueError):
        return DECLINED
    out, err = rest[:size], rest[size:]
    if err:
        sys.stderr.buffer.write(err)
        sys.stderr.flush()
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    return ANSWERED


#: The setting, read here as `origin_api.settings` reads it (a test holds the two together).
LINGER_SETTING = "ORIGIN_CLI_LINGER_S"
LINGER_DEFAULT = 600
#: The lingering server's messages (a bug's traceback), under ORIGIN_HOME.
LINGER_LOG = "cli-server.log"
#: Under ORIGIN_HOME while a lingering server serves: its process id.
PID_FILE = "cli-server.pid"
#: The lingering server's module, run as `python -m` (a test finds its processes by it).
PROCESS = "origin_api.lingering.process"


def linger_seconds(environ: dict[str, str] | os._Environ[str]) -> int:
    """How long a search server started by a fresh command waits for the next one; 0: none."""
    try:
        return max(0, int(environ.get(LINGER_SETTING, "").strip() or LINGER_DEFAULT))
    except ValueError:
        return 0  # the settings report the bad value; a fresh command just starts nothing


def start_lingering() -> None:
    """Start a detached search server for the next fresh commands, unless the setting says none.

    It is spawned, not forked (this process may hold threads and an open store), in a session
    of its own, with nothing of this command's streams: a shell reading this command's output
    sees its end at once. Its stderr goes to a log in the home, where a bug would be reported."""
    if linger_seconds(os.environ) <= 0:
        return
    home = os.path.dirname(socket_path(os.environ))
    try:  # noqa: SIM105 (contextlib is one more import for a fresh command)
        os.posix_spawn(
            sys.executable,
            [sys.executable, "-m", PROCESS],
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (
                    os.POSIX_SPAWN_OPEN,
                    2,
                    os.path.join(home, LINGER_LOG),
                    os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                    0o600,
                ),
            ],
            setsid=True,
        )
    except (OSError, NotImplementedError):  # setsid is not offered everywhere
        pass  # no server then: every command answers alone, as it always could


def stop_lingering(home: str | os.PathLike[str], timeout_s: float = 30.0) -> None:
    """Ask the search server lingering in `home`, if any, to leave (SIGTERM) and wait until it
    has, for at most `timeout_s` (for what needs the store to itself: `origin compact`, which
    refuses while one still holds it; the bench, between its runs)."""
    import signal
    import time

    pid_file = os.path.join(home, PID_FILE)
    try:
        with open(pid_file) as f:
            os.kill(int(f.read()), signal.SIGTERM)
    except (OSError, ValueError):
        return  # none, or one already gone
    deadline = time.monotonic() + timeout_s
    while os.path.exists(pid_file) and time.monotonic() < deadline:
        time.sleep(0.02)


def send(conn: object, payload: bytes) -> None:
    conn.sendall(b"%d\n" % len(payload) + payload)  # type: ignore[attr-defined]


#: The largest message either side reads (an answer of 500 hits with their texts fits).
MAX_MESSAGE = 64 * 1024 * 1024


def receive(conn: object) -> bytes:
    """One length-prefixed message; ValueError when it is cut short or malformed."""
    head = b""
    while not head.endswith(b"\n"):
        byte = conn.recv(1)  # type: ignore[attr-defined]
        if not byte or len(head) > 12:
            raise ValueError("no length")
        head += byte
    size = int(head)
    if not 0 <= size <= MAX_MESSAGE:
        raise ValueError("bad length")
    chunks, left = [], size
    while left:
        chunk = conn.recv(min(left, 1 << 20))  # type: ignore[attr-defined]
        if not chunk:
            raise ValueError("cut short")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)
