"""Gemini CLI's session files: `tmp/<project>/chats/session-<time>-<id8>.jsonl`, and a
sub-agent's `tmp/<project>/chats/<parent session id>/<session id>.jsonl` (research/formats.md §8).

The file is a log of patches to one conversation record, folded by Gemini CLI's loader:

- a metadata line `{sessionId, projectHash, startTime, kind, summary?, directories?}`, first and
  again at each resume;
- a message `{id, timestamp, type, content, …}`, written again under its id whenever it changes
  (a model turn first without, then with its `toolCalls`): its events carry ids made from the
  message's (`gemini:<session>:<message id>`, its reasoning `…:thoughts`), a call's from the
  session's and its own (`gemini:<session>:call:<call id>`, `…:result:<call id>`: a call may be
  recorded in a later message than the one that made it), so the kind's batches upsert
  (`FileKind.rewrites`) and the later line's version replaces the earlier;
- `{"$set": {…}}`: metadata (`summary`, `directories`, `lastUpdated`) and, under `messages`, a
  checkpoint of the whole history, written at start (the injected `<session_context>` message)
  and on every resume (everything said so far). A checkpoint restates the history in the form
  the model reads it (a turn's calls as `functionCall` parts, without `toolCalls`, tokens,
  model or the whole outputs, under the resume's time): so a message whose id the file already
  gave is not read again from one, whatever its content, and only the others (the injected
  context) become events. The ids given are kept in the state as seven characters each (a
  separator and a 36-bit digest: a session of 2,000 messages keeps 14 KB);
- `{"$rewindTo": id}`: the user went back to before that message. The archive keeps what was
  said: the abandoned messages stay, and the rewind is a system event that names where it went.

A model turn's tool results come twice: in its `toolCalls[].result` and as the next `user`
message of `functionResponse` parts (the copy the model reads), which gives no event. The
model-facing output of a large command is cut to a head and a tail; `resultDisplay` holds it
whole, so the result's words come from there. The offloaded copy under `tool-outputs/` says the
same again and is not read. A failed command is recorded as a success with `Exit Code: N` in
its output: such a result is marked `[error] ` like a failed call.

The session's cwd is the first workspace directory named by the injected `<session_context>`
(the one whose sha256 is the metadata's `projectHash` when several are), or a sub-agent's first
`directories` entry: what the file itself says, so the parser needs no other file (the
`.project_root` beside `chats/` and `projects.json` name the same directory). Its title is the
`summary` the summary service writes; its prompt the first typed message.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from ...model import EventRecord, ParseProblem, Record, SessionFact, Usage
from ..base import (
    Labelled,
    Words,
    build_events,
    labelled,
    load_object,
    never_raises,
    nonempty_str,
    safe_time,
)
from .text import DONE, Parts, call_text, parts_of, result_parts, status, thoughts_text

NAME = "gemini"
#: The session summary Gemini CLI's summary service writes: a generated title.
SUMMARY_TITLE_RANK = 20
#: User messages the harness writes: the environment it gives the model, a hook's context.
_INJECTED = ("<session_context>", "<hook_context>")
_WORKSPACE = re.compile(r"- \*\*Workspace Directories:\*\*\n((?:[ \t]+- [^\n]+\n?)+)")
_WORKING = re.compile(r"I'm currently working in the directory: ([^\n]+)")
#: Characters of a message id's digest in `seen` (base64: 36 bits), each after a separator.
_DIGEST = 6

#: (event id, role, kind, text, its own time: a result's is when its call finished)
_Item = tuple[str, str, str, str | Labelled, int | None]


def start(relpath: str) -> dict[str, Any]:
    """A sub-agent's file is named by its session and sits in a folder named by its parent's;
    a session file's name holds only the first 8 characters of its id, until the metadata."""
    parts = PurePosixPath(relpath).parts
    name = parts[-1] if parts else ""
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    state: dict[str, Any] = {"sid": stem or "unknown", "t": 0, "seen": ""}
    if len(parts) >= 3 and parts[-3] == "chats" and parts[-2]:
        state["parent"] = parts[-2]
    return state


@never_raises
def parse(line: bytes, lineno: int, state: dict[str, Any]) -> list[Record]:
    """Never raises: a record shape from a newer Gemini CLI must not stop ingestion."""
    obj = load_object(line)
    if obj is None:
        return []
    if isinstance(obj, ParseProblem):
        return [obj]
    out: list[Record] = []
    patch = obj.get("$set")
    if isinstance(patch, dict):
        _metadata(patch, state, out)
        messages = patch.get("messages")
        if isinstance(messages, list):
            for message in messages:
                if isinstance(message, dict) and not _seen(message, state):
                    _message(message, state, out)
    elif "$rewindTo" in obj:
        out.extend(_events(state, [_rewind(obj.get("$rewindTo"), lineno, state)], _time(state)))
    elif "type" in obj and "id" in obj:
        _seen(obj, state)
        _message(obj, state, out)
    elif "sessionId" in obj:
        _metadata(obj, state, out)
    return out


