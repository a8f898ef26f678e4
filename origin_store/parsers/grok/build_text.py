"""What one Grok Build update says, apart from chunks, tool calls and rewinds (grok_build.py):
the texts of content blocks and tool results, and the renderers of bookkeeping updates (plans,
hooks, sub-agents, titles, summaries, retries, compactions), formats.md §0: bookkeeping is meta,
what the harness says to or about the model is system."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ...model import Record, SessionFact
from ..base import Labelled, Words, compact_json, labelled, nonempty_str

NAME = "grok"

#: A title the user gave (`title_is_manual`) beats the generated one, which beats the summary.
MANUAL_TITLE_RANK = 30
GENERATED_TITLE_RANK = 20
SUMMARY_TITLE_RANK = 10
#: The `_meta` key of a rename's fan-out (true: the user's title, false: a generated one).
MANUAL_META = "x.ai/titleIsManual"

#: What a hook run reports, in the order it is shown.
_RUN_FIELDS = ("command", "name", "status", "exit_code", "stdout", "stderr", "output", "error")

Item = tuple[str, str, str | Labelled]  # (role, kind, text)


class Line(NamedTuple):
    """One update line as its renderers need it: whose, which id, when, its `_meta`, and where
    the session facts it tells go."""

    sid: str
    base: str  # the line's event id
    time: int
    number: int
    meta: Mapping[str, Any]
    out: list[Record]

    def title(self, title: str, update: Mapping[str, Any], unmarked: int) -> None:
        """A title fact; a rename's fan-out says whether the user chose it."""
        own = update.get("_meta")
        manual = (own if isinstance(own, dict) else {}).get(MANUAL_META, self.meta.get(MANUAL_META))
        rank = unmarked if manual is None else MANUAL_TITLE_RANK if manual else GENERATED_TITLE_RANK
        self.out.append(SessionFact(self.sid, NAME, title=title, title_rank=rank, time=self.time))


# --- what a line says -----------------------------------------------------------------------


def content_text(block: object) -> str:
    """An ACP content block's words; a stand-in for media (`[image image/png 68 bytes]`)."""
    if not isinstance(block, dict):
        return block if isinstance(block, str) else ""
    btype, data, resource = block.get("type"), block.get("data"), block.get("resource")
    if btype == "text":
        return block["text"] if isinstance(block.get("text"), str) else ""
    if btype in ("image", "audio") and isinstance(data, str) and data:
        mime = nonempty_str(block.get("mimeType")) or "unknown"
        return f"[{btype} {mime} {len(data) * 3 // 4} bytes]"
    if btype == "resource" and isinstance(resource, dict) and isinstance(resource.get("text"), str):
        return str(resource["text"])
    name = nonempty_str(block.get("name")) or nonempty_str(block.get("uri"))
    if name is None and isinstance(resource, dict):
        name = nonempty_str(resource.get("uri"))
    shown = f" {name}" if name and not name.startswith("data:") else ""  # never a payload
    return f"[{btype}{shown}]" if isinstance(btype, str) else ""


def tool_call_text(update: Mapping[str, Any]) -> str:
    """The tool (the call's title, else its kind) and its input as one searchable line."""
    name = nonempty_str(update.get("title")) or nonempty_str(update.get("kind")) or "tool"
    raw = update.get("rawInput")
    return name if raw is None else f"{name} {compact_json(raw)}"


def tool_result_text(update: Mapping[str, Any]) -> str | Labelled:
    """What a finished call returned: text, diffs (path, old and new text) and terminals; a
    failure says so (with its exit code when given) even without output."""
    words = Words()
    raw, content = update.get("rawOutput"), update.get("content")
    if update.get("status") == "failed":
        code = raw.get("exit_code") if isinstance(raw, dict) else None
        known = isinstance(code, int) and not isinstance(code, bool)
        words.origin(f"[error: exit code {code}] " if known else "[error] ")
    shown = 0
    for item in content if isinstance(content, list) else []:
        if not isinstance(item, dict):
            continue
        if shown:
            words.sep("\n")
        shown += 1
        if item.get("type") == "content":
            words.log(content_text(item.get("content")))
        elif item.get("type") == "diff":
            words.origin("diff ").log(nonempty_str(item.get("path")) or "")
            for mark, field in (("- ", "oldText"), ("+ ", "newText")):
                if isinstance(item.get(field), str) and item[field]:
                    words.sep("\n").origin(mark).log(item[field])
        elif item.get("type") == "terminal":
            words.origin(f"[terminal {item.get('terminalId') or ''}]")
    if not content and raw is not None:
        words.log(raw if isinstance(raw, str) else compact_json(raw))
    return words.build()


