"""Codex CLI rollouts (`sessions/**/rollout-*.jsonl[.zst]`) and the thread-name index.

A rollout line is `{timestamp, type, payload}`; the first `session_meta` is the file's identity
and carries cwd/branch/version for every later line, so those live in the per-file state. Lines
have no ids of their own, hence positional ids. Layout and field notes: research/formats.md §2.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from ...model import ParseProblem, Record, SessionFact, Usage
from ..base import (
    FileKind,
    Labelled,
    Source,
    Words,
    build_events,
    compact_json,
    labelled,
    load_object,
    never_raises,
    nonempty_str,
    safe_time,
)
from .fuller import item_output, result_words
from .text import arguments_text, content_text, output_text, session_start, tool_name, turn_summary

NAME = "codex"

#: session_index.jsonl is the user's own naming (rename); thread_name_updated is the agent's.
INDEX_TITLE_RANK = 30
THREAD_NAME_RANK = 20

_THREAD_ID = re.compile(
    r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl(?:\.zst)?$"
)

#: How harness-injected context starts when it is sent as a `user` message.
_INJECTED_PREFIXES: tuple[str, ...] = (
    "<environment_context>",
    "# AGENTS.md instructions",
    "<user_instructions>",
    "<permissions instructions>",
    "<skills",
)
#: A message that is one XML-ish element from start to end is harness-made whatever its tag
#: (tags change between versions; people do not type whole messages as a single element).
_WRAPPED = re.compile(r"<([A-Za-z_][\w\- ]{0,60})>.*</\1>", re.DOTALL)

#: event_msg types that only mirror a response_item or are telemetry.
_MIRROR_OR_TELEMETRY = frozenset(
    {
        "user_message",
        "agent_message",
        "agent_reasoning",
        "agent_reasoning_raw_content",
        "agent_reasoning_section_break",
        "token_count",
        "task_started",
        "turn_started",
        "task_complete",
        "turn_complete",
        "exec_command_begin",
        "exec_command_end",
        "exec_command_output_delta",
        "patch_apply_begin",
        "patch_apply_end",
        "mcp_tool_call_begin",
        "mcp_tool_call_end",
        "web_search_begin",
        "web_search_end",
    }
)

_Event = tuple[str, str, str | Labelled]  # (role, kind, text)


def roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    """Codex reads everything from CODEX_HOME when set, else ~/.codex."""
    configured = environ.get("CODEX_HOME")
    return [Path(configured)] if configured else [home / ".codex"]


def start_rollout(relpath: str) -> dict[str, Any]:
    """The file name's thread id stands in until the first session_meta names the thread."""
    name = PurePosixPath(relpath).name
    match = _THREAD_ID.search(name)
    fallback = re.sub(r"\.jsonl(\.zst)?$", "", name).removeprefix("rollout-") or "unknown"
    sid = match.group(1) if match else fallback
    return {"sid": sid, "t": 0}


def start_index(relpath: str) -> dict[str, Any]:
    """Index lines are independent of each other; nothing to carry."""
    return {}


