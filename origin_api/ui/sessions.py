"""Who is signed in to the admin UI, and how often a client may guess.

Sessions live in the serving process's memory: the hub is one process on purpose, signing out
really ends a session, and a restart signs everyone out (they sign in again). The cookie holds
a random id; the table keeps only its SHA-256, so a memory dump or a debugger never shows a
usable cookie. Each session has its own CSRF token, which every form and every state-changing
request must send back (`guard`).
"""

from __future__ import annotations

import hashlib
import secrets
import threading
import time
from dataclasses import dataclass, field

#: A session unused for this long ends.
IDLE_S = 12 * 3600
#: And every session ends this long after sign-in, used or not.
LIFETIME_S = 7 * 24 * 3600
#: The most sessions kept; past it the least recently used one ends (a bound on memory).
MAX_SESSIONS = 256
#: Failed sign-ins from one client in `WINDOW_S` before it must wait for the window to pass.
MAX_FAILURES = 5
WINDOW_S = 300.0


@dataclass
class Session:
    """One signed-in browser: how it signed in, its CSRF token, and messages to show next."""

    how: str  # "password" or "token <name>": for the log, never a secret
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    started: float = field(default_factory=time.monotonic)
    seen: float = field(default_factory=time.monotonic)
    flashes: list[tuple[str, str]] = field(default_factory=list)

    def flash(self, message: str, level: str = "info") -> None:
        """A message for the next page this browser renders (after a redirect, typically)."""
        self.flashes.append((level, message))

    def take_flashes(self) -> list[tuple[str, str]]:
        taken, self.flashes = self.flashes, []
        return taken


def _key(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


class Sessions:
    """The signed-in sessions of one UI, by the hash of their cookie."""

    def __init__(self) -> None:
        self._by_key: dict[str, Session] = {}
        self._lock = threading.Lock()

    def start(self, how: str) -> tuple[str, Session]:
        """A new session: the cookie value (shown to the browser once) and the session."""
        raw = secrets.token_urlsafe(32)
        session = Session(how)
        with self._lock:
            if len(self._by_key) >= MAX_SESSIONS:
                oldest = min(self._by_key, key=lambda k: self._by_key[k].seen)
                del self._by_key[oldest]
            self._by_key[_key(raw)] = session
        return raw, session

    def find(self, raw: str | None) -> Session | None:
        """The live session this cookie names, marked as used now; None if none or expired."""
        if not raw or len(raw) > 100:
            return None
        now = time.monotonic()
        key = _key(raw)
        with self._lock:
            session = self._by_key.get(key)
            if session is None:
                return None
            if now - session.seen > IDLE_S or now - session.started > LIFETIME_S:
                del self._by_key[key]
                return None
            session.seen = now
            return session

    def end(self, raw: str | None) -> None:
        if raw:
            with self._lock:
                self._by_key.pop(_key(raw), None)


class Throttle:
    """Failed sign-ins per client: after `MAX_FAILURES` within `WINDOW_S`, that client is
    refused until its oldest failure leaves the window. A success clears its record."""

    def __init__(self, limit: int = MAX_FAILURES, window_s: float = WINDOW_S) -> None:
        self.limit = limit
        self.window_s = window_s
        self._failures: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def wait(self, client: str, now: float | None = None) -> int:
        """Seconds this client must wait before trying again (0: it may try now)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            recent = [t for t in self._failures.get(client, []) if now - t < self.window_s]
            if recent:
                self._failures[client] = recent
            else:
                self._failures.pop(client, None)
            if len(recent) < self.limit:
                return 0
            return max(1, int(self.window_s - (now - recent[0]) + 0.999))

    def failed(self, client: str, now: float | None = None) -> int:
        """Record a failure; how many this client has in the window now."""
        now = time.monotonic() if now is None else now
        with self._lock:
            if len(self._failures) > 10_000:  # many clients at once: forget the quiet ones
                self._failures = {
                    c: ts for c, ts in self._failures.items() if now - ts[-1] < self.window_s
                }
            found = self._failures.setdefault(client, [])
            found.append(now)
            return len(found)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(client, None)
