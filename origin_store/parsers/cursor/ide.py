"""The Cursor IDE's chats: `globalStorage/state.vscdb`, table `cursorDiskKV`.

A chat (composer) is a row `composerData:<composerId>` and each of its messages a row
`bubbleId:<composerId>:<bubbleId>`; both are rewritten in place while Cursor streams, so events
take their ids from the bubble ids and a bubble read again replaces its earlier version. The
queries pick out of each JSON value only the fields read here: the composer's encryption keys,
the bubbles' rich-text copies and context stay in the database, and a row is read again only
when one of those fields changes. The same file's `ItemTable` holds Cursor's login tokens and is
never queried. Layout and field notes: research/formats.md §3.2.
"""

from __future__ import annotations

from typing import Any

from ...model import EventRecord, ParseProblem, Record, SessionFact
from ..base import (
    FileKind,
    Labelled,
    Table,
    build_events,
    labelled,
    nonempty_str,
    row_parser,
    safe_time,
)
from .common import (
    NAME,
    TITLE_RANK,
    arguments_text,
    exit_code,
    folder_path,
    json_text,
    output_text,
    row_json,
)

_COMPOSER_PREFIX = "composerData:"
_BUBBLE_PREFIX = "bubbleId:"

#: A tool call still running has no result yet: its call is kept, its output waits.
_RUNNING = frozenset({"loading", "running", "pending", "streaming"})
#: Statuses that say a call did not succeed, said in the result's label even without output.
_FAILED = frozenset({"error", "failed", "cancelled", "canceled", "rejected", "aborted"})


def _rows(prefix: str) -> str:
    """The rows of one key family; `j` is the value when it is valid JSON (else NULL, which
    every JSON function passes through), so a damaged row cannot stop the query."""
    end = prefix[:-1] + chr(ord(prefix[-1]) + 1)  # keys in [prefix, end): the key index's range
    return (
        "SELECT key, CAST(value AS TEXT) AS raw,"
        " CASE WHEN json_valid(CAST(value AS TEXT)) THEN CAST(value AS TEXT) END AS j"
        f" FROM cursorDiskKV WHERE key >= '{prefix}' AND key < '{end}'"
    )


def _object(source: str, fields: dict[str, str]) -> str:
    """An SQL JSON object of chosen paths of the JSON in `source`."""
    pairs = ", ".join(
        f"'{name}', json_extract({source}, '{path}')" for name, path in fields.items()
    )
    return f"json_object({pairs})"


_TOOL = {
    "name": "$.toolFormerData.name",
    "tool": "$.toolFormerData.tool",
    "status": "$.toolFormerData.status",
    "rawArgs": "$.toolFormerData.rawArgs",
    "params": "$.toolFormerData.params",
    "result": "$.toolFormerData.result",
    "error": "$.toolFormerData.error",
}


def _bubble(source: str) -> str:
    """A bubble's fields that become events."""
    fields = _object(
        source,
        {
            "bubbleId": "$.bubbleId",
            "type": "$.type",
            "text": "$.text",
            "createdAt": "$.createdAt",
        },
    )
    # Only the thinking's text: its signature is opaque.
    thinking = (
        f"CASE WHEN json_type({source}, '$.thinking') = 'object'"
        f" THEN json_extract({source}, '$.thinking.text') ELSE json_extract({source}, '$.thinking') END"
    )
    tool = (
        f"CASE WHEN json_type({source}, '$.toolFormerData') = 'object' "
        f"THEN {_object(source, _TOOL)} END"
    )
    return f"json_set({fields}, '$.thinking', {thinking}, '$.toolFormerData', json({tool}))"