@never_raises
def parse_index(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    """Each index line is a title candidate; the store keeps the newest (later wins on rank)."""
    obj = load_object(line)
    if obj is None:
        return []
    if isinstance(obj, ParseProblem):
        return [obj]
    thread = nonempty_str(obj.get("id"))
    title = nonempty_str(obj.get("thread_name"))
    if thread is None or title is None:
        return [ParseProblem("bad-field", "session_index line without id or thread_name")]
    return [
        SessionFact(
            thread,
            NAME,
            title=title,
            title_rank=INDEX_TITLE_RANK,
            time=safe_time(obj.get("updated_at")),
        )
    ]


def parse_rollout(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    """Never raises: unknown payload shapes from newer Codex versions must not stop ingestion."""
    return _parse_rollout(line, lineno, state)


def _parse_rollout(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    obj = load_object(line)
    if obj is None:
        return []
    if isinstance(obj, ParseProblem):
        return [obj]
    found = obj.get("type")
    rtype = found if isinstance(found, str) else ""
    payload = obj.get("payload")
    if not isinstance(payload, dict):
        payload = {}

    time = _line_time(obj, rtype, state)
    if time is None:
        return []
    if rtype == "session_meta" and state.get("meta"):
        return []  # copied from another thread's history; the first one names the file
    out: list[Record] = []
    events = _line_events(rtype, payload, state, time, out)

    sid = nonempty_str(state.get("sid")) or "unknown"
    cwd = nonempty_str(state.get("cwd"))
    if cwd is not None and not state.get("cwd_sent"):
        out.insert(0, SessionFact(sid, NAME, cwd=cwd, time=time or None))
        state["cwd_sent"] = True

    items = [(index, role, kind, text) for index, (role, kind, text) in enumerate(events)]
    built = build_events(
        f"{NAME}:{sid}:L{lineno}", items, source=NAME, time=time, session=sid, cwd=cwd, state=state
    )
    if rtype == "event_msg" and payload.get("type") == "token_count":
        _hold_usage(payload, state)
    elif built and state.get("usage"):
        held = state.pop("usage")
        built[0].usage = Usage(held[0], held[1], held[2])
    out.extend(built)
    return out


def _hold_usage(payload: dict[str, Any], state: dict[str, Any]) -> None:
    """Keep a model call's tokens for the next event of the file, which carries them: a
    token_count line has no event of its own. The call's own are `last_token_usage`;
    `total_token_usage` is the thread's so far, so without the former the call's are the total
    less the one before, and a count whose total did not move is one written again. Held in
    the file's state, so a line read once is counted once; a file's last call waits for the
    file's next event."""
    info = payload.get("info")
    if not isinstance(info, dict):
        return
    total, last = _token_counts(info.get("total_token_usage")), info.get("last_token_usage")
    before = state.get("utotal")
    if total is not None and total == before:
        return  # the same count written again (Codex repeats one with its rate limits)
    if isinstance(last, dict):
        call = _token_counts(last)
    elif total is not None and isinstance(before, list):
        call = [max(now - then, 0) for now, then in zip(total, before, strict=True)]
    else:
        call = total
    if total is not None:
        state["utotal"] = total
    if call and any(call):
        held = state.get("usage") or [0, 0, 0]
        state["usage"] = [a + b for a, b in zip(held, call, strict=True)]


def _token_counts(usage: object) -> list[int] | None:
    """[in, cached, out] of a Codex token usage, or None when it says none of them."""
    if not isinstance(usage, dict):
        return None
    counts = [usage.get(name) for name in ("input_tokens", "cached_input_tokens", "output_tokens")]
    if not any(type(n) is int for n in counts):
        return None
    return [n if type(n) is int and n >= 0 else 0 for n in counts]


def _line_time(obj: dict[str, Any], rtype: str, state: dict[str, Any]) -> int | None:
    """A line's time (the last one seen when it has none), or None for a line to skip: sub-agent
    and forked rollouts begin with copies of the parent's items, which keep the parent's
    (earlier) timestamps; they are the parent's events, already in its own file."""
    stamped = safe_time(obj.get("timestamp"))
    copy_before = state.get("copy_before")
    if (
        isinstance(copy_before, int)
        and stamped is not None
        and stamped < copy_before
        and rtype != "session_meta"
    ):
        return None
    if stamped is not None:
        state["t"] = stamped
    previous = state.get("t")
    return stamped if stamped is not None else previous if isinstance(previous, int) else 0


def _line_events(
    rtype: str, payload: dict[str, Any], state: dict[str, Any], time: int, out: list[Record]
) -> list[_Event]:
    """The events one rollout line holds, by its type; session facts go to `out`."""
    if rtype == "session_meta":
        return _session_meta(payload, state, time, out)
    if rtype == "turn_context":
        cwd = nonempty_str(payload.get("cwd"))
        if cwd is not None:
            state["cwd"] = cwd
        summary = turn_summary(payload)
        return [("system", "meta", summary)] if summary is not None else []
    if rtype == "response_item":
        return _response_item(payload, state, time, out)
    if rtype == "event_msg":
        return _event_msg(payload, state, time, out)
    if rtype == "compacted":
        # replacement_history repeats earlier items verbatim; only the summary is new.
        message = nonempty_str(payload.get("message"))
        return [("system", "system", message or labelled("context compacted"))]
    return []


def _session_meta(
    payload: dict[str, Any], state: dict[str, Any], time: int, out: list[Record]
) -> list[_Event]:
    state["meta"] = True
    thread = nonempty_str(payload.get("id"))
    if thread is not None:
        state["sid"] = thread
    sid = nonempty_str(state.get("sid")) or "unknown"
    cwd = nonempty_str(payload.get("cwd"))
    if cwd is not None and nonempty_str(state.get("cwd")) is None:
        state["cwd"] = cwd
    git = payload.get("git")
    state["branch"] = nonempty_str(git.get("branch")) if isinstance(git, dict) else None
    state["version"] = nonempty_str(payload.get("cli_version"))

    source = payload.get("source")
    spawn: dict[str, Any] = {}
    if isinstance(source, dict) and isinstance(source.get("subagent"), dict):
        candidate = source["subagent"].get("thread_spawn")
        spawn = candidate if isinstance(candidate, dict) else {}
    parent = (
        nonempty_str(spawn.get("parent_thread_id"))
        or nonempty_str(payload.get("parent_thread_id"))
        or nonempty_str(payload.get("forked_from_id"))
    )
    started = safe_time(payload.get("timestamp"))
    if parent is not None and started is not None:
        state["copy_before"] = started
    out.append(
        SessionFact(
            sid,
            NAME,
            cwd=nonempty_str(state.get("cwd")),
            parent=parent,
            time=started if started is not None else time or None,
        )
    )
    if state.get("cwd"):
        state["cwd_sent"] = True

    return [("system", "meta", session_start(payload, source, spawn, parent, cwd))]


def _response_item(
    payload: dict[str, Any], state: dict[str, Any], time: int, out: list[Record]
) -> list[_Event]:
    itype = payload.get("type")
    if itype == "message":
        role = payload.get("role")
        text = content_text(payload.get("content"))
        if not text.strip():
            return []
        if role == "assistant":
            return [("assistant", "message", text)]
        if role == "user":
            if _is_injected(text):
                return [("system", "system", text)]
            _maybe_prompt(text, state, time, out)
            return [("user", "message", text)]
        return [("system", "system", text)]  # developer / system prompts
    if itype == "reasoning":
        # Only the readable summary (or plain reasoning text); encrypted_content is opaque.
        text = content_text(payload.get("summary")) or content_text(payload.get("content"))
        return [("assistant", "meta", text)] if text.strip() else []
    if itype == "function_call":
        name = tool_name(payload)
        return [("assistant", "tool_use", f"{name} {arguments_text(payload.get('arguments'))}")]
    if itype == "custom_tool_call":
        name = nonempty_str(payload.get("name")) or "custom_tool"
        raw = payload.get("input")
        text = raw if isinstance(raw, str) else compact_json(raw)
        return [("assistant", "tool_use", f"{name} {text}")]
    if itype in ("local_shell_call", "web_search_call"):
        name = itype.removesuffix("_call")
        return [("assistant", "tool_use", f"{name} {compact_json(payload.get('action'))}")]
    if itype == "tool_search_call":
        return [
            ("assistant", "tool_use", f"tool_search {arguments_text(payload.get('arguments'))}")
        ]
    if itype == "image_generation_call":
        prompt = nonempty_str(payload.get("revised_prompt"))  # `result` is base64: never read
        return [("assistant", "tool_use", "image_generation" + (f" {prompt}" if prompt else ""))]
    if itype in ("function_call_output", "custom_tool_call_output", "tool_search_output"):
        marks, text = output_text(payload.get("output"))
        header = result_words(payload.get("call_id"), payload.get("output"), state)
        text = text if header is None else header
        if marks:  # a failure says so even without output
            return [("system", "tool_result", labelled(marks, text))]
        return [("system", "tool_result", text)] if text.strip() else []
    return []  # compaction (encrypted), ghost_snapshot, newer item types


def _event_msg(
    payload: dict[str, Any], state: dict[str, Any], time: int, out: list[Record]
) -> list[_Event]:
    etype = payload.get("type")
    if etype == "user_message":
        # The mirror of a typed prompt: no event (the response_item is indexed), but it is the
        # most reliable source of the session's first prompt.
        message = nonempty_str(payload.get("message"))
        if message is not None and message.strip():
            _maybe_prompt(message, state, time, out)
        return []
    if not isinstance(etype, str) or etype in _MIRROR_OR_TELEMETRY:
        return []
    if etype == "item_completed":
        return item_output(payload, state)
    if etype == "thread_name_updated":
        name = nonempty_str(payload.get("thread_name"))
        if name is None:
            return []
        thread = nonempty_str(payload.get("thread_id")) or nonempty_str(state.get("sid"))
        out.append(
            SessionFact(
                thread or "unknown",
                NAME,
                title=name,
                title_rank=THREAD_NAME_RANK,
                time=time or None,
            )
        )
        return [("system", "meta", labelled("thread name: ", name))]
    if etype == "turn_aborted":
        reason = nonempty_str(payload.get("reason"))
        return [
            (
                "system",
                "system",
                labelled("turn aborted: ", reason)
                if reason
                else labelled("turn aborted: unknown reason"),
            )
        ]
    if etype in ("error", "warning", "stream_error"):
        message = nonempty_str(payload.get("message"))
        return [("system", "system", labelled(f"{etype}: ", message))] if message else []
    if etype == "context_compacted":
        return [("system", "system", labelled("context compacted"))]
    if etype == "thread_rolled_back":
        turns = payload.get("num_turns")
        if isinstance(turns, int) and not isinstance(turns, bool):
            return [
                (
                    "system",
                    "meta",
                    Words().origin("rolled back ").log(str(turns)).origin(" turn(s)").build(),
                )
            ]
        return [("system", "meta", labelled("rolled back ? turn(s)"))]
    if etype in ("entered_review_mode", "exited_review_mode"):
        return [("system", "meta", labelled(etype.replace("_", " ")))]
    return []


def _maybe_prompt(text: str, state: dict[str, Any], time: int, out: list[Record]) -> None:
    """First real user input wins; the user_message mirror follows its response_item with the
    same text, so whichever comes first gives the same prompt."""
    if state.get("prompt_sent"):
        return
    sid = nonempty_str(state.get("sid")) or "unknown"
    out.append(SessionFact(sid, NAME, prompt=text, time=time or None))
    state["prompt_sent"] = True


def _is_injected(text: str) -> bool:
    stripped = text.strip()
    return stripped.startswith(_INJECTED_PREFIXES) or _WRAPPED.fullmatch(stripped) is not None


ROLLOUTS = FileKind(
    name="rollout",
    patterns=(
        "sessions/**/rollout-*.jsonl",
        "sessions/**/rollout-*.jsonl.zst",
        "archived_sessions/**/rollout-*.jsonl",
        "archived_sessions/**/rollout-*.jsonl.zst",
    ),
    parse=parse_rollout,
    start=start_rollout,
)

SESSION_INDEX = FileKind(
    name="session_index",
    patterns=("session_index.jsonl",),
    parse=parse_index,
    start=start_index,
)

SOURCE = Source(name=NAME, roots=roots, files=(ROLLOUTS, SESSION_INDEX))
