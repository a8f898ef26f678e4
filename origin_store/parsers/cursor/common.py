"""What Cursor's three stores share: the source's name and title ranks, the user's words inside
the harness's wrappers, workspace URIs as paths, message parts and tool outputs as event texts,
and row values as JSON. Layout and field notes: research/formats.md §3."""

from __future__ import annotations

import base64
import re
from typing import Any
from urllib.parse import unquote, urlsplit

import orjson

from ...model import ParseProblem
from ..base import Labelled, compact_json, image_placeholder, labelled, load_object, nonempty_str

NAME = "cursor"

#: A chat's name (the IDE's composer `name`, the CLI's `meta.json` title, a legacy tab title):
#: Cursor writes it itself and the user may rename it; nothing tells the two apart.
TITLE_RANK = 20
#: The CLI store's own `name`, below `meta.json`'s title, which newer versions keep current.
STORE_NAME_RANK = 15

#: (block index, role, kind, text): what `build_events` takes.
Event = tuple[int, str, str, str | Labelled]

_INFO = re.compile(r"<user_info>(.*?)(?:</user_info>|\Z)", re.DOTALL)
_QUERY = re.compile(r"<user_query>(.*?)(?:</user_query>|\Z)", re.DOTALL)
_WORKSPACE = re.compile(r"^\s*Workspace(?: Path)?:[ \t]*(\S[^\n]*?)[ \t]*$", re.MULTILINE)
_DRIVE = re.compile(r"^/?[A-Za-z]:[\\/]")

#: Fields of a tool's output object that hold its text, most telling first.
_OUTPUT_FIELDS = ("output", "contents", "content", "text", "stdout", "result", "message")
#: A message's text by its role: (role, kind); a tool message's text is the tool's output.
_MESSAGE = {
    "user": ("user", "message"),
    "assistant": ("assistant", "message"),
    "system": ("system", "system"),
    "tool": ("system", "tool_result"),
}
#: How deep a tool output's strings are looked for: outputs are shallow, hostile input is not.
_LEAF_DEPTH = 12


def user_words(text: str) -> tuple[str, str | None]:
    """The user's own words in a message the harness wrapped, and the workspace it names.

    `<user_query>` holds what was typed; `<user_info>` is the harness's note about the machine
    (its `Workspace Path:` line is the chat's cwd). A message without a query is the user's
    words once the note is taken out."""
    workspace = None
    for info in _INFO.finditer(text):
        found = _WORKSPACE.search(info.group(1))
        if found is not None:
            workspace = found.group(1)
            break
    queries = [query.strip() for query in _QUERY.findall(text)]
    if queries:
        return "\n\n".join(query for query in queries if query), workspace
    return _INFO.sub("", text).strip(), workspace


def folder_path(uri: object) -> str | None:
    """A workspace folder's path from Cursor's URI (`file:///home/dev/%E6%96%87`, a remote
    `vscode-remote://ssh-remote+host/srv/app`) or a plain path; None for anything else."""
    text = nonempty_str(uri)
    if text is None:
        return None
    if _DRIVE.match(text) and "://" not in text:
        return text
    parts = urlsplit(text)
    if parts.scheme == "file" or parts.scheme.startswith("vscode-remote"):
        path = unquote(parts.path)
    elif not parts.scheme and text.startswith("/"):
        path = text
    else:
        return None
    if _DRIVE.match(path):
        path = path[1:] if path.startswith("/") else path  # file:///c%3A/Users/… → c:/Users/…
    return path or None


def row_json(value: object) -> dict[str, Any] | ParseProblem | None:
    """A row column holding JSON (text, or `{"base64": …}` when it was not UTF-8) as an object;
    None for SQL NULL, JSON `null` and nothing, a ParseProblem when it is not an object."""
    if value is None:
        return None
    if isinstance(value, dict):
        encoded = value.get("base64")
        if not isinstance(encoded, str):
            return ParseProblem("bad-field", "a row value is neither text nor base64")
        try:
            data = base64.b64decode(encoded, validate=True)
        except ValueError:
            return ParseProblem("bad-field", "a row value's base64 does not decode")
    elif isinstance(value, str):
        data = value.encode("utf-8", "replace")
    else:
        return ParseProblem("not-an-object", type(value).__name__)
    if data.strip() == b"null":
        return None
    return load_object(data)


def json_text(value: object) -> object:
    """A value that may be a JSON document in a string (Cursor keeps tool arguments and results
    so), decoded; any other value as it is."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return orjson.loads(value)
        except orjson.JSONDecodeError:
            return value
    return value


def arguments_text(value: object) -> str:
    """A tool's arguments as one searchable line."""
    decoded = json_text(value)
    if decoded is None or decoded == "":
        return ""
    return decoded if isinstance(decoded, str) else compact_json(decoded)


