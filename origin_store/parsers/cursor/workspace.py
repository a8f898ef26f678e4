"""A Cursor IDE workspace: `workspaceStorage/<id>/state.vscdb` with its `workspace.json`.

The chats themselves live in the global database; a workspace's database says which of them were
held in that folder (`composer.composerData`), which is how an IDE chat gets its cwd, and keeps
the chats of versions before composers (`workbench.panel.aichat.view.aichat.chatdata`). Only
those two keys of its `ItemTable` are queried. `workspace.json` comes first in the row log (a
sibling), so the folder is known when the rows arrive. Layout notes: research/formats.md §3.2.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

import orjson

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
from .common import NAME, TITLE_RANK, Event, folder_path

_INDEX_KEY = "composer.composerData"
_AICHAT_KEY = "workbench.panel.aichat.view.aichat.chatdata"
_SIBLING = "workspace.json"


def _item(key: str) -> str:
    """One ItemTable row; `j` is its value when that is valid JSON."""
    return (
        "SELECT key, CAST(value AS TEXT) AS raw,"
        " CASE WHEN json_valid(CAST(value AS TEXT)) THEN CAST(value AS TEXT) END AS j"
        f" FROM ItemTable WHERE key = '{key}'"
    )


COMPOSER_INDEX = Table(
    name="composer_index",
    sql=(
        "SELECT key, j IS NOT NULL AS valid, json((SELECT"
        " json_group_array(json_extract(e.value, '$.composerId'))"
        " FROM json_each(j, '$.allComposers') AS e WHERE e.type = 'object')) AS composers"
        f" FROM ({_item(_INDEX_KEY)})"
    ),
    key=("key",),
)
_LEGACY_BUBBLE = (
    "json_object('type', json_extract(b.value, '$.type'), 'id', json_extract(b.value, '$.id'),"
    " 'text', json_extract(b.value, '$.text'), 'rawText', json_extract(b.value, '$.rawText'))"
)
_LEGACY_TAB = (
    "json_object('tabId', json_extract(t.value, '$.tabId'),"
    " 'chatTitle', json_extract(t.value, '$.chatTitle'),"
    " 'lastSendTime', json_extract(t.value, '$.lastSendTime'),"
    f" 'bubbles', json((SELECT json_group_array({_LEGACY_BUBBLE})"
    " FROM json_each(t.value, '$.bubbles') AS b WHERE b.type = 'object')))"
)
LEGACY_CHATS = Table(
    name="aichat",
    sql=(
        f"SELECT key, j IS NOT NULL AS valid, json((SELECT json_group_array({_LEGACY_TAB})"
        f" FROM json_each(j, '$.tabs') AS t WHERE t.type = 'object')) AS tabs"
        f" FROM ({_item(_AICHAT_KEY)})"
    ),
    key=("key",),
)


def start(relpath: str) -> dict[str, Any]:
    """The folder arrives with the first line (workspace.json); nothing is known before."""
    return {}


@row_parser
def parse(table: str, key: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """Never raises: a row shape the code did not foresee must not stop ingestion."""
    if table == FILE_TABLE:
        return _workspace_file(key, row, state)
    if table not in (COMPOSER_INDEX.name, LEGACY_CHATS.name):
        return []
    if row.get("valid") == 0:
        return [ParseProblem("invalid-json", f"ItemTable {key}")]
    field = "composers" if table == COMPOSER_INDEX.name else "tabs"
    listed = _json_list(row.get(field))
    if table == COMPOSER_INDEX.name:
        return _composers(listed, state)
    out: list[Record] = []
    for tab in listed:
        if isinstance(tab, dict):
            out.extend(_legacy_tab(tab, state))
    return out


def _workspace_file(path: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """workspace.json names the folder (`folder`), or a multi-root workspace file (`workspace`),
    whose directory stands for it."""
    if PurePosixPath(path.replace("\\", "/")).name != _SIBLING:
        return []
    text = row.get("text")
    data = load_object(text.encode("utf-8", "replace")) if isinstance(text, str) else None
    if isinstance(data, ParseProblem):
        return [data]
    if data is None:
        return []
    folder = folder_path(data.get("folder"))
    if folder is None:
        workspace_file = folder_path(data.get("workspace"))
        folder = str(PurePosixPath(workspace_file).parent) if workspace_file else None
    state["cwd"] = folder
    mtime = safe_time(row.get("mtime_ms"))
    if mtime is not None:
        state["t"] = mtime
    return []


def _composers(ids: list[Any], state: dict[str, Any]) -> list[Record]:
    """Each chat the workspace lists gets the workspace's folder as its cwd."""
    cwd = nonempty_str(state.get("cwd"))
    if cwd is None:
        return []
    return [
        SessionFact(composer, NAME, cwd=cwd)
        for composer in dict.fromkeys(ids)
        if isinstance(composer, str) and composer
    ]


def _legacy_tab(tab: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """A chat from before composers: its tab id is the session, its bubbles the messages (they
    carry no times of their own: the tab's last send time stands for all of them)."""
    session = nonempty_str(tab.get("tabId"))
    if session is None:
        return [ParseProblem("bad-field", "a legacy chat tab without tabId")]
    cwd = nonempty_str(state.get("cwd"))
    last = state.get("t")
    time = safe_time(tab.get("lastSendTime")) or (last if isinstance(last, int) else 0)
    bubbles = tab.get("bubbles")
    prompt: str | None = None
    out: list[Record] = []
    for index, bubble in enumerate(bubbles if isinstance(bubbles, list) else []):
        if not isinstance(bubble, dict):
            continue
        role = {"user": "user", "ai": "assistant"}.get(str(bubble.get("type")))
        text = nonempty_str(bubble.get("text")) or nonempty_str(bubble.get("rawText"))
        if role is None or text is None or not text.strip():
            continue
        if role == "user" and prompt is None:
            prompt = text
        item: list[Event] = [(0, role, "message", text)]
        bubble_id = nonempty_str(bubble.get("id")) or f"B{index}"
        out.extend(
            build_events(
                f"{NAME}:{session}:{bubble_id}",
                item,
                source=NAME,
                time=time,
                session=session,
                cwd=cwd,
                state={},
            )
        )
    fact = SessionFact(
        session,
        NAME,
        title=nonempty_str(tab.get("chatTitle")),
        title_rank=TITLE_RANK,
        prompt=prompt,
        cwd=cwd,
        time=time or None,
    )
    return [fact, *out]


def _json_list(value: object) -> list[Any]:
    """A column holding a JSON array (the queries build them); anything else is empty."""
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError:
            return []
    return value if isinstance(value, list) else []


WORKSPACE_DB = FileKind(
    name="workspace",
    patterns=("workspaceStorage/*/state.vscdb",),
    parse=parse,
    start=start,
    tables=(COMPOSER_INDEX, LEGACY_CHATS),
    siblings=(_SIBLING,),
)
