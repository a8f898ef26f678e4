"""The words of Gemini CLI's records: a message's parts, a tool call and its result.

A message's `content` is Gemini's `PartListUnion`: a string, a part, or a list of parts and
strings. What the model said and what the tools returned are parts: `text` (with
`thought: true` for reasoning), `functionCall`, `functionResponse`, `inlineData`, `fileData`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..base import Labelled, compact_json, image_placeholder, labelled, nonempty_str, split_output

#: The model-facing copy of a large output: its head and tail, and where the whole was saved
#: (`formatTruncatedToolOutput` in utils/fileUtils.ts; the whole is in `resultDisplay`).
_TRUNCATED = "Output too large. Showing first "
#: A shell call's exit code, on a line of its own after the output (`Exit Code: 3`), or in
#: brackets where a tool adds it (`[Exit Code: 3]`); a failure is recorded as a success.
_EXIT = re.compile(r"^\[?Exit Code: (-?\d+)\]?$", re.MULTILINE)
#: Statuses of a call that has its result (the others are on its way: scheduled, executing…).
DONE = frozenset({"success", "error", "cancelled"})
FAILED = frozenset({"error", "cancelled"})
#: Characters of the whole output's start and end looked for in the model-facing copy, to find
#: what the tool wrote before the output and after it (the exit code, the process group).
_PROBE = 200


@dataclass(slots=True)
class Parts:
    """A message's parts sorted by what they are."""

    text: list[str] = field(default_factory=list)
    thoughts: list[str] = field(default_factory=list)
    calls: list[Mapping[str, Any]] = field(default_factory=list)
    responses: list[Mapping[str, Any]] = field(default_factory=list)


def parts_of(content: object) -> Parts:
    """A `PartListUnion` sorted; a part of an unknown shape gives nothing."""
    out = Parts()
    items = content if isinstance(content, list) else [content]
    for item in items:
        if isinstance(item, str):
            if item:
                out.text.append(item)
            continue
        if not isinstance(item, dict):
            continue
        text = item.get("text")
        if isinstance(text, str):
            if text:
                (out.thoughts if item.get("thought") is True else out.text).append(text)
            continue
        call, response = item.get("functionCall"), item.get("functionResponse")
        if isinstance(call, dict):
            out.calls.append(call)
        elif isinstance(response, dict):
            out.responses.append(response)
        elif isinstance(item.get("inlineData"), dict):
            inline = item["inlineData"]
            data = inline.get("data")
            size = len(data) if isinstance(data, str) else 0
            out.text.append(image_placeholder(nonempty_str(inline.get("mimeType")), size))
        elif isinstance(item.get("fileData"), dict):
            uri = nonempty_str(item["fileData"].get("fileUri"))
            out.text.append(f"[file {uri}]" if uri and len(uri) <= 500 else "[file]")
    return out


def thoughts_text(thoughts: object) -> str:
    """`thoughts[{subject, description}]`, each its subject then its description."""
    if not isinstance(thoughts, list):
        return ""
    out = []
    for thought in thoughts:
        if not isinstance(thought, dict):
            continue
        words = [
            value
            for value in (thought.get("subject"), thought.get("description"))
            if isinstance(value, str) and value.strip()
        ]
        if words:
            out.append("\n".join(words))
    return "\n\n".join(out)


def call_text(name: object, args: object) -> str:
    """`<name> <arguments as compact JSON>`, as every parser writes a call."""
    return f"{nonempty_str(name) or 'tool'} {compact_json(args if args is not None else {})}"


def response_text(response: Mapping[str, Any]) -> str:
    """A `functionResponse`'s words: its `response.output` (or `error`, or the response as
    JSON when it is neither)."""
    found = response.get("response")
    if isinstance(found, dict):
        for key in ("output", "error"):
            value = found.get(key)
            if isinstance(value, str):
                return value
        return compact_json(found) if found else ""
    return found if isinstance(found, str) else ""


def result_parts(call: Mapping[str, Any]) -> list[str | Labelled]:
    """A finished call's result as event texts, in order: the model-facing output, or where
    that was cut (head and tail) the whole output from `resultDisplay` between what the tool
    wrote around it (its notice, the shell's header and footer: the saved file's text); a long
    one in parts the store keeps whole; marked `[error] ` when the call failed or its command
    exited non-zero."""
    found = call.get("result")
    responses = parts_of(found).responses if found is not None else []
    model = "\n".join(response_text(response) for response in responses)
    display = call.get("resultDisplay")
    shown = display if isinstance(display, str) else ""
    if model.startswith(_TRUNCATED) and len(shown) > len(model) // 2:
        notice, _, rest = model.partition("\n")
        head, tail = shown[:_PROBE], shown[-_PROBE:]
        start, end = rest.find(head), rest.rfind(tail)
        header = rest[:start] if start >= 0 else ""
        footer = rest[end + len(tail) :] if end >= 0 else ""
        text = f"{notice}\n{header}{shown}{footer}"
    elif shown and shown not in model:
        text = f"{model}\n{shown}" if model else shown
    else:
        text = model
    if not text.strip():
        if status(call) not in FAILED:
            return []
        text = ""
    failed = status(call) in FAILED or _exit_failed(model)
    parts = split_output(text)
    out: list[str | Labelled] = []
    for number, part in enumerate(parts):
        label = f"[part {number + 1} of {len(parts)}] " if len(parts) > 1 else ""
        if failed:
            label = "[error] " + label
        out.append(labelled(label, part) if label else part)
    return out


def status(call: Mapping[str, Any]) -> str | None:
    """A call's status when it is a string (a newer or damaged record may hold anything)."""
    found = call.get("status")
    return found if isinstance(found, str) else None


def _exit_failed(model: str) -> bool:
    """Whether the output's last `Exit Code: N` line says N is not 0."""
    codes = _EXIT.findall(model)
    return bool(codes) and codes[-1] != "0"