# The first user message by the composer's own ordering (bubble rows come in key order).
_FIRST_PROMPT = (
    "(SELECT CASE WHEN json_valid(u.v) THEN json_extract(u.v, '$.text') END"
    " FROM json_each(c.j, '$.fullConversationHeadersOnly') AS h"
    " JOIN (SELECT key, CAST(value AS TEXT) AS v FROM cursorDiskKV) AS u"
    f" ON u.key = '{_BUBBLE_PREFIX}' || substr(c.key, {len(_COMPOSER_PREFIX) + 1}) || ':' ||"
    " json_extract(CASE WHEN h.type = 'object' THEN h.value END, '$.bubbleId')"
    " WHERE json_extract(CASE WHEN h.type = 'object' THEN h.value END, '$.type') = 1"
    " ORDER BY h.key LIMIT 1)"
)
# Chats of versions before bubble rows kept their messages inline.
_INLINE = (
    f"json((SELECT json_group_array({_bubble('m.value')})"
    " FROM json_each(c.j, '$.conversation') AS m WHERE m.type = 'object'))"
)
_COMPOSER_VALUE = _object(
    "c.j",
    {"name": "$.name", "createdAt": "$.createdAt", "workspace": "$.workspaceIdentifier.uri"},
)
COMPOSERS = Table(
    name="composers",
    sql=(
        "SELECT c.key AS key, CAST(CASE WHEN json_type(c.j) = 'object' THEN"
        f" json_set({_COMPOSER_VALUE}, '$.prompt', {_FIRST_PROMPT}, '$.conversation', {_INLINE})"
        f" ELSE c.raw END AS BLOB) AS value FROM ({_rows(_COMPOSER_PREFIX)}) AS c"
    ),
    key=("key",),
)
BUBBLES = Table(
    name="bubbles",
    sql=(
        "SELECT b.key AS key,"
        f" CAST(CASE WHEN json_type(b.j) = 'object' THEN {_bubble('b.j')} ELSE b.raw END AS BLOB)"
        " AS value, json_extract(c.j, '$.createdAt') AS started,"
        " json_extract(c.j, '$.workspaceIdentifier.uri') AS workspace"
        f" FROM ({_rows(_BUBBLE_PREFIX)}) AS b LEFT JOIN ({_rows(_COMPOSER_PREFIX)}) AS c"
        f" ON c.key = '{_COMPOSER_PREFIX}' ||"
        f" substr(b.key, {len(_BUBBLE_PREFIX) + 1}, instr(substr(b.key, {len(_BUBBLE_PREFIX) + 1}), ':') - 1)"
    ),
    key=("key",),
)


def start(relpath: str) -> dict[str, Any]:
    """Every row names its chat; nothing is carried from one row to the next."""
    return {}


