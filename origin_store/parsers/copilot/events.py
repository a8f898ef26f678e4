"""Copilot CLI's `session-state/<sessionId>/events.jsonl`: the session as it happened.

Every line is an event `{type, data, id, timestamp, parentId}` with an id of its own, so a line
maps to events alone and its ids are `copilot:<event id>` (`#n` for the parts of one line). A
resumed session (`--resume`) appends to the same file: a `session.resume` line, new turns, and
one more `session.shutdown` (one per run), so old lines keep their ids and a second read adds
nothing. A sub-agent writes its lines into the same file, marked with its `agentId`: they are
the session `<sessionId>/agent-<agentId>`, whose parent is the file's. The state carries what
later lines need from earlier ones: the cwd, branch and version of the last run's start, the
last model call counted, whether the prompt was told, the sub-agents told.

What is left out, and why: `tool.execution_start` repeats the call its `assistant.message` asked
for; `assistant.turn_start`/`turn_end`, `session.compaction_start` and `session.usage_checkpoint`
are markers or running totals. A resumed run may send the system prompt again: it is an event
again, as the model read it again. A tool's output over Copilot's threshold (20 KB) is written
whole to a file in the OS temp dir, outside `~/.copilot` and not kept by it, and the log keeps
its first 500 characters ("Output too large to read at once … Preview"): that preview is all
Origin has of it, and temp files are never read. `session-store.db` beside the sessions says
again what these files say (its turns, its `summary` = the first prompt, as `workspace.yaml`'s
name), so it is not read at all; nor is a session's `session.db` (workflow bookkeeping) or its
`checkpoints/` (the compaction summaries the events hold). Layout: research/formats.md §11.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from ...model import EventRecord, ParseProblem, Record, SessionFact, Usage
from ..base import (
    Labelled,
    Words,
    build_events,
    compact_json,
    labelled,
    line_time,
    load_object,
    never_raises,
    nonempty_str,
    split_output,
)

NAME = "copilot"

#: A title Copilot gave the session in its log (`session.title_changed`), below a user's name.
TITLE_CHANGED_RANK = 20

_Event = tuple[int, str, str, str | Labelled]  # (part index, role, kind, text)
#: Sub-agents whose session facts were given, remembered in the state (the last few).
_AGENTS_KEPT = 4

#: Lines with nothing of their own to say (see the module's docstring).
_SKIPPED = frozenset(
    {
        "assistant.turn_start",
        "assistant.turn_end",
        "tool.execution_start",
        "tool.execution_partial_result",
        "tool.execution_progress",
        "assistant.message_delta",
        "assistant.reasoning_delta",
        "assistant.intent",
        "pending_messages.modified",
        "hook.start",
        "hook.end",
    }
)


def start(relpath: str) -> dict[str, Any]:
    """The directory is named by the session id, as `session.start` names it too; earlier
    versions kept some sessions' events in `session-state/<sessionId>.jsonl` instead."""
    path = PurePosixPath(relpath)
    sid = path.parent.name if path.name == "events.jsonl" else path.name.removesuffix(".jsonl")
    return {"sid": sid or "unknown", "t": 0}


