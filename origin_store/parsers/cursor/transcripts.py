"""Cursor's agent transcripts: `projects/<slug>/agent-transcripts/<id>/<id>.jsonl`, their
sub-agents (`<id>/subagents/<subId>.jsonl`), and the legacy plain-text `<id>.txt`.

A transcript's id is the chat's (the IDE's composer id, the CLI's agent id), so its events join
that chat's session; the IDE writes only `turn_ended` markers here, whose events are new. Lines
carry no ids and no times: ids are positional (`L<line>`) and times unknown (0). The slug is the
workspace path with its separators turned into `-`, which cannot be turned back; the cwd comes
from a user message's `Workspace Path` when there is one, and from the chat's other stores when
it has them. Layout and field notes: research/formats.md §3.4.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from ...model import ParseProblem, Record, SessionFact
from ..base import FileKind, Labelled, Words, build_events, load_object, never_raises, nonempty_str
from .common import NAME, Event, content_events

#: A legacy transcript's block markers: a speaker, or what the assistant's next lines are.
_SPEAKERS = {"user:": "user", "A:": "assistant", "assistant:": "assistant"}
_MARKERS = {"[Thinking]": "thinking", "[Tool call]": "call", "[Tool result]": "result"}
#: (role, kind) of an assistant line by the part it belongs to.
_PARTS = {
    "text": ("assistant", "message"),
    "thinking": ("assistant", "meta"),
    "call": ("assistant", "tool_use"),
    "result": ("system", "tool_result"),
}
#: A user query is gathered until its closing tag; past this many characters it is let out in
#: pieces, so that the state kept between lines stays small.
_QUERY_CHARS = 8000


def _stem(relpath: str, suffix: str) -> tuple[str, tuple[str, ...]]:
    parts = PurePosixPath(relpath).parts
    name = parts[-1] if parts else ""
    return (name[: -len(suffix)] if name.endswith(suffix) else name) or "unknown", parts


def start(relpath: str) -> dict[str, Any]:
    """The file's name is the transcript's id; a sub-agent's parent is the folder above."""
    sid, parts = _stem(relpath, ".jsonl")
    state: dict[str, Any] = {"sid": sid}
    if len(parts) >= 3 and parts[-2] == "subagents":
        state["parent"] = parts[-3]
    return state


