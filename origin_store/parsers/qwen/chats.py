"""Qwen Code's session logs: `projects/<slug>/chats/<sessionId>.jsonl` (research/formats.md §9),
and its background agents' transcripts, `projects/<slug>/subagents/<sessionId>/agent-<id>.jsonl`
(`attachJsonlTranscriptWriter` in packages/core/src/agents/agent-transcript.ts), in the same
records, each agent a session under its parent's like Claude Code's sub-agents. Qwen Code
0.15.10, run against a scripted model, wrote a background agent and a `/compress` as read here.

Every line is a self-contained `ChatRecord` of a uuid/parentUuid tree, like Claude Code's, so a
line maps to events on its own and its `uuid` is the event's id; a resumed session appends to
the same file under the same ids. The state carries only what later lines need: the last time,
the session's cwd, branch and version, which one-off facts were given, the last title.

Where words are said twice, one copy is kept. A `ui_telemetry` record repeats the answer that
the assistant record holds (`response_text`) and the tokens of its call, so it gives nothing. A
tool output over the harness's threshold (25,000 characters) reaches the model as a head and a
tail around the path of a `tmp/<hash>/<tool>_<hex>.output` file that holds it whole; for a shell
command `toolCallResult.resultDisplay` holds that whole output too (what the command printed,
then the file's path), so that text is the result's, in parts small enough for the store to
keep whole, and the `.output` file, which names no session, is not read. The failure of a
command shows only in its text (`status` is "success", then `Exit Code: 3`): such a result is
marked `[error] ` like a failed call.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from ...model import EventRecord, ParseProblem, Record, SessionFact, Usage
from ..base import (
    FileKind,
    Labelled,
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
    split_output,
)

NAME = "qwen"

#: A title the user gave (`/rename`) beats one a fast model made; either beats the prompt.
MANUAL_TITLE_RANK = 30
AUTO_TITLE_RANK = 20

#: How a tool output too large for the model begins (`truncateAndSaveToFile`, truncation.ts).
OFFLOADED = "Tool output was too large and has been truncated."
#: The shell tool's summary lines after the output (shell.ts): the last `Exit Code:` followed by
#: `Signal:` is the command's own, whatever the output printed before it. A code or a signal is
#: `(none)` when there is none; a signal is written `0` by some versions when there is none.
_EXIT = re.compile(r"\nExit Code: (\S+)\nSignal: (\S+)")
_NO_FAILURE = ("0", "(none)")
#: Payload fields of system records whose words are worth keeping, for subtypes not read apart.
_PAYLOAD_TEXT = ("text", "message", "content", "displayText", "summary", "notes")

_Event = tuple[int, str, str, str | Labelled]  # (block index, role, kind, text)


def start(relpath: str) -> dict[str, Any]:
    """A chat's file name is its session id, which every line repeats. A background agent's
    transcript (`projects/<slug>/subagents/<sessionId>/agent-<agentId>.jsonl`) repeats its
    parent's: the agent is told apart by its path, a session of its own under the parent's."""
    parts = PurePosixPath(relpath).parts
    name = parts[-1] if parts else ""
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    if len(parts) >= 3 and parts[-3] == "subagents" and stem.startswith("agent-"):
        return {"t": 0, "sid": parts[-2], "agent": stem[len("agent-") :] or "unknown"}
    return {"t": 0, "sid": stem or "unknown"}


@never_raises
def parse(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    """Never raises: a record the code did not foresee must not stop ingestion."""
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
    for key, field in (("cwd", "cwd"), ("branch", "gitBranch"), ("version", "version")):
        if field in obj:
            state[key] = nonempty_str(obj.get(field))
    if state.get("version") == "unknown":  # what the CLI writes when it does not know its own
        state["version"] = None
    sid = nonempty_str(obj.get("sessionId"))
    if sid is not None:
        state["sid"] = sid
    parent = nonempty_str(state.get("sid")) or "unknown"
    agent = nonempty_str(state.get("agent"))
    session = f"{parent}/agent-{agent}" if agent else parent
    cwd = nonempty_str(state.get("cwd"))
    fact_time = time or None
    out: list[Record] = []
    if (cwd is not None or agent) and state.get("cwd_for") != session:
        out.append(
            SessionFact(session, NAME, cwd=cwd, parent=parent if agent else None, time=fact_time)
        )
        state["cwd_for"] = session
    if rtype == "user":
        events = _user_events(obj, state, session, fact_time, out)
    elif rtype == "assistant":
        events = _assistant_events(obj)
    elif rtype == "tool_result":
        events = _tool_result_events(obj)
    elif rtype == "system":
        events = _system_events(obj, state, session, fact_time, out)
    else:
        events = []
    if not events:
        return out
    uuid = nonempty_str(obj.get("uuid"))
    base = f"{NAME}:{uuid}" if uuid else f"{NAME}:{session}:{rtype}:{line_digest(line)}"
    built = build_events(
        base, events, source=NAME, time=time, session=session, cwd=cwd, state=state
    )
    if rtype == "assistant":
        _carry_usage(obj, built)
    out.extend(built)
    return out


def _parts(obj: dict[str, Any]) -> list[Any]:
    message = obj.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    return parts if isinstance(parts, list) else []


def _inline(part: dict[str, Any]) -> str | None:
    """A stand-in for an inline image or file (never its base64), None for other parts."""
    data = part.get("inlineData")
    if isinstance(data, dict):
        media = nonempty_str(data.get("mimeType"))
        body = data.get("data")
        return image_placeholder(media, len(body) if isinstance(body, str) else 0)
    file = part.get("fileData")
    if isinstance(file, dict):
        uri = nonempty_str(file.get("fileUri"))
        return f"[file {uri}]" if uri is not None and len(uri) <= 500 else "[file]"
    return None


def _user_events(
    obj: dict[str, Any],
    state: dict[str, Any],
    session: str,
    fact_time: int | None,
    out: list[Record],
) -> list[_Event]:
    """A typed prompt, or a harness-sent one (`subtype` cron or notification) as system."""
    texts: list[str] = []
    for part in _parts(obj):
        if not isinstance(part, dict):
            continue
        text = part.get("text")
        if isinstance(text, str):
            texts.append(text)
        else:
            stand_in = _inline(part)
            if stand_in is not None:
                texts.append(stand_in)
    text = "\n".join(t for t in texts if t)
    if not text.strip():
        return []
    subtype = nonempty_str(obj.get("subtype"))
    if subtype is not None:
        return [(0, "system", "system", labelled(f"{subtype}: ", text))]
    if state.get("prompt_for") != session:
        out.append(SessionFact(session, NAME, prompt=text, time=fact_time))
        state["prompt_for"] = session
    return [(0, "user", "message", text)]


def _assistant_events(obj: dict[str, Any]) -> list[_Event]:
    """Reasoning parts (`thought: true`) as meta, answer text as a message (adjacent parts one
    message), each function call as a tool use."""
    events: list[_Event] = []
    pending: list[str] = []
    first = 0

    def flush() -> None:
        text = "".join(pending)
        if text.strip():
            events.append((first, "assistant", "message", text))
        pending.clear()

    for index, part in enumerate(_parts(obj)):
        if not isinstance(part, dict):
            continue
        text = part.get("text")
        call = part.get("functionCall")
        if isinstance(text, str) and part.get("thought") is not True:
            if not pending:
                first = index
            pending.append(text)
            continue
        flush()
        if isinstance(text, str):
            if text.strip():
                events.append((index, "assistant", "meta", text))
        elif isinstance(call, dict):
            name = nonempty_str(call.get("name")) or "tool"
            events.append(
                (index, "assistant", "tool_use", f"{name} {compact_json(call.get('args'))}")
            )
        else:
            stand_in = _inline(part)
            if stand_in is not None:
                events.append((index, "assistant", "message", stand_in))
    flush()
    return events


def _carry_usage(obj: dict[str, Any], built: list[EventRecord]) -> None:
    """An assistant record is one model call: its `usageMetadata` goes on its first event.
    `promptTokenCount` counts cached input too; output is the answer's and the reasoning's."""
    usage = obj.get("usageMetadata")
    if not built or not isinstance(usage, dict):
        return
    names = ("promptTokenCount", "cachedContentTokenCount", "candidatesTokenCount")
    counts = [usage.get(name) for name in (*names, "thoughtsTokenCount")]
    tin, cached, answer, thoughts = (n if type(n) is int and n >= 0 else 0 for n in counts)
    if tin or answer or thoughts:
        built[0].usage = Usage(tin, min(cached, tin), answer + thoughts)


def _tool_result_events(obj: dict[str, Any]) -> list[_Event]:
    """A call's result: the model's copy (`functionResponse.response`), or the display's when the
    model got only a head and a tail; failures labelled; long texts in parts."""
    result = obj.get("toolCallResult")
    info: dict[str, Any] = result if isinstance(result, dict) else {}
    status = nonempty_str(info.get("status"))
    display = info.get("resultDisplay")
    texts: list[str] = []
    failed = status == "error"
    for part in _parts(obj):
        if not isinstance(part, dict):
            continue
        response = part.get("functionResponse")
        if isinstance(response, dict):
            answer = response.get("response")
            text = _response_text(answer)
            if isinstance(answer, dict) and answer.get("success") is False:
                failed = True  # a background agent's call, written without a status
            ended = _EXIT.findall(text)
            if ended and (ended[-1][0] not in _NO_FAILURE or ended[-1][1] not in _NO_FAILURE):
                failed = True
            if text.startswith(OFFLOADED) and isinstance(display, str) and display.strip():
                text = display
            texts.append(text)
            continue
        stand_in = _inline(part)
        if stand_in is not None:
            texts.append(stand_in)
    text = "\n".join(t for t in texts if t)
    if not text.strip():
        error = info.get("error")
        text = error if isinstance(error, str) else display if isinstance(display, str) else ""
    if not text.strip() and not failed and status != "cancelled":
        return []
    mark = "[error] " if failed else "[cancelled] " if status == "cancelled" else ""
    pieces = split_output(text)
    events: list[_Event] = []
    for number, piece in enumerate(pieces):
        where = f"[part {number + 1} of {len(pieces)}] " if len(pieces) > 1 else ""
        label = mark + where
        events.append((number, "system", "tool_result", labelled(label, piece) if label else piece))
    return events


def _response_text(response: object) -> str:
    """`{output}` on success, `{error}` on failure; anything else as compact JSON."""
    if isinstance(response, dict):
        for key in ("output", "error", "content"):
            value = response.get(key)
            if isinstance(value, str):
                return value
        if set(response) <= {"success"}:  # a background agent's call: no words but its outcome
            return ""
        return compact_json(response)
    if isinstance(response, str):
        return response
    return "" if response is None else compact_json(response)


def _system_events(
    obj: dict[str, Any],
    state: dict[str, Any],
    session: str,
    fact_time: int | None,
    out: list[Record],
) -> list[_Event]:
    subtype = nonempty_str(obj.get("subtype")) or ""
    found = obj.get("systemPayload")
    payload: dict[str, Any] = found if isinstance(found, dict) else {}
    # A forked agent's bootstrap copies its parent's history, read in the parent's file.
    if subtype in (
        "ui_telemetry",
        "attribution_snapshot",
        "file_history_snapshot",
        "agent_bootstrap",
    ):
        return []
    if subtype == "custom_title":
        return _title(payload, state, session, fact_time, out)
    if subtype == "chat_compression":
        return _compression(payload)
    if subtype == "slash_command":
        return _slash_command(payload)
    if subtype == "at_command":
        files = payload.get("filesRead")
        names = [f for f in files if isinstance(f, str)] if isinstance(files, list) else []
        if not names:
            return []
        return [(0, "system", "meta", labelled("read files: ", ", ".join(names)))]
    words = Words().origin(f"{subtype or 'system'}: ")
    kept = False
    for key in _PAYLOAD_TEXT:
        value = nonempty_str(payload.get(key))
        if value is not None:
            words.sep("\n" if kept else "").log(value)
            kept = True
    return [(0, "system", "meta", words.build())] if kept else []


def _title(
    payload: dict[str, Any],
    state: dict[str, Any],
    session: str,
    fact_time: int | None,
    out: list[Record],
) -> list[_Event]:
    """A title fact each time; an event only when the title changes, since Qwen Code writes the
    current title again each time it leaves the session."""
    title = nonempty_str(payload.get("customTitle"))
    if title is None:
        return []
    # Records older than `titleSource` are the user's (the CLI reads them so).
    rank = AUTO_TITLE_RANK if payload.get("titleSource") == "auto" else MANUAL_TITLE_RANK
    out.append(SessionFact(session, NAME, title=title, title_rank=rank, time=fact_time))
    if state.get("title") == title:
        return []
    state["title"] = title
    return [(0, "system", "meta", labelled("custom_title: ", title))]


def _compression(payload: dict[str, Any]) -> list[_Event]:
    """The summary that replaced the older history: the first user text of the history it wrote
    (the rest is the kept recent history, already read as it happened)."""
    history = payload.get("compressedHistory")
    summary = ""
    for content in history if isinstance(history, list) else []:
        if isinstance(content, dict) and content.get("role") == "user":
            parts = content.get("parts")
            texts = [
                p["text"]
                for p in (parts if isinstance(parts, list) else [])
                if isinstance(p, dict) and isinstance(p.get("text"), str)
            ]
            summary = "\n".join(texts)
            break
    words = Words().origin("chat compressed")
    info = payload.get("info")
    counts = info if isinstance(info, dict) else {}
    before, after = counts.get("originalTokenCount"), counts.get("newTokenCount")
    if type(before) is int and type(after) is int:
        words.origin(f" ({before} → {after} tokens)")
    if summary.strip():
        words.origin(": ").log(summary)
    return [(0, "system", "system", words.build())]


def _slash_command(payload: dict[str, Any]) -> list[_Event]:
    """The command as typed when invoked; its output's texts when done (named in the label, the
    command's words having been read once already)."""
    command = nonempty_str(payload.get("rawCommand")) or "/"
    if payload.get("phase") != "result":
        return [(0, "system", "meta", labelled("slash command: ", command))]
    items = payload.get("outputHistoryItems")
    texts = [
        item["text"]
        for item in (items if isinstance(items, list) else [])
        if isinstance(item, dict) and isinstance(item.get("text"), str) and item["text"].strip()
    ]
    if not texts:
        return []
    return [(0, "system", "meta", labelled(f"{command} output: ", "\n".join(texts)))]


CHATS = FileKind(
    name="chat",
    patterns=("projects/*/chats/*.jsonl", "projects/*/subagents/*/agent-*.jsonl"),
    parse=parse,
    start=start,
)