@never_raises
def parse(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    """Never raises: event types of a newer Copilot must not stop ingestion."""
    obj = load_object(line)
    if obj is None:
        return []
    if isinstance(obj, ParseProblem):
        return [obj]
    found = obj.get("type")
    etype = found if isinstance(found, str) else ""
    raw_data = obj.get("data")
    data: dict[str, Any] = raw_data if isinstance(raw_data, dict) else {}
    time = line_time(obj, state)
    sid = nonempty_str(state.get("sid")) or "unknown"
    out: list[Record] = []
    if etype in ("session.usage_record", "assistant.usage"):
        _hold_usage(etype, data, state)
        return out
    if etype in _SKIPPED:
        return out
    base = f"{NAME}:{nonempty_str(obj.get('id')) or f'{sid}:L{lineno}'}"
    session = _session(obj, etype, sid, state, time, out)
    built: list[EventRecord] = []
    if etype == "assistant.message":
        built = _assistant(base, data, state, time, session)
    elif etype == "tool.execution_complete":
        built = _result(base, data, state, time, session)
    else:
        items = _other(etype, data, state, time, session, out)
        cwd = nonempty_str(state.get("cwd"))
        if cwd is not None and state.get("cwd_sent") != cwd:
            out.append(SessionFact(sid, NAME, cwd=cwd, time=time or None))
            state["cwd_sent"] = cwd
        built = _build(base, items, state, time, session)
    held = state.get("usage")
    if built and isinstance(held, list) and len(held) == 3:
        built[0].usage = Usage(*(n if type(n) is int else 0 for n in held))
        del state["usage"]
    out.extend(built)
    return out


def _session(
    obj: dict[str, Any], etype: str, sid: str, state: dict[str, Any], time: int, out: list[Record]
) -> str:
    """The session a line belongs to. A sub-agent's lines are written in its parent's file with
    its `agentId`: they are a session of their own, `<session>/agent-<agentId>` as Claude Code's
    sub-agents are, whose parent is the file's session; the `subagent.*` lines that start and end
    it are the parent's. The sub-agent's cwd and parent are told once (`state["agents"]`: the
    last few told, as a file's sub-agents run one after another)."""
    agent = nonempty_str(obj.get("agentId"))
    if agent is None or etype.startswith("subagent."):
        return sid
    session = f"{sid}/agent-{agent}"
    told = state.get("agents")
    told = told if isinstance(told, list) else []
    if agent not in told:
        cwd = nonempty_str(state.get("cwd"))
        out.append(SessionFact(session, NAME, cwd=cwd, parent=sid, time=time or None))
        if len(agent) <= 100:  # an id, not a text: the state stays small
            state["agents"] = [*told, agent][-_AGENTS_KEPT:]
    return session


def _build(
    base: str, items: list[_Event], state: dict[str, Any], time: int, sid: str
) -> list[EventRecord]:
    return build_events(
        base,
        items,
        source=NAME,
        time=time,
        session=sid,
        cwd=nonempty_str(state.get("cwd")),
        state=state,
    )


def _other(
    etype: str,
    data: dict[str, Any],
    state: dict[str, Any],
    time: int,
    sid: str,
    out: list[Record],
) -> list[_Event]:
    """Events of every line type but the assistant's messages and the tools' results."""
    if etype == "user.message":
        # `content` is what was typed; `transformedContent` adds the harness's date stamp.
        text = nonempty_str(data.get("content"))
        if text is None or not text.strip():
            return []
        if "/agent-" in sid:  # a sub-agent's task; the store keeps the first prompt it is told
            out.append(SessionFact(sid, NAME, prompt=text, time=time or None))
        elif not state.get("prompt_sent"):
            out.append(SessionFact(sid, NAME, prompt=text, time=time or None))
            state["prompt_sent"] = True
        return [(0, "user", "message", text)]
    if etype == "system.message":
        # The system prompt, with the instructions files Copilot found at its end: longer than
        # the text Origin keeps of an event, so it is filed in parts, all searchable.
        text = nonempty_str(data.get("content"))
        if text is None:
            return []
        return [(index, "system", "system", part) for index, part in enumerate(split_output(text))]
    return _session_events(etype, data, state, time, sid, out)


def _session_events(
    etype: str,
    data: dict[str, Any],
    state: dict[str, Any],
    time: int,
    sid: str,
    out: list[Record],
) -> list[_Event]:
    """What the harness says of the session: runs starting and ending, its model, its title,
    errors and notices, compactions, sub-agents."""
    if etype in ("session.start", "session.resume"):
        return [(0, "system", "meta", _session_start(etype, data, state))]
    if etype == "session.shutdown":
        return [(0, "system", "meta", _shutdown(data))]
    if etype == "session.context_changed":
        _context(data, state)
        return []
    if etype == "session.model_change":
        model = nonempty_str(data.get("newModel"))
        return [(0, "system", "meta", labelled("model: ", model))] if model else []
    if etype == "session.title_changed":
        title = nonempty_str(data.get("title"))
        if title is None:
            return []
        out.append(
            SessionFact(sid, NAME, title=title, title_rank=TITLE_CHANGED_RANK, time=time or None)
        )
        return [(0, "system", "meta", labelled("title: ", title))]
    if etype in (
        "session.error",
        "session.warning",
        "session.info",
        "abort",
        "system.notification",
    ):
        message = next(
            (m for m in map(nonempty_str, map(data.get, ("message", "reason", "content"))) if m),
            None,
        )
        if message is None:
            return []
        kind = "meta" if etype == "session.info" else "system"
        return [(0, "system", kind, labelled(f"{etype.removeprefix('session.')}: ", message))]
    if etype == "session.compaction_complete":
        return _compaction(data, state)
    if etype == "session.truncation":
        words = Words().origin("context truncated: ")
        for number, (key, what) in enumerate(
            (
                ("messagesRemovedDuringTruncation", "messages"),
                ("tokensRemovedDuringTruncation", "tokens"),
            )
        ):
            count = data.get(key)
            if type(count) is int:
                words.sep(", " if number else "").log(str(count)).sep(" ").origin(what)
        return [(0, "system", "system", words.origin(" removed").build())]
    if etype in ("subagent.started", "subagent.completed", "subagent.failed"):
        return [(0, "system", "meta", _subagent(etype, data))]
    return []


def _compaction(data: dict[str, Any], state: dict[str, Any]) -> list[_Event]:
    """A compaction: its summary, which replaced the conversation for the model (the same text
    as `checkpoints/<n>-<title>.md`, not read for that reason), or why it did not happen. Its
    model call is counted here (`compactionTokensUsed`): no usage line is written for it."""
    spent = data.get("compactionTokensUsed")
    if isinstance(spent, dict):
        _hold_usage("compaction", spent, state)
    if data.get("success") is False:
        outcome = nonempty_str(data.get("outcome")) or "failed"
        reason = nonempty_str(data.get("error")) or nonempty_str(data.get("outcomeReason")) or ""
        return [(0, "system", "meta", labelled(f"compaction {outcome}: ", reason))]
    summary = nonempty_str(data.get("summaryContent"))
    if summary is not None:
        return [(0, "system", "system", labelled("compaction summary:\n", summary))]
    return [(0, "system", "system", labelled("context compacted"))]


def _subagent(etype: str, data: dict[str, Any]) -> Labelled | str:
    """A sub-agent's start (its task) or end (what it did, or its error), in its parent."""
    name = nonempty_str(data.get("agentName")) or nonempty_str(data.get("agentDisplayName"))
    words = Words().origin("sub-agent ").log(name or "").sep(" ").origin(etype.split(".")[1])
    if etype == "subagent.started":
        task = nonempty_str(data.get("agentDescription"))
        if task is not None:
            words.origin(": ").log(task)
        return words.build()
    error = nonempty_str(data.get("error"))
    if error is not None:
        return words.origin(": ").log(error).build()
    joint = ": "
    for key, what in (
        ("totalToolCalls", "tool calls"),
        ("totalTokens", "tokens"),
        ("durationMs", "ms"),
    ):
        count = data.get(key)
        if type(count) is int:
            words.origin(joint).log(str(count)).sep(" ").origin(what)
            joint = ", "
    return words.build()


def _context(data: dict[str, Any], state: dict[str, Any]) -> None:
    """The cwd and branch a run worked in, for the events that follow (a resume may move)."""
    context = data.get("context")
    context = context if isinstance(context, dict) else data
    for key, field in (("cwd", "cwd"), ("branch", "branch")):
        value = nonempty_str(context.get(field))
        if value is not None:
            state[key] = value


def _session_start(etype: str, data: dict[str, Any], state: dict[str, Any]) -> Labelled | str:
    """A run's start: Copilot's version, the model, where it ran."""
    _context(data, state)
    version = nonempty_str(data.get("copilotVersion"))
    if version is not None:
        state["version"] = version
    words = Words().origin("session started" if etype == "session.start" else "session resumed")
    for label, value in (
        ("Copilot CLI ", version),
        ("model ", nonempty_str(data.get("selectedModel"))),
        ("cwd ", nonempty_str(state.get("cwd"))),
        ("branch ", nonempty_str(state.get("branch"))),
    ):
        if value is not None:
            words.sep(", ").origin(label).log(value)
    return words.build()


def _shutdown(data: dict[str, Any]) -> Labelled | str:
    """A run's end: how it ended, what it changed, the requests each model served."""
    words = Words().origin("session ended")
    kind = nonempty_str(data.get("shutdownType"))
    if kind is not None:
        words.origin(" (").log(kind).sep(")")
    changes = data.get("codeChanges")
    if isinstance(changes, dict):
        added, removed = changes.get("linesAdded"), changes.get("linesRemoved")
        if type(added) is int and type(removed) is int:
            words.sep(", ").origin(f"+{added} -{removed} lines")
        files = changes.get("filesModified")
        names = [n for n in files if isinstance(n, str) and n] if isinstance(files, list) else []
        for number, name in enumerate(names):
            words.sep(", " if number else " ").origin("" if number else "in ").log(name)
    metrics = data.get("modelMetrics")
    for model, metric in metrics.items() if isinstance(metrics, dict) else ():
        requests = metric.get("requests") if isinstance(metric, dict) else None
        count = requests.get("count") if isinstance(requests, dict) else None
        if isinstance(model, str) and model and type(count) is int:
            words.sep("; ").origin("model ").log(model).sep(" ").origin(f"{count} requests")
    return words.build()


def _assistant(
    base: str, data: dict[str, Any], state: dict[str, Any], time: int, sid: str
) -> list[EventRecord]:
    """A model answer: its reasoning, its text, then each tool call it asked for, the calls
    under ids of their own (`:call:<toolCallId>`) that their results' ids name too."""
    items: list[_Event] = []
    reasoning = nonempty_str(data.get("reasoningText"))
    if reasoning is not None and reasoning.strip():
        items.append((0, "assistant", "meta", reasoning))
    content = nonempty_str(data.get("content"))
    if content is not None and content.strip():
        items.append((1, "assistant", "message", content))
    built = _build(base, items, state, time, sid)
    requests = data.get("toolRequests")
    seen: set[str] = set()
    for index, request in enumerate(requests if isinstance(requests, list) else []):
        if not isinstance(request, dict):
            continue
        name = nonempty_str(request.get("name")) or "tool"
        arguments = request.get("arguments")
        text = f"{name} {arguments if isinstance(arguments, str) else compact_json(arguments)}"
        call = nonempty_str(request.get("toolCallId"))
        if call is None or call in seen:
            call_id = f"{base}#{index + 2}"
        else:
            seen.add(call)
            call_id = f"{base}:call:{call}"
        built.extend(_build(call_id, [(0, "assistant", "tool_use", text)], state, time, sid))
    return built


def _result(
    base: str, data: dict[str, Any], state: dict[str, Any], time: int, sid: str
) -> list[EventRecord]:
    """A tool's result: its output (as the model read it, then the longer form Copilot showed,
    such as an edit's diff, when that differs), an `[error] ` label when the call failed or the
    command exited non-zero (Copilot calls the latter a success)."""
    result = data.get("result")
    result = result if isinstance(result, dict) else {}
    content = nonempty_str(result.get("content")) or ""
    detailed = nonempty_str(result.get("detailedContent"))
    text = content
    if detailed is not None and detailed.strip() and detailed.strip() not in content:
        text = f"{content}\n{detailed}" if content else detailed
    error = data.get("error")
    if not text and error is not None:
        message = error.get("message") if isinstance(error, dict) else error
        text = message if isinstance(message, str) else compact_json(error)
    shell = data.get("shellExecution")
    exit_code = shell.get("exitCode") if isinstance(shell, dict) else None
    failed = data.get("success") is False or (type(exit_code) is int and exit_code != 0)
    call = nonempty_str(data.get("toolCallId"))
    result_id = f"{base}:result:{call}" if call is not None else base
    parts = split_output(text)
    if not failed and not text.strip():
        return []
    items: list[_Event] = [
        (index, "system", "tool_result", labelled("[error] ", part) if failed else part)
        for index, part in enumerate(parts)
    ]
    return _build(result_id, items, state, time, sid)


def _hold_usage(etype: str, data: dict[str, Any], state: dict[str, Any]) -> None:
    """Keep a model call's tokens for the next event of the file, which carries them: a usage
    line has no event of its own, and comes just before the answer it paid for. A call is
    counted once though it may be written twice, as a `session.usage_record` and as an
    `assistant.usage` with the same `apiCallId`; two lines of one type are two calls, whatever
    their ids (a local model's server may give every call the same one). Input tokens include
    cached ones, as Copilot counts them (its summary shows `↑ 100 (40 cached)` for
    `inputTokens` 100, `cacheReadTokens` 40), unless the cached ones outnumber them (an
    Anthropic-shaped count, which leaves them out)."""
    usage = data.get("usage") if etype == "session.usage_record" else data
    if not isinstance(usage, dict):
        return
    call = nonempty_str(usage.get("apiCallId")) or nonempty_str(data.get("apiCallId"))
    last = state.get("ulast")
    if call is not None and isinstance(last, list) and last[1:] == [call] and last[0] != etype:
        return
    state["ulast"] = [etype, call]
    names = ("inputTokens", "cacheReadTokens", "cacheWriteTokens", "outputTokens")
    tin, read, made, tout = (
        n if type(n) is int and n >= 0 else 0 for n in (usage.get(name) for name in names)
    )
    if tin < read + made:
        tin += read + made
    if not (tin or tout):
        return
    held = state.get("usage")
    held = held if isinstance(held, list) and len(held) == 3 else [0, 0, 0]
    state["usage"] = [
        (held[0] if type(held[0]) is int else 0) + tin,
        (held[1] if type(held[1]) is int else 0) + read,
        (held[2] if type(held[2]) is int else 0) + tout,
    ]
