"""Copilot CLI's `session-state/<id>/workspace.yaml`: the session's name, cwd and branch.

Copilot rewrites the file in place as the session goes on, so it is read whole (a `whole` kind)
and each version is a line of its row log. Its `name` is what Copilot lists the session under:
the first prompt (cut with `...` when long) until the user renames the session
(`user_named: true`), which then wins over any other title; an older `summary` key (a generated
description) ranks between the two. The branch is not a session fact in Origin: the events
carry it, from `session.start`'s context.

The YAML is a flat mapping of scalars (`key: value`); the few YAML forms a writer may use for a
scalar (quoted, folded, block) are read here rather than with a YAML library the project does
not depend on.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from ...model import ParseProblem, Record, SessionFact
from ..base import FILE_TABLE, nonempty_str, row_parser, safe_time

NAME = "copilot"

#: A name the user gave (`/rename`) beats a generated summary, which beats the first prompt
#: Copilot names a session by until then.
USER_NAMED_RANK = 30
SUMMARY_RANK = 20
NAME_RANK = 10

_KEY = re.compile(r"([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$")
_BLOCK = re.compile(r"([|>])([+-]?)([1-9]?)([+-]?)[ \t]*(#.*)?$")
_DOUBLE_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}


def start(relpath: str) -> dict[str, Any]:
    """The directory names the session, should the file not."""
    parts = PurePosixPath(relpath).parts
    return {"sid": parts[-2] if len(parts) >= 2 else "unknown"}


@row_parser
def parse(table: str, key: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """One version of the file: the session's cwd and title as facts (no event: every word of it
    is in the session's events too)."""
    text = row.get("text")
    if table != FILE_TABLE or not isinstance(text, str):
        return []
    values = read_mapping(text)
    if values is None:
        return [ParseProblem("bad-yaml", "workspace.yaml is not a mapping of scalars")]
    sid = nonempty_str(state.get("sid")) or nonempty_str(values.get("id")) or "unknown"
    time = safe_time(row.get("mtime_ms")) or safe_time(values.get("updated_at"))
    cwd = nonempty_str(values.get("cwd")) or nonempty_str(values.get("git_root"))
    out: list[Record] = [SessionFact(sid, NAME, cwd=cwd, time=time)] if cwd else []
    name = _clean(values.get("name"))
    if name is not None:
        rank = USER_NAMED_RANK if values.get("user_named") == "true" else NAME_RANK
        out.append(SessionFact(sid, NAME, title=name, title_rank=rank, time=time))
    summary = _clean(values.get("summary"))
    if summary is not None:
        out.append(SessionFact(sid, NAME, title=summary, title_rank=SUMMARY_RANK, time=time))
    return out


def _clean(value: str | None) -> str | None:
    """A title as one line: a long name is folded over lines by the writer."""
    if value is None:
        return None
    return " ".join(value.split()) or None


def read_mapping(text: str) -> dict[str, str] | None:
    """The top-level `key: scalar` pairs of a small YAML document, each value as its text
    (`true`, `0` and `null` stay words: the caller knows what it expects). Nested mappings and
    lists are skipped; None when the text has no key at all or is not YAML of this shape."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    values: dict[str, str] = {}
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.strip() or line.lstrip().startswith("#") or line.startswith(("---", "...")):
            continue
        if line[0] in " \t-":
            continue  # inside something nested, which no field read here is
        match = _KEY.match(line)
        if match is None:
            return None
        key, head = match.group(1), (match.group(2) or "").strip()
        more: list[str] = []
        while index < len(lines) and (not lines[index].strip() or lines[index][0] in " \t"):
            more.append(lines[index])
            index += 1
        value = _scalar(head, more)
        if value is not None:
            values[key] = value
    return values or None


def _scalar(head: str, more: list[str]) -> str | None:
    """A value from its first line's text and its indented continuation lines."""
    if head.startswith("'"):
        return _single(_fold([head, *more])[1:])
    if head.startswith('"'):
        return _double("\n".join([head, *more])[1:])
    block = _BLOCK.match(head)
    if block is not None:
        return _block(block.group(1), block.group(2) or block.group(4), more)
    if not head and any(line.strip() for line in more):
        return None  # a nested mapping or list
    plain = _fold([head, *more])
    cut = re.search(r"[ \t]#", plain)
    return (plain[: cut.start()] if cut else plain).strip()


def _fold(lines: list[str]) -> str:
    """Flow folding: lines joined by a space, an empty line a line break."""
    out = ""
    pending_breaks = 0
    for number, raw in enumerate(lines):
        line = raw.strip() if number else raw.rstrip()
        if not line:
            pending_breaks += 1
            continue
        if number and out:
            out += "\n" * pending_breaks if pending_breaks else " "
        out += line
        pending_breaks = 0
    return out


def _single(body: str) -> str | None:
    end = 0
    while True:
        end = body.find("'", end)
        if end < 0:
            return None  # unterminated
        if body[end + 1 : end + 2] == "'":
            end += 2
            continue
        return body[:end].replace("''", "'")


def _double(body: str) -> str | None:
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char == '"':
            return "".join(out)
        if char == "\n":  # a line break folds: a space, or the breaks of the empty lines
            while out and out[-1] in (" ", "\t"):
                out.pop()
            breaks = 0
            index += 1
            while index < len(body) and body[index] in " \t\n":
                breaks += body[index] == "\n"
                index += 1
            out.append("\n" * breaks if breaks else " ")
            continue
        if char == "\\":
            following = body[index + 1 : index + 2]
            if following == "\n":  # an escaped line break joins the lines
                index += 2
                while index < len(body) and body[index] in " \t":
                    index += 1
                continue
            width = {"x": 2, "u": 4, "U": 8}.get(following)
            if width is not None:
                digits = body[index + 2 : index + 2 + width]
                if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                    return None
                code = int(digits, 16)
                if code > 0x10FFFF:
                    return None
                out.append(chr(code))
                index += 2 + width
                continue
            if following not in _DOUBLE_ESCAPES:
                return None
            out.append(_DOUBLE_ESCAPES[following])
            index += 2
            continue
        out.append(char)
        index += 1
    return None  # unterminated


def _block(style: str, chomp: str, more: list[str]) -> str:
    """A `|` (kept lines) or `>` (folded) block scalar under its key."""
    body = list(more)
    while body and not body[-1].strip():
        body.pop()
    trailing = len(more) - len(body)
    indents = [len(line) - len(line.lstrip(" ")) for line in body if line.strip()]
    indent = min(indents) if indents else 0
    lines = [line[indent:] for line in body]
    if style == "|":
        text = "\n".join(lines)
    else:
        text = ""
        for number, line in enumerate(lines):
            if number:
                previous = lines[number - 1]
                literal = line.startswith((" ", "\t")) or previous.startswith((" ", "\t"))
                if literal or not line:
                    text += "\n"  # a kept break, or an empty line's
                elif previous:
                    text += " "  # a break between two lines folds to a space
            text += line
    if not body or chomp == "-":
        return text
    return text + ("\n" * (trailing + 1) if chomp == "+" else "\n")
