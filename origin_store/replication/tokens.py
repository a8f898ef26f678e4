"""The hub's bearer tokens: created, listed, revoked and verified in the "tokens" database.

A token is shown once, when it is created; the store keeps only its SHA-256 (a token is 256
random bits, so a plain hash cannot be reversed or guessed, and no slow KDF is needed). A
request's token is checked against every stored hash with `hmac.compare_digest`, so how long a
check takes says nothing about how close a guess was. A personal hub has a handful of tokens,
which keeps that scan cheap.

Records are keyed by name: {hash, scope, created, last_used, revoked} (times in ms).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

import lmdb

from ..core.db import Store, loads
from ..core.lmdbio import pairs
from ..errors import NotFound, StoreError
from ..records import TokenDoc

PREFIX = "ogn_"
SCOPES = ("read", "write")
NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")
_SECRET_BYTES = 32  # 43 url-safe characters after the prefix


class TokenError(StoreError):
    """A token name, scope or state that the command refuses."""


@dataclass(frozen=True, slots=True)
class Token:
    """A token as the store knows it: never the secret itself."""

    name: str
    scope: str
    created: int
    last_used: int | None
    revoked: int | None

    @property
    def active(self) -> bool:
        return self.revoked is None

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "scope": self.scope,
            "created": self.created,
            "last_used": self.last_used,
            "revoked": self.revoked,
        }


def digest(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def check_name(name: str) -> str:
    if not isinstance(name, str) or NAME.fullmatch(name) is None:
        raise TokenError(
            f"A token name is 1 to 64 letters, digits, dots, dashes or underscores; got {name!r}."
        )
    return name


def create(store: Store, name: str, scope: str = "write", *, now_ms: int | None = None) -> str:
    """Make a token and return its secret: the only time it exists outside the caller's hands.

    A name in use by an active token is refused (revoke it first); a revoked name is reused.
    """
    check_name(name)
    _check_scope(scope)
    raw = new_secret()
    record: TokenDoc = {
        "hash": digest(raw),
        "scope": scope,
        "created": _now(now_ms),
        "last_used": None,
        "revoked": None,
    }

    def work(txn: lmdb.Transaction) -> None:
        found = store.get(txn, "tokens", name.encode())
        if found is not None and found.get("revoked") is None:
            raise TokenError(
                f"A token named {name} exists already; revoke it first (origin token revoke {name})."
            )
        store.put(txn, "tokens", name.encode(), record)

    store.write(work)
    return raw


def new_secret() -> str:
    """A token's secret, not yet known to any store (`create` and `keep` record it)."""
    return PREFIX + secrets.token_urlsafe(_SECRET_BYTES)


def keep(
    store: Store, name: str, raw: str, scope: str = "write", *, now_ms: int | None = None
) -> bool:
    """Make `raw` the active token `name`, unless this very secret was revoked here: a person
    ended it, so it is not brought back (False). A secret kept outside the store (`origin run`'s,
    in a file only its user reads) then serves every store it is shown for, a new one included;
    whatever other secret held the name is replaced."""
    check_name(name)
    _check_scope(scope)
    if not raw.startswith(PREFIX):
        raise TokenError(f"A token starts with {PREFIX}.")
    wanted = digest(raw)

    def work(txn: lmdb.Transaction) -> bool:
        found: TokenDoc | None = store.get(txn, "tokens", name.encode())
        if found is not None and hmac.compare_digest(wanted, str(found.get("hash", ""))):
            return found.get("revoked") is None
        record: TokenDoc = {
            "hash": wanted,
            "scope": scope,
            "created": _now(now_ms),
            "last_used": None,
            "revoked": None,
        }
        store.put(txn, "tokens", name.encode(), record)
        return True

    kept: bool = store.write(work, durable=True)
    return kept


def list_tokens(store: Store) -> list[Token]:
    with store.read() as txn:
        cursor = txn.cursor(db=store.dbs["tokens"])
        return [_token(key.decode(), loads(value)) for key, value in pairs(cursor)]


def get(store: Store, name: str) -> Token | None:
    with store.read() as txn:
        found = store.get(txn, "tokens", name.encode())
    return None if found is None else _token(name, found)


def revoke(store: Store, name: str, *, now_ms: int | None = None) -> Token:
    """Refuse the token from now on; its record stays, so `list` shows when it was revoked."""

    def work(txn: lmdb.Transaction) -> TokenDoc:
        found: TokenDoc | None = store.get(txn, "tokens", name.encode())
        if found is None:
            raise NotFound(f"There is no token named {name}.")
        if found.get("revoked") is None:
            found["revoked"] = _now(now_ms)
            store.put(txn, "tokens", name.encode(), found)
        return found

    return _token(name, store.write(work))


def verify(store: Store, raw: str) -> Token | None:
    """The active token whose secret this is, or None. Every stored hash is compared."""
    if not isinstance(raw, str) or not raw.startswith(PREFIX) or len(raw) > 200:
        return None
    wanted = digest(raw)
    match: Token | None = None
    with store.read() as txn:
        cursor = txn.cursor(db=store.dbs["tokens"])
        for key, value in pairs(cursor):
            record = loads(value)
            if (
                hmac.compare_digest(wanted, str(record.get("hash", "")))
                and record.get("revoked") is None
            ):
                match = _token(key.decode(), record)
    return match


def touch(store: Store, name: str, *, now_ms: int | None = None) -> None:
    """Record when a token was last used (callers throttle this: it is a write)."""
    when = _now(now_ms)

    def work(txn: lmdb.Transaction) -> None:
        found = store.get(txn, "tokens", name.encode())
        if found is not None and (found.get("last_used") or 0) < when:
            found["last_used"] = when
            store.put(txn, "tokens", name.encode(), found)

    store.write(work)


def _check_scope(scope: str) -> None:
    if scope not in SCOPES:
        raise TokenError(f"A token's scope is read or write; got {scope!r}.")


def _token(name: str, record: TokenDoc) -> Token:
    return Token(
        name=name,
        scope=record.get("scope", "read"),
        created=record.get("created", 0),
        last_used=record.get("last_used"),
        revoked=record.get("revoked"),
    )


def _now(now_ms: int | None) -> int:
    return int(time.time() * 1000) if now_ms is None else now_ms
