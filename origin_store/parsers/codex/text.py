"""Codex texts as Origin keeps them: content items, tool arguments and outputs, and the
one-line markers of a session's start and a turn's context (values the log's, names Origin's)."""

from __future__ import annotations

import re
from typing import Any

import orjson

from ..base import Labelled, Words, compact_json, image_placeholder, nonempty_str


def session_start(
    payload: dict[str, Any],
    source: object,
    spawn: dict[str, Any],
    parent: str | None,
    cwd: str | None,
) -> Labelled | str:
    """A one-line marker of how a session was started; base_instructions are never indexed.
    Values are the log's words, the names Origin gives them are its own (the label)."""
    words = Words().origin("session start: ")
    items = 0

    def item() -> Words:
        nonlocal items
        items += 1
        return words.sep(", ") if items > 1 else words

    for value in (
        nonempty_str(payload.get("originator")),
        nonempty_str(payload.get("cli_version")),
    ):
        if value:
            item().log(value)
    if isinstance(source, str) and source:
        item().origin("source ").log(source)
    elif spawn or parent:
        item().origin("subagent of " if parent else "subagent").log(parent or "")
        names = [
            value
            for value in (
                nonempty_str(payload.get("agent_nickname"))
                or nonempty_str(spawn.get("agent_nickname")),
                nonempty_str(payload.get("agent_role")) or nonempty_str(spawn.get("agent_role")),
            )
            if value
        ]
        if names:
            words.sep(" (").log(", ".join(names)).sep(")")
    if cwd is not None:
        item().origin("cwd ").log(cwd)
    return words.build()


def turn_summary(payload: dict[str, Any]) -> Labelled | str | None:
    """The model and permissions in force for a turn, the part of turn_context worth keeping:
    the values are the log's words, their names Origin's."""
    parts: list[tuple[str, str]] = []
    model = nonempty_str(payload.get("model"))
    if model:
        effort = nonempty_str(payload.get("effort"))
        parts.append(("model ", model + (f" ({effort})" if effort else "")))
    approval = nonempty_str(payload.get("approval_policy"))
    if approval:
        parts.append(("approval ", approval))
    sandbox = payload.get("sandbox_policy")
    mode = nonempty_str(sandbox.get("type")) if isinstance(sandbox, dict) else None
    if mode:
        parts.append(("sandbox ", mode))
    cwd = nonempty_str(payload.get("cwd"))
    if cwd:
        parts.append(("cwd ", cwd))
    if not parts:
        return None
    words = Words().origin("turn: ")
    for number, (name, value) in enumerate(parts):
        if number:
            words.sep(", ")
        words.origin(name).log(value)
    return words.build()


def content_text(content: object) -> str:
    """Text of a content-item list (input_text / output_text / summary_text / input_image)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for item in content:
        if not isinstance(item, dict):
            continue
        itype = item.get("type")
        if itype in ("input_image", "image"):
            parts.append(image_text(item.get("image_url")))
        elif isinstance(item.get("text"), str) and item["text"]:
            parts.append(item["text"])
    return "\n".join(parts)


def image_text(url: object) -> str:
    if not isinstance(url, str) or not url:
        return "[image]"
    if url.startswith("data:"):
        header, _, data = url.partition(",")
        media_type = header[len("data:") :].split(";", 1)[0] or None
        return image_placeholder(media_type, len(data))
    return f"[image {url}]" if len(url) <= 500 else "[image]"


def tool_name(payload: dict[str, Any]) -> str:
    """A function call's tool as Claude Code names it: an MCP tool is `mcp__<server>__<tool>`,
    which Codex 0.17x writes as `namespace` (`mcp__origin`) beside `name` (`search`), so
    searching for the server's name finds the calls of both agents."""
    name = nonempty_str(payload.get("name")) or "function"
    namespace = nonempty_str(payload.get("namespace"))
    if namespace is None or name.startswith(namespace):
        return name
    return f"{namespace}{'' if namespace.endswith('__') else '__'}{name}"


def arguments_text(arguments: object) -> str:
    """Function arguments are a JSON string; re-dump them compactly when they parse."""
    if isinstance(arguments, str):
        try:
            return compact_json(orjson.loads(arguments))
        except orjson.JSONDecodeError:
            return arguments
    return compact_json(arguments)


def output_text(output: object) -> tuple[str, str]:
    """Tool output: plain text, a content-item list, or a JSON string {output, metadata}; with
    Origin's marks of a failure (`[error] `, `[error: exit code N] `), which go in the label."""
    if isinstance(output, list):
        return "", content_text(output)
    if isinstance(output, dict):
        inner = output.get("content", output.get("output"))
        marks, text = output_text(inner) if isinstance(inner, str | list) else ("", "")
        if output.get("success") is False:
            marks = f"[error] {marks}"
        return marks, text
    if not isinstance(output, str):
        return "", ""
    if not output.lstrip().startswith("{"):
        return _exit_mark(output), output
    try:
        wrapped = orjson.loads(output)
    except orjson.JSONDecodeError:
        return "", output
    if not isinstance(wrapped, dict) or not isinstance(wrapped.get("output"), str):
        return "", output
    text = wrapped["output"]
    metadata = wrapped.get("metadata")
    code = metadata.get("exit_code") if isinstance(metadata, dict) else None
    if isinstance(code, int) and not isinstance(code, bool) and code != 0:
        return f"[error: exit code {code}] ", text
    return "", text


#: The header Codex 0.13x and later put before a shell command's output, as plain text.
_EXIT_HEADER = re.compile(
    r"(?:[A-Z][A-Za-z ]{0,40}: [^\n]*\n){0,4}Process exited with code (-?\d+)\n"
)


def _exit_mark(output: str) -> str:
    """`[error] ` for a shell output whose header says the command failed, as Claude Code's
    `is_error` is marked (the header, `Process exited with code N`, stays the log's words)."""
    if "Process exited with code" not in output[:400]:
        return ""
    found = _EXIT_HEADER.match(output)
    return "[error] " if found is not None and int(found.group(1)) != 0 else ""
