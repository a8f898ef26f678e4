"""Claude Code transcripts: `projects/<slug>/<sessionId>.jsonl` and sub-agent sidechains.

Every line is a self-contained JSON record, so a line maps to events on its own. The per-file
state only carries what id-less lines need from earlier lines (time, cwd, branch, version) and
which one-off session facts were already emitted. Layout and field notes: research/formats.md §1.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from ...model import EventRecord, ParseProblem, Record, SessionFact, Usage
from ..base import (
    FileKind,
    Labelled,
    Source,
    Words,
    build_events,
    compact_json,
    image_placeholder,
    labelled,
    line_digest,
    line_time,
    load_object,
    never_raises,
    nonempty_str,
    scrub_data_urls,
)
from .attachments import attachment_events
from .outputs import OUTPUTS

NAME = "claude-code"

#: Harness-written user text that is a slash command, its output, or a `!` shell line.
_WRAPPER_PREFIXES: tuple[str, ...] = ("<command-", "<local-command", "<bash-")

#: A custom title is chosen by the user; it beats the model's title, which beats nothing.
CUSTOM_TITLE_RANK = 30
AI_TITLE_RANK = 20

_Event = tuple[int, str, str, str | Labelled]  # (block index, role, kind, text)
#: `message.usage`'s counts: input (not cached), output, read from the cache, written to it.
_USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
)


def roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    """The agent honours CLAUDE_CONFIG_DIR as a replacement for ~/.claude."""
    configured = environ.get("CLAUDE_CONFIG_DIR")
    return [Path(configured)] if configured else [home / ".claude"]


def start(relpath: str) -> dict[str, Any]:
    """Sub-agent files are told apart by path, since their lines carry the parent's sessionId."""
    parts = PurePosixPath(relpath).parts
    name = parts[-1] if parts else ""
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    state: dict[str, Any] = {"t": 0}
    if stem.startswith("agent-") and len(stem) > len("agent-"):
        state["agent"] = stem[len("agent-") :]
        if "subagents" in parts:
            index = parts.index("subagents")
            if index >= 1:
                state["sid"] = parts[index - 1]
    elif stem:
        state["sid"] = stem
    return state


