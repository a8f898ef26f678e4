"""superagent-ai/grok-cli (npm `grok-dev`), a different product from Grok Build that keeps its
sessions in `~/.grok/grok.db` (SQLite, schema version 3; research/formats.md §5.5). Its session
ids (12 hex digits) never look like Grok Build's UUIDs, so both are source "grok".

The database is read through a row log (ingest/rowlog.py): each query below yields rows that
stand on their own (a message carries its session's cwd and whether it is the session's first
prompt), so the parser keeps no state. `messages` rows are only ever inserted; a `sessions` row
changes when its title or recap does, and its facts and recap event are then read again under the
same ids. The tool_calls and tool_results tables repeat what the messages say; usage_events is
telemetry. `user-settings.json` beside the database holds the API key and is never read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ...model import ParseProblem, Record, SessionFact
from ..base import (
    FileKind,
    Labelled,
    Table,
    Words,
    build_events,
    compact_json,
    image_placeholder,
    labelled,
    nonempty_str,
    row_parser,
    safe_time,
)
from .build_text import GENERATED_TITLE_RANK, NAME

#: The session's cwd: where it started, else its workspace's path.
_CWD = "COALESCE(NULLIF(s.cwd_at_start, ''), w.canonical_path) AS cwd"
_SESSION_JOIN = (
    "LEFT JOIN sessions s ON s.id = {0}.session_id LEFT JOIN workspaces w ON w.id = s.workspace_id"
)

SESSIONS = Table(
    "sessions",
    "SELECT s.id, s.title, s.recap_text, s.recap_updated_at, s.created_at, "
    + _CWD
    + " FROM sessions s LEFT JOIN workspaces w ON w.id = s.workspace_id ORDER BY s.id",
    ("id",),
)
MESSAGES = Table(
    "messages",
    "SELECT m.session_id, m.seq, m.role, m.message_json, m.created_at, "
    + _CWD
    + ", m.seq = p.first_seq AS first_prompt FROM messages m "
    + _SESSION_JOIN.format("m")
    + " LEFT JOIN (SELECT session_id, MIN(seq) AS first_seq FROM messages WHERE role = 'user'"
    " GROUP BY session_id) p ON p.session_id = m.session_id ORDER BY m.session_id, m.seq",
    ("session_id", "seq"),
)
COMPACTIONS = Table(
    "compactions",
    "SELECT c.id, c.session_id, c.first_kept_seq, c.tokens_before, c.created_at, "
    + _CWD
    + " FROM compactions c "
    + _SESSION_JOIN.format("c")
    + " ORDER BY c.id",
    ("id",),
)

_Item = tuple[int, str, str, str | Labelled]  # (part index, role, kind, text)


def start(relpath: str) -> dict[str, Any]:
    """Every row stands on its own: nothing to carry."""
    return {}


@row_parser
def parse(table: str, key: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """Never raises: a row shape from a newer grok-cli must not stop ingestion."""
    if table == "sessions":
        return _session(row)
    if table not in ("messages", "compactions"):
        return []
    sid = nonempty_str(row.get("session_id"))
    if sid is None:
        return [ParseProblem("bad-field", f"a {table} row without session_id")]
    out: list[Record] = []
    if table == "messages":
        seq, items = row.get("seq"), _message(row, sid, out)
        base = f"{NAME}:{sid}:{seq}"
    else:
        seq, items = row.get("id"), _compaction(row)
        base = f"{NAME}:{sid}:compaction:{seq}"
    if not isinstance(seq, int):
        return [ParseProblem("bad-field", f"a {table} row without a number")]
    time, cwd = safe_time(row.get("created_at")) or 0, nonempty_str(row.get("cwd"))
    out.extend(build_events(base, items, source=NAME, time=time, session=sid, cwd=cwd, state={}))
    return out


def _session(row: Mapping[str, Any]) -> list[Record]:
    """A session's title, which grok-cli's model wrote once, its cwd, and its recap: a summary
    rewritten as the session goes on, one event replaced each time."""
    sid = nonempty_str(row.get("id"))
    if sid is None:
        return [ParseProblem("bad-field", "a sessions row without id")]
    title, cwd = nonempty_str(row.get("title")), nonempty_str(row.get("cwd"))
    created = safe_time(row.get("created_at"))
    out: list[Record] = [
        SessionFact(
            sid,
            NAME,
            title=title,
            title_rank=GENERATED_TITLE_RANK if title else 0,
            cwd=cwd,
            time=created,
        )
    ]
    recap = nonempty_str(row.get("recap_text"))
    if recap is not None:
        time = safe_time(row.get("recap_updated_at")) or created or 0
        out.extend(
            build_events(
                f"{NAME}:{sid}:recap",
                [(0, "system", "meta", labelled("recap: ", recap))],
                source=NAME,
                time=time,
                session=sid,
                cwd=cwd,
                state={},
            )
        )
    return out


def _message(row: Mapping[str, Any], sid: str, out: list[Record]) -> list[_Item]:
    """A stored `ModelMessage` (Vercel AI SDK): its parts, each an event; the session's first
    user message is also its prompt."""
    raw = row.get("message_json")
    try:
        message = orjson.loads(raw) if isinstance(raw, str) else None
    except orjson.JSONDecodeError as exc:
        out.append(ParseProblem("invalid-json", str(exc)[:200]))
        return []
    if not isinstance(message, dict):
        out.append(ParseProblem("bad-field", "message_json is not an object"))
        return []
    role = nonempty_str(row.get("role")) or nonempty_str(message.get("role")) or ""
    content = message.get("content")
    if role == "user":
        text = _user_text(content)
        if not text.strip():
            return []
        if row.get("first_prompt") == 1:
            time = safe_time(row.get("created_at"))
            out.append(SessionFact(sid, NAME, prompt=text, time=time))
        return [(0, "user", "message", text)]
    if role == "system":  # the `[Context checkpoint summary]` of a compaction, and prompts
        text = content if isinstance(content, str) else _user_text(content)
        return [(0, "system", "system", text)] if text.strip() else []
    if isinstance(content, str):
        return [(0, "assistant", "message", content)] if content.strip() else []
    parts = content if isinstance(content, list) else []
    return [item for index, part in enumerate(parts) for item in _part(index, part)]


def _user_text(content: object) -> str:
    """A prompt's text, with a stand-in for each image or file."""
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for part in content if isinstance(content, list) else []:
        if not isinstance(part, dict):
            continue
        ptype = part.get("type")
        if ptype == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif ptype in ("image", "file"):
            texts.append(_media(part))
    return "\n".join(texts)


