"""The `cursor-agent` CLI's chats: `chats/<md5(cwd)>/<agentId>/store.db` (+ `meta.json`).

`meta` holds one row, hex-encoded JSON (name, createdAt); `blobs` is content-addressed
(id = sha256 of the data): the messages are JSON blobs, and each turn adds a protobuf root
listing them, whose field 9 is the workspace URI. Only the JSON blobs and the newest root are
queried. Messages carry no times: an event's time is the chat's createdAt plus the blob's row
number in milliseconds, which is not when it was said but keeps the chat in the order it was
written (events of equal time would sort by blob hash). A message written twice word for word
is one blob, hence one event. The cwd comes from `meta.json`, else the root's workspace, else the
`Workspace Path` of a user message when its md5 is the directory's name (a hash can be checked,
never inverted). Layout and field notes: research/formats.md §3.3.
"""

from __future__ import annotations

import base64
import hashlib
from pathlib import PurePosixPath
from typing import Any

from ...model import ParseProblem, Record, SessionFact
from ..base import (
    FILE_TABLE,
    FileKind,
    Table,
    build_events,
    load_object,
    nonempty_str,
    row_parser,
    safe_time,
)
from .common import NAME, STORE_NAME_RANK, TITLE_RANK, content_events, folder_path, row_json

_SIBLING = "meta.json"
#: The name every new chat has until it gets one: not a title.
_DEFAULT_NAME = "New Agent"
#: The protobuf field of a root blob that holds the workspace URI.
_WORKSPACE_FIELD = 9

# A blob whose first byte is `{` is a JSON message; the others are protobuf roots.
_JSON_BLOB = "hex(substr(data, 1, 1)) = '7B'"
META = Table(name="meta", sql="SELECT key, value FROM meta WHERE key = '0'", key=("key",))
ROOT = Table(
    name="root",
    sql=(
        "SELECT 'latest' AS slot, data FROM blobs"
        f" WHERE NOT ({_JSON_BLOB}) ORDER BY rowid DESC LIMIT 1"
    ),
    key=("slot",),
)
BLOBS = Table(
    name="blobs",
    sql=f"SELECT id, rowid AS n, data FROM blobs WHERE {_JSON_BLOB} ORDER BY rowid",
    key=("id",),
)


def start(relpath: str) -> dict[str, Any]:
    """The chat's id is its directory's name, and the directory above is md5(cwd)."""
    parts = PurePosixPath(relpath).parts
    return {
        "sid": parts[-2] if len(parts) >= 2 else "unknown",
        "dir": parts[-3] if len(parts) >= 3 else "",
    }


