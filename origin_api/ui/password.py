"""The admin password: set with `origin ui password`, kept as an scrypt hash in the home.

A password is chosen by a person and may be weak, so unlike a token (256 random bits, a plain
SHA-256 is enough) it is stretched with scrypt and a random salt: a copy of the file does not
give the password back cheaply. The file is `ORIGIN_HOME/ui-password`, mode 0600, one line:
`scrypt$<n>$<r>$<p>$<salt>$<hash>` (base64), so the cost can rise later without breaking the
passwords already kept.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from origin_store.system.durable import write_whole

from ..errors import OriginError, invalid

#: Under ORIGIN_HOME: the admin password's hash.
PASSWORD_FILE = "ui-password"
#: scrypt's cost: 2**14 and r=8 take ~30-60 ms and 16 MiB here, the figures the scrypt paper
#: gives for interactive logins.
N, R, P = 2**14, 8, 1
MIN_LENGTH = 8
MAX_LENGTH = 1024


def _hash(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode("utf-8", "surrogatepass"), salt=salt, n=n, r=r, p=p, dklen=32
    )


def set_password(home: Path, password: str) -> Path:
    """Keep `password`'s hash in the home (replacing any), written whole and created 0600."""
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        raise invalid(
            f"An admin password is {MIN_LENGTH} to {MAX_LENGTH} characters; "
            f"this one has {len(password)}."
        )
    salt = secrets.token_bytes(16)
    digest = _hash(password, salt, N, R, P)
    line = "$".join(
        ["scrypt", str(N), str(R), str(P), _b64(salt), _b64(digest)]
    )  # no secret in it but the hash
    path = home / PASSWORD_FILE
    try:
        home.mkdir(parents=True, exist_ok=True)
        write_whole(path, line.encode("ascii") + b"\n")
    except OSError as error:
        raise OriginError(f"Cannot keep the admin password in {path}: {error.strerror}.") from None
    return path


def has_password(home: Path) -> bool:
    return _read(home) is not None


def check_password(home: Path, password: str) -> bool:
    """Whether `password` is the admin password; False when none is set. The hashes are
    compared in constant time."""
    kept = _read(home)
    if kept is None or not 0 < len(password) <= MAX_LENGTH:
        return False
    n, r, p, salt, digest = kept
    return hmac.compare_digest(_hash(password, salt, n, r, p), digest)


def _read(home: Path) -> tuple[int, int, int, bytes, bytes] | None:
    path = home / PASSWORD_FILE
    try:
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, 0o600)  # copied with looser rights: this user's again
        fields = path.read_text(encoding="ascii").strip().split("$")
        if len(fields) != 6 or fields[0] != "scrypt":
            return None
        n, r, p = (int(value) for value in fields[1:4])
        return n, r, p, base64.b64decode(fields[4]), base64.b64decode(fields[5])
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