@never_raises
def parse(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    """Never raises: a transcript line the code did not foresee must not stop ingestion."""
    return _parse(line, state)


def _parse(line: bytes, state: dict[str, Any]) -> list[Record]:
    obj = load_object(line)
    if obj is None:
        return []
    if isinstance(obj, ParseProblem):
        return [obj]
    found_type = obj.get("type")
    rtype = found_type if isinstance(found_type, str) else ""
    time = line_time(obj, state)
    # A summary names its session only through leafUuid, which usually points at another
    # file (older versions wrote them at the top of the *next* session): not attributable.
    if rtype in ("summary", "file-history-snapshot", "progress", "last-prompt"):
        return []
    for key, field in (("cwd", "cwd"), ("branch", "gitBranch"), ("version", "version")):
        if field in obj:
            state[key] = nonempty_str(obj.get(field))
    session, parent, cwd = _session_of(obj, state)
    fact_time = time or None
    out: list[Record] = []
    need_cwd = cwd is not None and state.get("cwd_for") != session
    need_parent = parent is not None and state.get("parent_for") != session
    if need_cwd or need_parent:
        out.append(
            SessionFact(session, NAME, cwd=cwd if need_cwd else None, parent=parent, time=fact_time)
        )
        if need_cwd:
            state["cwd_for"] = session
        if need_parent:
            state["parent_for"] = session
    if rtype == "user":
        events = _user_events(obj, state, session, parent, fact_time, out)
    else:
        events = _other_events(rtype, obj, session, parent, fact_time, out)
    if not events:
        return out
    uuid = nonempty_str(obj.get("uuid"))
    base = f"{NAME}:{uuid}" if uuid else f"{NAME}:{session}:{rtype}:{line_digest(line)}"
    built = build_events(
        base, events, source=NAME, time=time, session=session, cwd=cwd, state=state
    )
    if rtype == "assistant":
        _carry_usage(obj, built, state)
    out.extend(built)
    return out


def _carry_usage(obj: dict[str, Any], built: list[EventRecord], state: dict[str, Any]) -> None:
    """Put a message's tokens (`message.usage`) on its first event. Claude Code writes a line
    per content block, each repeating the message's id and usage: the first line of an id
    carries them, the others none (`state["umid"]`: the id counted last; a message's lines are
    written together)."""
    message = obj.get("message")
    if not built or not isinstance(message, dict):
        return
    mid, usage = message.get("id"), message.get("usage")
    if not isinstance(usage, dict) or (isinstance(mid, str) and mid == state.get("umid")):
        return
    counts = [usage.get(name) for name in _USAGE_FIELDS]
    tin, out, read, made = (n if type(n) is int and n >= 0 else 0 for n in counts)
    if tin or out or read or made:
        built[0].usage = Usage(tin + read + made, read, out)
        if isinstance(mid, str):
            state["umid"] = mid


def _session_of(obj: dict[str, Any], state: dict[str, Any]) -> tuple[str, str | None, str | None]:
    """The line's session (a subagent's is `<parent>/agent-<id>`), its parent and its cwd."""
    line_sid = nonempty_str(obj.get("sessionId"))
    if line_sid is not None:
        state["sid"] = line_sid
    sid = nonempty_str(state.get("sid")) or "unknown"
    agent = nonempty_str(state.get("agent"))
    session = f"{sid}/agent-{agent}" if agent else sid
    return session, (sid if agent else None), nonempty_str(state.get("cwd"))


_META_FIELDS = {"mode": "mode", "permission-mode": "permissionMode", "agent-name": "agentName"}


def _other_events(
    rtype: str,
    obj: dict[str, Any],
    session: str,
    parent: str | None,
    fact_time: int | None,
    out: list[Record],
) -> list[_Event]:
    """Events of every line type but a user's; a title also goes to `out` as a SessionFact."""
    if rtype == "assistant":
        return _assistant_events(obj)
    if rtype == "system":
        return _system_events(obj)
    if rtype == "attachment":
        return attachment_events(obj)
    if rtype in ("ai-title", "custom-title"):
        field, rank = (
            ("customTitle", CUSTOM_TITLE_RANK)
            if rtype == "custom-title"
            else ("aiTitle", AI_TITLE_RANK)
        )
        title = nonempty_str(obj.get(field))
        if title is None:
            return []
        out.append(
            SessionFact(session, NAME, title=title, title_rank=rank, parent=parent, time=fact_time)
        )
        return [(0, "system", "meta", labelled(f"{rtype}: ", title))]
    if rtype in _META_FIELDS:
        value = nonempty_str(obj.get(_META_FIELDS[rtype]))
        return [] if value is None else [(0, "system", "meta", labelled(f"{rtype}: ", value))]
    if rtype == "queue-operation":
        content = nonempty_str(obj.get("content"))
        # An enqueued prompt comes again as the user's message (`-p` writes one for its prompt)
        # or as a `queued_command` attachment: the same words, not a second event.
        if content is None or obj.get("operation") == "enqueue":
            return []
        operation = nonempty_str(obj.get("operation")) or "queue"
        return [(0, "system", "meta", labelled(f"queue {operation}: ", content))]
    return []


def _user_events(
    obj: dict[str, Any],
    state: dict[str, Any],
    session: str,
    parent: str | None,
    fact_time: int | None,
    out: list[Record],
) -> list[_Event]:
    """Typed prompts, harness notes and tool results all arrive as `type: user` lines."""
    blocks = _blocks(obj)
    has_tool_result = any(kind == "tool_result" for _, _, kind, _ in blocks)
    is_meta = obj.get("isMeta") is True
    is_summary = obj.get("isCompactSummary") is True
    events: list[_Event] = []
    for index, _, kind, text in blocks:
        if kind != "message" or not isinstance(text, str):  # messages are the log's words alone
            events.append((index, "system" if kind == "tool_result" else "assistant", kind, text))
            continue
        if is_summary:
            events.append((index, "system", "system", text))
        elif is_meta or text.lstrip().startswith(_WRAPPER_PREFIXES):
            events.append((index, "system", "meta", text))
        else:
            events.append((index, "user", "message", text))

    # In a sub-agent file every line is a sidechain; there the first typed line is the task
    # the parent gave, which is the sub-agent session's prompt.
    sidechain_ok = obj.get("isSidechain") is not True or parent is not None
    if (
        state.get("prompt_for") != session
        and sidechain_ok
        and not is_meta
        and not is_summary
        and not has_tool_result
    ):
        prompt = next(
            (text for _, role, _, text in events if role == "user" and isinstance(text, str)), None
        )
        if prompt is not None and prompt.strip():
            out.append(
                SessionFact(
                    session, NAME, prompt=scrub_data_urls(prompt), parent=parent, time=fact_time
                )
            )
            state["prompt_for"] = session
    return events


def _assistant_events(obj: dict[str, Any]) -> list[_Event]:
    return [(index, "assistant", kind, text) for index, _, kind, text in _blocks(obj)]


def _blocks(obj: dict[str, Any]) -> list[_Event]:
    """Content blocks → events; adjacent text and image blocks form one message (role unset)."""
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [(0, "", "message", content)] if content.strip() else []
    if not isinstance(content, list):
        return []
    events: list[_Event] = []
    parts: list[str] = []
    first = 0

    def flush() -> None:
        text = "\n".join(part for part in parts if part)
        if text.strip():
            events.append((first, "", "message", text))
        parts.clear()

    for index, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype in ("text", "image", "document"):
            if not parts:
                first = index
            parts.append(_inline_text(block))
            continue
        if btype == "thinking":
            text = nonempty_str(block.get("thinking"))
            kind = "meta"
        elif btype == "tool_use":
            name = nonempty_str(block.get("name")) or "tool"
            text = f"{name} {compact_json(block.get('input'))}"
            kind = "tool_use"
        elif btype == "tool_result":
            text = _tool_result_text(block)
            kind = "tool_result"
            if block.get("is_error") is True:  # an error says so even without output
                flush()
                events.append((index, "", kind, labelled("[error] ", text)))
                continue
        else:  # redacted_thinking (opaque), server tool blocks, future types
            continue
        flush()
        if text and text.strip():
            events.append((index, "", kind, text))
    flush()
    return events


def _inline_text(block: dict[str, Any]) -> str:
    """Text of a text block; a short stand-in for images and documents (never their base64)."""
    btype = block.get("type")
    if btype == "text":
        text = block.get("text")
        return text if isinstance(text, str) else ""
    source = block.get("source")
    if not isinstance(source, dict):
        return f"[{btype}]"
    media_type = nonempty_str(source.get("media_type"))
    data = source.get("data")
    if isinstance(data, str):
        if btype == "image":
            return image_placeholder(media_type, len(data))
        return f"[{btype} {media_type or 'unknown'} {len(data) * 3 // 4} bytes]"
    url = nonempty_str(source.get("url"))
    if url is not None and not url.startswith("data:") and len(url) <= 500:
        return f"[{btype} {url}]"
    return f"[{btype}]"


def _tool_result_text(block: dict[str, Any]) -> str:
    """Only the block's own content: the line's toolUseResult repeats it in structured form.
    An error is marked by its caller, in the label."""
    content = block.get("content")
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "\n".join(
            _inline_text(item)
            for item in content
            if isinstance(item, dict) and item.get("type") in ("text", "image", "document")
        )
    else:
        text = ""
    return text


def _system_events(obj: dict[str, Any]) -> list[_Event]:
    subtype = nonempty_str(obj.get("subtype")) or ""
    content = nonempty_str(obj.get("content"))
    if subtype == "compact_boundary":
        words = Words().log(content) if content else Words().origin("Conversation compacted")
        metadata = obj.get("compactMetadata")
        if isinstance(metadata, dict):
            details = [
                (key, metadata[key])
                for key in ("trigger", "preTokens")
                if isinstance(metadata.get(key), str | int) and not isinstance(metadata[key], bool)
            ]
            for number, (key, value) in enumerate(details):
                words.sep(", " if number else " ").origin(f"{key} " if number else f"({key} ")
                words.log(str(value))
            if details:
                words.origin(")")
        return [(0, "system", "system", words.build())]
    if subtype == "stop_hook_summary" and content is None:
        infos = obj.get("hookInfos")
        commands = [
            info["command"]
            for info in (infos if isinstance(infos, list) else [])
            if isinstance(info, dict) and isinstance(info.get("command"), str)
        ]
        words = Words().origin("stop hooks: ")
        for number, command in enumerate(commands):
            if number:
                words.sep(", ")
            words.log(command)
        if not commands:
            words.origin("none")
        errors = obj.get("hookErrors")
        if isinstance(errors, list) and errors:
            words.sep("\n").origin("errors: ").log(compact_json(errors))
        if obj.get("preventedContinuation") is True:
            words.sep("\n").origin("prevented continuation")
            reason = nonempty_str(obj.get("stopReason"))
            if reason:
                words.origin(": ").log(reason)
        return [(0, "system", "system", words.build())]
    if content is None:
        if subtype == "api_error" and obj.get("error") is not None:
            return [
                (0, "system", "system", labelled("api_error: ", compact_json(obj.get("error"))))
            ]
        return []
    # `/model`-style local commands are bookkeeping; everything else the harness says is system.
    kind = "meta" if subtype == "local_command" else "system"
    return [(0, "system", kind, content)]


TRANSCRIPTS = FileKind(
    name="transcript",
    patterns=(
        "projects/*/*.jsonl",
        "projects/*/*/subagents/*.jsonl",
    ),
    parse=parse,
    start=start,
)

SOURCE = Source(name=NAME, roots=roots, files=(TRANSCRIPTS, OUTPUTS))