def output_text(value: object) -> str:
    """A tool's output as text: a string as it is; an object's text field; otherwise the strings
    it holds, one a line (a diff's chunks, a file list), or its JSON when it holds none."""
    decoded = json_text(value)
    if decoded is None:
        return ""
    if isinstance(decoded, str):
        return decoded
    if isinstance(decoded, dict):
        for field in _OUTPUT_FIELDS:
            text = nonempty_str(decoded.get(field))
            if text is not None:
                return text
    leaves = _string_leaves(decoded)
    return "\n".join(leaves) if leaves else compact_json(decoded)


def exit_code(value: object) -> int | None:
    """A command's exit code when its output object gives one."""
    decoded = json_text(value)
    if not isinstance(decoded, dict):
        return None
    for field in ("exitCode", "exit_code"):
        code = decoded.get(field)
        if isinstance(code, int) and not isinstance(code, bool):
            return code
    return None


def _string_leaves(value: object) -> list[str]:
    """Non-empty strings in a JSON value, in document order, to a bounded depth."""
    out: list[str] = []
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if item.strip():
                out.append(item)
        elif depth < _LEAF_DEPTH and isinstance(item, dict | list):
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in reversed(list(children)))
    return out


def content_events(content: object, role: str) -> tuple[list[Event], str | None]:
    """The events of one message's content (a string, or parts in the AI SDK's or Anthropic's
    shape), and the workspace its harness note names. Adjacent text parts form one message;
    a user's message keeps only the user's words; a message of an unknown role gives none."""
    if isinstance(content, str):
        content = [{"type": "text", "text": content}]
    if not isinstance(content, list) or role not in _MESSAGE:
        return [], None
    events: list[Event] = []
    texts: list[str] = []
    first = 0
    workspace: str | None = None

    def flush() -> None:
        nonlocal workspace
        text = "\n".join(part for part in texts if part)
        texts.clear()
        if role == "user":
            text, named = user_words(text)
            workspace = workspace or named
        if text.strip():
            events.append((first, *_MESSAGE[role], text))

    for index, part in enumerate(content):
        if not isinstance(part, dict):
            continue
        kind, text = _part(part)
        if kind == "message":
            if not texts:
                first = index
            texts.append(text if isinstance(text, str) else "")
            continue
        flush()
        if kind and (not isinstance(text, str) or text.strip()):
            events.append((index, "system" if kind == "tool_result" else "assistant", kind, text))
    flush()
    return events, workspace


def _part(part: dict[str, Any]) -> tuple[str, str | Labelled]:
    """One content part as (kind, text); kind "" for a part that is not kept."""
    ptype = part.get("type")
    if ptype == "text":
        return "message", nonempty_str(part.get("text")) or ""
    if ptype == "image":
        return "message", _image(part)
    if ptype in ("reasoning", "thinking"):
        return "meta", nonempty_str(part.get("text")) or nonempty_str(part.get("thinking")) or ""
    if ptype in ("tool-call", "tool_use"):
        name = nonempty_str(part.get("toolName")) or nonempty_str(part.get("name")) or "tool"
        args = arguments_text(part.get("args", part.get("input")))
        return "tool_use", f"{name} {args}" if args else name
    if ptype in ("tool-result", "tool_result"):
        found = next((part[key] for key in ("result", "output", "content") if key in part), None)
        text = _blocks_text(found) if isinstance(found, list) else output_text(found)
        if part.get("is_error") is True or part.get("isError") is True:
            return "tool_result", labelled("[error] ", text)
        return "tool_result", text
    return "", ""


def _blocks_text(blocks: list[Any]) -> str:
    """A tool result given as content blocks: their text, images as placeholders."""
    parts = []
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "image":
            parts.append(_image(block))
        elif isinstance(block, dict) and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, str):
            parts.append(block)
    return "\n".join(parts) if parts else compact_json(blocks)


def _image(part: dict[str, Any]) -> str:
    """An image part's stand-in: its type and size, never its base64."""
    source = part.get("source")
    data = source.get("data") if isinstance(source, dict) else part.get("image")
    media_type = nonempty_str(source.get("media_type")) if isinstance(source, dict) else None
    media_type = media_type or nonempty_str(part.get("mimeType"))
    if isinstance(data, str):
        return image_placeholder(media_type, len(data))
    return f"[image {media_type}]" if media_type else "[image]"