@row_parser
def parse(table: str, key: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """Never raises: a row shape the code did not foresee must not stop ingestion."""
    if table == COMPOSERS.name and key.startswith(_COMPOSER_PREFIX):
        return _composer(key[len(_COMPOSER_PREFIX) :], row)
    if table == BUBBLES.name and key.startswith(_BUBBLE_PREFIX):
        composer, _, bubble = key[len(_BUBBLE_PREFIX) :].partition(":")
        if not composer or not bubble:
            return [ParseProblem("bad-field", "a bubble key without composer and bubble ids")]
        return _bubble_row(composer, bubble, row)
    return []


def _composer(composer: str, row: dict[str, Any]) -> list[Record]:
    """A chat's facts: its name, first prompt and workspace (it has no events of its own,
    except the messages of versions that kept them inline)."""
    data = row_json(row.get("value"))
    if not isinstance(data, dict):
        return [data] if isinstance(data, ParseProblem) else []
    created = safe_time(data.get("createdAt"))
    cwd = workspace_path(data.get("workspace"))
    inline = data.get("conversation")
    bubbles = [b for b in inline if isinstance(b, dict)] if isinstance(inline, list) else []
    prompt = nonempty_str(data.get("prompt")) or next(
        (b["text"] for b in bubbles if b.get("type") == 1 and nonempty_str(b.get("text"))), None
    )
    out: list[Record] = [
        SessionFact(
            composer,
            NAME,
            title=nonempty_str(data.get("name")),
            title_rank=TITLE_RANK,
            prompt=prompt if prompt and prompt.strip() else None,
            cwd=cwd,
            time=created,
        )
    ]
    for index, bubble in enumerate(bubbles):
        bubble_id = nonempty_str(bubble.get("bubbleId")) or f"C{index}"
        out.extend(bubble_events(composer, bubble_id, bubble, created or 0, cwd))
    return out


def _bubble_row(composer: str, bubble: str, row: dict[str, Any]) -> list[Record]:
    data = row_json(row.get("value"))
    if not isinstance(data, dict):
        return [data] if isinstance(data, ParseProblem) else []  # JSON null rows: nothing
    started = safe_time(row.get("started")) or 0
    return list(
        bubble_events(composer, bubble, data, started, workspace_path(row.get("workspace")))
    )


def workspace_path(uri: object) -> str | None:
    """The folder of a composer's `workspaceIdentifier.uri` (`fsPath`, else its URI)."""
    decoded = json_text(uri)
    if not isinstance(decoded, dict):
        return None
    return nonempty_str(decoded.get("fsPath")) or folder_path(
        decoded.get("external") or decoded.get("path")
    )


def bubble_events(
    composer: str, bubble: str, data: dict[str, Any], started: int, cwd: str | None
) -> list[EventRecord]:
    """One bubble's events: its text, its thinking (`:thinking`), its tool call (`:call`) and
    result (`:result`). Each keeps its id whatever else the bubble holds, since a bubble is
    read again as it grows."""
    btype = data.get("type")
    role = "user" if btype == 1 else "assistant" if btype == 2 else None
    if role is None:
        return []
    items: list[tuple[str, str, str, str | Labelled]] = []
    thinking = data.get("thinking")
    thought = nonempty_str(thinking.get("text") if isinstance(thinking, dict) else thinking)
    if thought is not None and thought.strip():
        items.append((":thinking", "assistant", "meta", thought))
    text = nonempty_str(data.get("text"))
    if text is not None and text.strip():
        items.append(("", role, "message", text))
    tool = data.get("toolFormerData")
    if isinstance(tool, dict):
        items.extend(_tool_items(tool))
    time = safe_time(data.get("createdAt")) or started
    base = f"{NAME}:{composer}:{bubble}"
    out: list[EventRecord] = []
    for suffix, item_role, kind, words in items:
        out.extend(
            build_events(
                base + suffix,
                [(0, item_role, kind, words)],
                source=NAME,
                time=time,
                session=composer,
                cwd=cwd,
                state={},
            )
        )
    return out


def _tool_items(tool: dict[str, Any]) -> list[tuple[str, str, str, str | Labelled]]:
    """A tool call, and its result once the call is over (a failure says so in the label)."""
    number = tool.get("tool")
    name = nonempty_str(tool.get("name")) or (
        f"tool {number}" if isinstance(number, int) and not isinstance(number, bool) else "tool"
    )
    args = arguments_text(tool.get("rawArgs")) or arguments_text(tool.get("params"))
    items: list[tuple[str, str, str, str | Labelled]] = [
        (":call", "assistant", "tool_use", f"{name} {args}" if args else name)
    ]
    status = nonempty_str(tool.get("status"))
    if status in _RUNNING:
        return items
    result = tool.get("result")
    text = output_text(result) or output_text(tool.get("error"))
    code = exit_code(result)
    marks = f"[{status}] " if status in _FAILED else ""
    if code:
        marks += f"[error: exit code {code}] "
    if marks:
        items.append((":result", "system", "tool_result", labelled(marks, text)))
    elif text.strip():
        items.append((":result", "system", "tool_result", text))
    return items


GLOBAL_DB = FileKind(
    name="ide",
    patterns=("globalStorage/state.vscdb",),
    parse=parse,
    start=start,
    tables=(COMPOSERS, BUBBLES),
)