def _sid(state: Mapping[str, Any]) -> str:
    return nonempty_str(state.get("sid")) or "unknown"


def _time(state: Mapping[str, Any]) -> int:
    found = state.get("t")
    return found if isinstance(found, int) and not isinstance(found, bool) else 0


def _seen(message: Mapping[str, Any], state: dict[str, Any]) -> bool:
    """Whether the file already gave this message id; it has, from now on."""
    mid = message.get("id")
    if not isinstance(mid, str) or not mid:
        return False
    digest = hashlib.blake2b(mid.encode("utf-8", "replace"), digest_size=6).digest()
    key = "," + base64.urlsafe_b64encode(digest).decode("ascii")[:_DIGEST]
    seen = state.get("seen")
    seen = seen if isinstance(seen, str) else ""
    if key in seen:
        return True
    state["seen"] = seen + key
    return False


def _metadata(record: Mapping[str, Any], state: dict[str, Any], out: list[Record]) -> None:
    """A metadata line or `$set`: the session id, its project's hash, its directories, its
    summary (a title)."""
    sid = nonempty_str(record.get("sessionId"))
    if sid is not None:
        state["sid"] = sid
    stamped = safe_time(record.get("lastUpdated")) or safe_time(record.get("startTime"))
    if stamped is not None:
        state["t"] = max(stamped, _time(state))
    if not state.get("cwd"):
        found = nonempty_str(record.get("projectHash"))
        if found is not None and len(found) <= 128:
            state["hash"] = found
        directories = record.get("directories")
        if isinstance(directories, list):
            first = next((d for d in directories if isinstance(d, str) and d.strip()), None)
            if first is not None:
                _found_cwd([first], state, out)
    summary = nonempty_str(record.get("summary"))
    if summary is not None:
        out.append(
            SessionFact(
                _sid(state),
                NAME,
                title=summary.strip(),
                title_rank=SUMMARY_TITLE_RANK,
                time=stamped or _time(state) or None,
            )
        )
    _parent(state, out)


def _found_cwd(candidates: list[str], state: dict[str, Any], out: list[Record]) -> None:
    """The session's cwd, from directories the file names: the project's (its sha256 is the
    `projectHash`) if one is, else the first; said once, as a fact."""
    if state.get("cwd") or not candidates:
        return
    wanted = state.get("hash")
    cwd = next(
        (
            c
            for c in candidates
            if hashlib.sha256(c.encode("utf-8", "replace")).hexdigest() == wanted
        ),
        candidates[0],
    )
    state["cwd"] = cwd
    state.pop("hash", None)
    out.append(SessionFact(_sid(state), NAME, cwd=cwd, time=_time(state) or None))


def _parent(state: dict[str, Any], out: list[Record]) -> None:
    """A sub-agent session names its parent once, when its own id is known."""
    parent = nonempty_str(state.get("parent"))
    if parent is None or state.get("parent_sent") or _sid(state) == parent:
        return
    out.append(SessionFact(_sid(state), NAME, parent=parent, time=_time(state) or None))
    state["parent_sent"] = True


def _message(message: Mapping[str, Any], state: dict[str, Any], out: list[Record]) -> None:
    """A message record's events, in order, each of an id made from the message's."""
    stamped = safe_time(message.get("timestamp"))
    if stamped is not None:
        state["t"] = stamped
    time = _time(state)
    sid = _sid(state)
    mid = nonempty_str(message.get("id"))
    base = f"{NAME}:{sid}:{mid}" if mid else f"{NAME}:{sid}:T{time}"
    mtype = nonempty_str(message.get("type")) or ""
    parts = parts_of(message.get("content"))
    if mtype == "user":
        items = _user(message, parts, base, state, out)
    elif mtype == "gemini":
        items = _gemini(message, parts, base, sid, state)
    else:  # info, error, warning: what the CLI told the user
        text = "\n".join(parts.text)
        items = (
            [(base, "system", "system", labelled(f"{mtype or 'note'}: ", text), None)]
            if text
            else []
        )
    _parent(state, out)
    built = _events(state, items, time)
    # The turn's tokens go on its first event but the model's note, which only its first
    # version gives: every version of the turn puts them on the same event.
    carrier = next((e for e in built if not e.id.endswith(":model")), None)
    if mtype == "gemini" and carrier is not None:
        carrier.usage = _usage(message.get("tokens"))
    out.extend(built)


