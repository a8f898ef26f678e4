"""Codex's config.toml: the `[mcp_servers.<name>]` table Origin gives it, where the file is, and
the edit that replaces that table in place and changes nothing else."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import OriginError
from .base import TOKEN_PLACEHOLDER


def _toml_string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's for these characters)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if c >= " " else f"\\u{ord(c):04x}" for c in escaped) + '"'


def codex_toml(
    name: str, *, command: Path | None = None, url: str | None = None, token: str | None = None
) -> str:
    """Codex's `[mcp_servers.<name>]` table: a command for stdio, a URL and headers for HTTP."""
    lines = [f"[mcp_servers.{name}]"]
    if command is not None:
        lines += [f"command = {_toml_string(str(command))}", 'args = ["mcp"]']
    if url is not None:
        lines.append(f"url = {_toml_string(url)}")
        lines.append(f"[mcp_servers.{name}.http_headers]")
        lines.append(f"Authorization = {_toml_string('Bearer ' + (token or TOKEN_PLACEHOLDER))}")
        lines.append(f'"X-Origin-Client" = {_toml_string("codex")}')
    return "\n".join(lines) + "\n"


def codex_config(environ: dict[str, str] | None = None) -> Path:
    """Codex's config.toml: under CODEX_HOME when set, as Codex itself reads it."""
    env = os.environ if environ is None else environ
    home = env.get("CODEX_HOME") or str(Path(env.get("HOME") or Path.home()) / ".codex")
    return Path(home).expanduser() / "config.toml"


_HEADER = re.compile(r"^\s*\[\[?\s*(?P<key>[^\]]*?)\s*\]\]?\s*(?:#.*)?$")


def _table_key(line: str) -> list[str] | None:
    """A table header's dotted key, parts unquoted (None for any other line)."""
    found = _HEADER.match(line)
    if found is None:
        return None
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"|\'([^\']*)\'|([^.\s]+)', found["key"])
    return [a or b or c for a, b, c in parts]


def upsert_table(text: str, name: str, entry: str, *, where: Path | None = None) -> str:
    """`text` (a Codex config) with `[mcp_servers.<name>]` and its sub-tables replaced by `entry`,
    or `entry` appended: every other line stays as it was. A file that is not TOML, or one that
    defines the server another way (inline, dotted keys), is refused rather than guessed at."""
    import tomllib

    shown = where or "config.toml"
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise OriginError(f"{shown} is not valid TOML ({error}); fix it first.") from None
    wanted = tomllib.loads(entry)["mcp_servers"][name]
    if before.get("mcp_servers", {}).get(name) == wanted:
        return text
    kept: list[str] = []
    tail: list[str] = []  # comments and blank lines ending our table: they lead the next one
    at: int | None = None
    inside = False
    for line in text.splitlines(keepends=True):
        key = _table_key(line)
        if key is not None:
            kept += tail
            tail = []
            inside = key[:2] == ["mcp_servers", name]
            if inside:
                at = len(kept) if at is None else at
                continue
        if not inside:
            kept.append(line)
        elif not line.strip() or line.lstrip().startswith("#"):
            tail.append(line)
        else:
            tail = []
    kept += tail
    if at is None:
        body = "".join(kept)
        gap = "" if not body or body.endswith("\n\n") else "\n" if body.endswith("\n") else "\n\n"
        result = body + gap + entry
    else:
        following = "".join(kept[at:]).lstrip("\n")
        result = "".join(kept[:at]) + entry + ("\n" + following if following else "")
    _check(before, result, name, wanted, shown)
    return result


def _check(
    before: dict[str, object], result: str, name: str, wanted: object, shown: object
) -> None:
    """The edit changed our server's entry and nothing else, or it is not made."""
    import tomllib

    try:
        after = tomllib.loads(result)
    except tomllib.TOMLDecodeError:
        after = {}
    servers = after.get("mcp_servers", {})
    if (
        not isinstance(servers, dict)
        or servers.get(name) != wanted
        or _without(after, name) != _without(before, name)
    ):
        raise OriginError(
            f"{shown} defines mcp_servers.{name} in a way Origin does not edit (inline or "
            f"dotted keys); remove it there and run this again."
        )


def _without(config: dict[str, object], name: str) -> dict[str, object]:
    servers = config.get("mcp_servers")
    if not isinstance(servers, dict):
        return config
    rest = {k: v for k, v in servers.items() if k != name}
    return (
        {**config, "mcp_servers": rest}
        if rest
        else {k: v for k, v in config.items() if k != "mcp_servers"}
    )