def _media(part: Mapping[str, Any]) -> str:
    data = part.get("image") if part.get("type") == "image" else part.get("data")
    mime = nonempty_str(part.get("mediaType")) or nonempty_str(part.get("mimeType"))
    name = nonempty_str(part.get("filename"))
    if isinstance(data, str) and (data.startswith("http://") or data.startswith("https://")):
        return f"[{part.get('type')} {data[:500]}]"
    size = len(data) if isinstance(data, str) else 0
    if part.get("type") == "image":
        return image_placeholder(mime, size)
    return f"[file {name or mime or 'unknown'} {size * 3 // 4} bytes]"


def _part(index: int, part: object) -> list[_Item]:
    """One part of an assistant or tool message."""
    if not isinstance(part, dict):
        return []
    ptype = part.get("type")
    if ptype in ("text", "reasoning"):
        text = part.get("text")
        if not isinstance(text, str) or not text.strip():
            return []
        return [(index, "assistant", "message" if ptype == "text" else "meta", text)]
    if ptype == "tool-call":
        name = nonempty_str(part.get("toolName")) or "tool"
        return [(index, "assistant", "tool_use", f"{name} {compact_json(part.get('input'))}")]
    if ptype == "tool-result":
        return [(index, "system", "tool_result", _tool_output(part.get("output")))]
    return []


def _tool_output(output: object) -> str | Labelled:
    """A tool's output, `{type, value}`; a failure (an error type, `success: false`) says so."""
    if not isinstance(output, dict):
        return compact_json(output) if output is not None else ""
    otype, value = nonempty_str(output.get("type")) or "", output.get("value")
    failed = otype.startswith("error")
    if isinstance(value, dict):
        failed = failed or value.get("success") is False
        found = value.get("output") if value.get("output") not in (None, "") else value.get("error")
        value = found if found is not None else value
    text = value if isinstance(value, str) else compact_json(value) if value is not None else ""
    return Words().origin("[error] ").log(text).build() if failed else text


def _compaction(row: Mapping[str, Any]) -> list[_Item]:
    """Where the context was compacted; the summary itself is the system message beside it."""
    words = Words().origin("context compacted")
    tokens, kept = row.get("tokens_before"), row.get("first_kept_seq")
    if isinstance(tokens, int) and not isinstance(tokens, bool):
        words.origin(": ").log(str(tokens)).sep(" ").origin("tokens before")
    if isinstance(kept, int) and not isinstance(kept, bool):
        words.sep(", ").origin("kept from message ").log(str(kept))
    return [(0, "system", "system", words.build())]


DATABASE = FileKind(
    name="grok_db",
    patterns=("grok.db",),
    parse=parse,
    start=start,
    tables=(SESSIONS, MESSAGES, COMPACTIONS),
)