def _user(
    message: Mapping[str, Any], parts: Parts, base: str, state: dict[str, Any], out: list[Record]
) -> list[_Item]:
    """Typed text is the user's; the injected context is the system's (and names the cwd); a
    message of only `functionResponse` parts repeats its turn's results and gives nothing."""
    text = "\n".join(parts.text)
    if not text.strip():
        return []
    if text.lstrip().startswith(_INJECTED):
        if not state.get("cwd"):
            _found_cwd(_context_dirs(text), state, out)
        return [(base, "system", "system", text, None)]
    if not state.get("prompt_sent"):
        shown = "\n".join(parts_of(message.get("displayContent")).text).strip() or text
        out.append(SessionFact(_sid(state), NAME, prompt=shown, time=_time(state) or None))
        state["prompt_sent"] = True
    return [(base, "user", "message", text, None)]


def _context_dirs(text: str) -> list[str]:
    """The workspace directories a `<session_context>` lists (older ones name one)."""
    found = _WORKSPACE.search(text)
    if found is not None:
        lines = found.group(1).splitlines()
        return [line.strip()[2:].strip() for line in lines if line.strip().startswith("- ")]
    working = _WORKING.search(text)
    return [working.group(1).strip()] if working is not None else []


def _gemini(
    message: Mapping[str, Any], parts: Parts, base: str, sid: str, state: dict[str, Any]
) -> list[_Item]:
    """A model turn: its reasoning (meta), its model when it changed (meta), its text, its
    calls and their results."""
    items: list[_Item] = []
    thoughts = "\n\n".join(
        t for t in (thoughts_text(message.get("thoughts")), *parts.thoughts) if t
    )
    if thoughts.strip():
        items.append((f"{base}:thoughts", "assistant", "meta", thoughts, None))
    model = nonempty_str(message.get("model"))
    if model is not None and model != state.get("model"):
        state["model"] = model
        items.append((f"{base}:model", "system", "meta", labelled("model: ", model), None))
    text = "\n".join(parts.text)
    if text.strip():
        items.append((base, "assistant", "message", text, None))
    called: set[str] = set()
    calls = message.get("toolCalls")
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, dict):
            continue
        cid = nonempty_str(call.get("id"))
        at, key = (f"{NAME}:{sid}", cid) if cid else (base, str(len(called)))
        called.add(key)
        items.append((f"{at}:call:{key}", "assistant", "tool_use", _call_words(call), None))
        state_of = status(call)
        if state_of in DONE or (call.get("status") is None and call.get("result")):
            for number, part in enumerate(result_parts(call)):
                suffix = f"#{number}" if number else ""
                result = (f"{at}:result:{key}{suffix}", "system", "tool_result", part)
                items.append((*result, safe_time(call.get("timestamp"))))
    for number, call in enumerate(parts.calls):  # a checkpoint's form of a turn's calls
        cid = nonempty_str(call.get("id"))
        if cid is not None and cid in called:
            continue
        event_id = f"{NAME}:{sid}:call:{cid}" if cid else f"{base}:call:p{number}"
        items.append((event_id, "assistant", "tool_use", _call_words(call), None))
    return items


def _call_words(call: Mapping[str, Any]) -> str:
    return call_text(call.get("name"), call.get("args"))


def _usage(tokens: object) -> Usage | None:
    """`tokens{input, output, cached, thoughts, tool}`: the prompt's tokens (cached ones among
    them) and the tool-use prompt's are read, the answer's and its reasoning's written."""
    if not isinstance(tokens, dict):
        return None
    counts = [tokens.get(name) for name in ("input", "cached", "output", "thoughts", "tool")]
    given, cached, answer, thinking, tool = (n if type(n) is int and n >= 0 else 0 for n in counts)
    if not (given or answer or thinking or tool):
        return None
    return Usage(given + tool, min(cached, given + tool), answer + thinking)


def _rewind(target: object, lineno: int, state: dict[str, Any]) -> _Item:
    """The rewind's event: the messages from `target` on left the conversation, not the
    archive."""
    words = Words().origin("rewind: the conversation went back to before message ")
    words.log(target if isinstance(target, str) else str(target))
    words.origin("; the messages from it to here are an abandoned branch")
    return (f"{NAME}:{_sid(state)}:rewind:L{lineno}", "system", "system", words.build(), None)


def _events(state: Mapping[str, Any], items: list[_Item], time: int) -> list[EventRecord]:
    """Each item an event of its own id (never `#n`-suffixed by `build_events`: a message
    written again with more to it keeps the ids of what it said before)."""
    sid, cwd = _sid(state), nonempty_str(state.get("cwd"))
    return [
        event
        for event_id, role, kind, text, own in items
        for event in build_events(
            event_id,
            [(0, role, kind, text)],
            source=NAME,
            time=time if own is None else own,
            session=sid,
            cwd=cwd,
            state={},
        )
    ]