@row_parser
def parse(table: str, key: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """Never raises: a row shape the code did not foresee must not stop ingestion."""
    if table == FILE_TABLE:
        return _meta_file(key, row, state)
    if table == META.name:
        return _meta_row(row, state)
    if table == ROOT.name:
        return _root(row, state)
    if table == BLOBS.name:
        return _blob(key, row, state)
    return []


def _meta_file(path: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """meta.json, written by newer versions: the title, cwd and times."""
    if PurePosixPath(path.replace("\\", "/")).name != _SIBLING:
        return []
    text = row.get("text")
    data = load_object(text.encode("utf-8", "replace")) if isinstance(text, str) else None
    if not isinstance(data, dict):
        return [data] if isinstance(data, ParseProblem) else []
    created = safe_time(data.get("createdAtMs"))
    _started(state, created)
    out: list[Record] = []
    _set_cwd(state, nonempty_str(data.get("cwd")), out)
    title = nonempty_str(data.get("title"))
    if title is not None and title != _DEFAULT_NAME:
        out.append(_fact(state, title=title, title_rank=TITLE_RANK, time=created))
    return out


def _meta_row(row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """The store's own meta row: hex of a JSON object."""
    value = row.get("value")
    try:
        data = load_object(bytes.fromhex(value)) if isinstance(value, str) else None
    except ValueError:
        return [ParseProblem("bad-field", "the meta row is not hex")]
    if not isinstance(data, dict):
        return [data] if isinstance(data, ParseProblem) else []
    created = safe_time(data.get("createdAt"))
    _started(state, created)
    name = nonempty_str(data.get("name"))
    if name is None or name == _DEFAULT_NAME:
        return []
    return [_fact(state, title=name, title_rank=STORE_NAME_RANK, time=created)]


def _root(row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """The newest root blob: only its workspace URI is read (its message list is the blobs')."""
    value = row.get("data")
    data = value.encode("utf-8") if isinstance(value, str) else _base64(value)
    out: list[Record] = []
    uri = root_workspace(data) if data else None
    _set_cwd(state, folder_path(uri), out)
    return out


def _blob(blob: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """A message blob's events; the first user query is the chat's prompt."""
    data = row_json(row.get("data"))
    if not isinstance(data, dict):
        return [data] if isinstance(data, ParseProblem) else []
    role = data.get("role")
    events, workspace = content_events(data.get("content"), role if isinstance(role, str) else "")
    out: list[Record] = []
    if workspace is not None and _md5(workspace) == state.get("dir"):
        _set_cwd(state, workspace, out)
    if not state.get("prompt_sent"):
        prompt = next((text for _, r, _, text in events if r == "user"), None)
        if isinstance(prompt, str):
            out.append(_fact(state, prompt=prompt))
            state["prompt_sent"] = True
    started = state.get("t")
    number = row.get("n")
    time = 0
    if isinstance(started, int) and started > 0:
        time = started + (number if isinstance(number, int) and number > 0 else 0)
    out.extend(
        build_events(
            f"{NAME}:{_sid(state)}:{blob}",
            events,
            source=NAME,
            time=time,
            session=_sid(state),
            cwd=nonempty_str(state.get("cwd")),
            state={},
        )
    )
    return out


def root_workspace(data: bytes) -> str | None:
    """Field 9 of a protobuf root blob (length-delimited: the workspace URI), if it has one."""
    position = 0
    while position < len(data):
        tag, position = _varint(data, position)
        if tag is None:
            return None
        field, wire = tag >> 3, tag & 7
        if wire == 0:
            _, position = _varint(data, position)
        elif wire == 1:
            position += 8
        elif wire == 5:
            position += 4
        elif wire == 2:
            length, position = _varint(data, position)
            if length is None or position + length > len(data):
                return None
            if field == _WORKSPACE_FIELD:
                return data[position : position + length].decode("utf-8", "replace")
            position += length
        else:
            return None
    return None


def _varint(data: bytes, position: int) -> tuple[int | None, int]:
    value, shift = 0, 0
    while position < len(data) and shift < 64:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position
        shift += 7
    return None, len(data)


def _base64(value: object) -> bytes:
    """A blob the row log holds as `{"base64": …}` (one that is not UTF-8)."""
    encoded = value.get("base64") if isinstance(value, dict) else None
    if not isinstance(encoded, str):
        return b""
    try:
        return base64.b64decode(encoded, validate=True)
    except ValueError:
        return b""


def _started(state: dict[str, Any], created: int | None) -> None:
    if created is not None and not state.get("t"):
        state["t"] = created


def _set_cwd(state: dict[str, Any], cwd: str | None, out: list[Record]) -> None:
    """The first cwd found is the chat's (sources come best first: meta.json, root, query)."""
    if cwd is None or state.get("cwd"):
        return
    state["cwd"] = cwd
    out.append(_fact(state, cwd=cwd))


def _fact(state: dict[str, Any], **fields: Any) -> SessionFact:
    return SessionFact(_sid(state), NAME, **fields)


def _sid(state: dict[str, Any]) -> str:
    return nonempty_str(state.get("sid")) or "unknown"


def _md5(path: str) -> str:
    return hashlib.md5(path.encode("utf-8"), usedforsecurity=False).hexdigest()


CLI_DB = FileKind(
    name="cli",
    patterns=("chats/*/*/store.db",),
    parse=parse,
    start=start,
    tables=(META, ROOT, BLOBS),
    siblings=(_SIBLING,),
)