@never_raises
def parse(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    """Never raises: a transcript line the code did not foresee must not stop ingestion."""
    return _parse(line, lineno, state)


def _parse(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    obj = load_object(line)
    if obj is None:
        return []
    if isinstance(obj, ParseProblem):
        return [obj]
    sid = nonempty_str(state.get("sid")) or "unknown"
    out: list[Record] = []
    parent = nonempty_str(state.get("parent"))
    if parent is not None and not state.get("parent_sent"):
        out.append(SessionFact(sid, NAME, parent=parent))
        state["parent_sent"] = True
    if obj.get("type") == "turn_ended":
        events: list[Event] = [(0, "system", "meta", _turn_ended(obj))]
    else:
        role = obj.get("role")
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else obj.get("content")
        events, workspace = content_events(content, role if isinstance(role, str) else "")
        if workspace is not None and not state.get("cwd"):
            state["cwd"] = workspace
            out.append(SessionFact(sid, NAME, cwd=workspace))
        _maybe_prompt(events, sid, state, out)
    out.extend(_events(f"{NAME}:{sid}:L{lineno}", events, sid, state))
    return out


def _turn_ended(obj: dict[str, Any]) -> str | Labelled:
    """`turn ended: <status>`, and the error when the turn failed or was stopped."""
    words = Words().origin("turn ended: ")
    status = nonempty_str(obj.get("status"))
    if status is None:
        words.origin("unknown")
    else:
        words.log(status)
    error = nonempty_str(obj.get("error"))
    if error is not None:
        words.sep(": ").log(error)
    return words.build()


def _maybe_prompt(events: list[Event], sid: str, state: dict[str, Any], out: list[Record]) -> None:
    if state.get("prompt_sent"):
        return
    prompt = next((text for _, role, _, text in events if role == "user"), None)
    if isinstance(prompt, str):
        out.append(SessionFact(sid, NAME, prompt=prompt))
        state["prompt_sent"] = True


def _events(base: str, events: list[Event], sid: str, state: dict[str, Any]) -> list[Record]:
    return list(
        build_events(
            base,
            events,
            source=NAME,
            time=0,
            session=sid,
            cwd=nonempty_str(state.get("cwd")),
            state={},
        )
    )


# --- the legacy plain-text transcript ------------------------------------------------------------


def start_text(relpath: str) -> dict[str, Any]:
    """A legacy transcript starts outside any block."""
    sid, _ = _stem(relpath, ".txt")
    return {"sid": sid, "block": "", "part": "text"}


@never_raises
def parse_text(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    """Blocks `user:` and `A:`; the user's words inside `<user_query>`, the harness's note in
    `<user_info>` left out; in the assistant's, `[Thinking]`, `[Tool call]` (its arguments on
    the indented lines below) and `[Tool result]` lines. A line is an event of its own, since
    nothing marks where an answer ends but the next block, which may never come (an event made
    at a later line would leave the last one out); a query has its closing tag, so it is one
    event, the session's prompt whole."""
    return _parse_text(line.decode("utf-8", "replace").rstrip("\r"), lineno, state)


def _parse_text(text: str, lineno: int, state: dict[str, Any]) -> list[Record]:
    stripped = text.strip()
    sid = nonempty_str(state.get("sid")) or "unknown"
    out: list[Record] = []
    if stripped in _SPEAKERS:
        _flush_query(sid, state, out)
        state.update(block=_SPEAKERS[stripped], part="text", info=False)
        return out
    if state.get("block") == "user":
        event = _user_line(text, stripped, lineno, sid, state, out)
    elif state.get("block") == "assistant":
        event = _assistant_line(text, stripped, state)
    else:
        event = ("system", "meta", stripped) if stripped else None
    if event is not None:
        role, kind, words = event
        if role == "user":
            _maybe_prompt([(0, role, kind, words)], sid, state, out)
        out.extend(_events(f"{NAME}:{sid}:L{lineno}", [(0, role, kind, words)], sid, state))
    return out


def _user_line(
    text: str, stripped: str, lineno: int, sid: str, state: dict[str, Any], out: list[Record]
) -> tuple[str, str, str] | None:
    """A user block's line: the note is skipped, a query gathered, other words are the user's."""
    if state.get("info") or stripped.startswith("<user_info>"):
        state["info"] = "</user_info>" not in stripped
        return None
    if stripped.startswith("<user_query>"):
        state.update(query="", query_line=lineno)
        text = stripped[len("<user_query>") :]
        if not text:
            return None
    if not isinstance(state.get("query"), str):
        return ("user", "message", stripped) if stripped else None
    closed = "</user_query>" in text
    piece = text.split("</user_query>", 1)[0]
    gathered = state["query"] + ("\n" if state["query"] else "") + piece
    state["query"] = gathered
    if closed or len(gathered) > _QUERY_CHARS:
        _flush_query(sid, state, out)
        if not closed:
            state.update(query="", query_line=lineno + 1)
    return None


def _flush_query(sid: str, state: dict[str, Any], out: list[Record]) -> None:
    query = state.pop("query", None)
    number = state.pop("query_line", 0)
    if not isinstance(query, str) or not query.strip():
        return
    event: list[Event] = [(0, "user", "message", query.strip())]
    _maybe_prompt(event, sid, state, out)
    out.extend(_events(f"{NAME}:{sid}:L{number}", event, sid, state))


def _assistant_line(text: str, stripped: str, state: dict[str, Any]) -> tuple[str, str, str] | None:
    """An assistant block's line, by the part it belongs to: a marker starts a part; a tool
    call's arguments are indented, and a blank line ends thinking and tool output."""
    for marker, part in _MARKERS.items():
        if stripped.startswith(marker):
            state["part"] = part
            rest = stripped[len(marker) :].strip()
            return (*_PARTS[part], rest) if rest else None
    current = str(state.get("part"))
    if not stripped:
        if current in ("thinking", "result"):
            state["part"] = "text"
        return None
    if current == "call" and not text[:1].isspace():
        current = state["part"] = "text"
    return (*_PARTS.get(current, _PARTS["text"]), stripped)


TRANSCRIPTS = FileKind(
    name="transcript",
    patterns=(
        "projects/*/agent-transcripts/*/*.jsonl",
        "projects/*/agent-transcripts/*/subagents/*.jsonl",
    ),
    parse=parse,
    start=start,
)

TEXT_TRANSCRIPTS = FileKind(
    name="transcript_text",
    patterns=("projects/*/agent-transcripts/*.txt",),
    parse=parse_text,
    start=start_text,
)