def _text(update: Mapping[str, Any], *fields: str) -> str | None:
    return next((v for f in fields if (v := nonempty_str(update.get(f))) is not None), None)


def _plan(update: Mapping[str, Any], _: Line) -> list[Item]:
    entries = update.get("entries")
    words = Words().origin("plan:")
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and nonempty_str(entry.get("content")):
            status = nonempty_str(entry.get("status"))
            words.sep("\n").origin(f"[{status}] " if status else "").log(entry["content"])
    return [("system", "meta", words.build())]


def _hook(update: Mapping[str, Any], _: Line) -> list[Item]:
    """A hook that ran, with what it printed; an event with no hook configured says nothing."""
    runs = update.get("runs")
    if not isinstance(runs, list) or not runs:
        return []
    words = Words().origin("hook ").log(_text(update, "event_name") or "?")
    if tool := _text(update, "tool_name"):
        words.sep(" ").origin("for ").log(tool)
    words.sep(":")
    for run in runs:
        said = (
            [run.get(key) for key in _RUN_FIELDS] if isinstance(run, dict) else [compact_json(run)]
        )
        shown = [str(v) for v in said if isinstance(v, str | int) and not isinstance(v, bool)]
        words.sep("\n").log(" ".join(value for value in shown if value))
    return [("system", "system", words.build())]


def _spawned(update: Mapping[str, Any], line: Line) -> list[Item]:
    """A sub-agent started: its session's parent is this one (its summary.json says so too)."""
    child = _text(update, "child_session_id")
    if child:
        parent = _text(update, "parent_session_id") or line.sid
        line.out.append(SessionFact(child, NAME, parent=parent, time=line.time or None))
    words = Words().origin("sub-agent ").log(_text(update, "subagent_type") or "")
    words.sep(": ").log(_text(update, "description") or "")
    opened = False
    for label, field in (("session ", "child_session_id"), ("model ", "model")):
        if value := _text(update, field):
            words.sep(", " if opened else " (").origin(label).log(value)
            opened = True
    return [("system", "meta", words.sep(")" if opened else "").build())]


def _finished(update: Mapping[str, Any], _: Line) -> list[Item]:
    words = Words().origin("sub-agent finished: ").log(_text(update, "status") or "?")
    for field, unit in (("tool_calls", "tool calls"), ("turns", "turns"), ("duration_ms", "ms")):
        value = update.get(field)
        if isinstance(value, int) and not isinstance(value, bool):
            words.sep(", ").log(str(value)).sep(" ").origin(unit)
    for label, field in (("error: ", "error"), ("", "output")):
        if value := _text(update, field):
            words.sep("\n").origin(label).log(value)
    return [("system", "meta", words.build())]


def _titled(field: str, label: str, unmarked: int) -> Renderer:
    """A renderer of an update that names the session (a summary, a rename)."""

    def render(update: Mapping[str, Any], line: Line) -> list[Item]:
        title = _text(update, field)
        if title is None:
            return []
        line.title(title, update, unmarked)
        return [("system", "meta", labelled(label, title))]

    return render


def _said(label: str, *fields: str, kind: str = "meta") -> Renderer:
    """A renderer of an update that is one labelled text; a marker (`system`) says what it
    marks even without details."""

    def render(update: Mapping[str, Any], _: Line) -> list[Item]:
        text = _text(update, *fields)
        if text is not None:
            return [("system", kind, labelled(label, text))]
        return [("system", kind, labelled(label.removesuffix(": ")))] if kind == "system" else []

    return render


Renderer = Callable[[Mapping[str, Any], Line], list[Item]]

#: Renderers of the updates that are neither chunks, tool calls nor rewinds (formats.md §0:
#: bookkeeping is meta; what the harness says to or about the model is system).
RENDERERS: dict[str, Renderer] = {
    "plan": _plan,
    "hook_execution": _hook,
    "subagent_spawned": _spawned,
    "subagent_finished": _finished,
    "session_summary_generated": _titled(
        "session_summary", "session summary: ", SUMMARY_TITLE_RANK
    ),
    "session_info_update": _titled("title", "title: ", GENERATED_TITLE_RANK),
    "current_mode_update": _said("mode: ", "currentModeId", "modeId"),
    "last_turn_summary": _said("turn summary: ", "summary"),
    "session_recap": _said("recap: ", "summary"),
    "retry_state": _said("retry: ", "message", "error_type", kind="system"),
    "compaction_checkpoint": _said("context compacted: ", "summary", kind="system"),
    "auto_compact_completed": _said("auto compact completed: ", "summary", kind="system"),
    "auto_compact_failed": _said("auto compact failed: ", "error", "message", kind="system"),
}
