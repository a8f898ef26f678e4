"""What a tool call is, read from its event text: `<tool name> <arguments>`, the arguments
compact JSON as every parser writes them (`base.compact_json`), or the tool's own text (Codex's
`apply_patch`, a custom tool).

Three kinds of call are shown as a person knows them: a shell command (Claude Code's `Bash`,
Codex's `exec_command`, `shell` and `local_shell`, Cursor's `run_terminal_cmd` and `Shell`,
Grok's `run_terminal_command` and `bash`, zcode's and OpenCode's `bash`) as the command; a file
edit or write (`Edit`, `MultiEdit`, `Write`, `edit_file`, `write_file`, zcode's and OpenCode's
`edit` and `write`, Codex's and OpenCode's `apply_patch`) as a diff; anything else as its
arguments, each string shown as the text it is (the JSON's `\\n` escapes undone). A text cut to
the page's length is read as far as it goes.
Gemini CLI's `run_shell_command` is a command (its `dir_path` where it ran), its `replace` an edit.
"""

from __future__ import annotations

import difflib
import shlex
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from origin_store.textclip import uncut

#: Tool names (folded to lower case) whose call runs a shell command.
SHELL_TOOLS = frozenset(
    {
        "bash",
        "shell",
        "exec_command",
        "local_shell",
        "run_terminal_cmd",
        "run_terminal_command",
        "run_shell_command",
        "terminal",
        "powershell",  # Copilot CLI on Windows
    }
)
#: Tool names (lower case) whose call edits or writes a file.
EDIT_TOOLS = frozenset(
    {"edit", "multiedit", "write", "edit_file", "write_file", "str_replace_editor", "create_file"}
    | {"replace"}  # Gemini CLI's edit
    | {"create"}  # Copilot CLI's new file (its `edit` takes `old_str`/`new_str`)
)
PATCH_TOOLS = frozenset({"apply_patch"})
_PATH_KEYS = ("file_path", "filePath", "path", "target_file", "file")
_OLD_KEYS = ("old_string", "oldString", "old", "old_str")
_NEW_KEYS = ("new_string", "newString", "new", "new_str")
_CONTENT_KEYS = ("content", "contents", "file_text", "text")
#: Shells whose `-c`/`-lc` wrapper is taken off a command given as a list.
_SHELLS = frozenset({"bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash"})


@dataclass(frozen=True)
class Call:
    """A tool call as read from its event: its name, its arguments when they are a JSON object
    (`args`), else its text after the name (`rest`); `cut` when the event text was cut."""

    name: str
    args: dict[str, Any] | None
    rest: str
    cut: bool = False
    command: str | None = None
    workdir: str | None = None
    path: str | None = None
    diff: str | None = None
    fields: list[tuple[str, str]] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """`command`, `edit` or `call`."""
        if self.command is not None:
            return "command"
        if self.diff is not None:
            return "edit"
        return "call"


def read_call(text: str) -> Call:
    """A tool_use event's text as a call (never fails: what cannot be read stays text)."""
    kept = uncut(text)
    cut = kept != text
    name, _, rest = kept.partition(" ")
    if not rest and "\n" in name:
        name, _, rest = kept.partition("\n")
    args = _object(rest, cut)
    lower = name.lower()
    base = Call(name=name, args=args, rest=rest, cut=cut)
    if lower in PATCH_TOOLS or (lower == "custom_tool" and rest.startswith("*** Begin Patch")):
        named = ("input", "patch", "patchText")  # Codex's, then OpenCode's `patchText`
        patch = rest if args is None else str(next(filter(None, map(args.get, named)), rest))
        return _with(base, diff=patch.strip("\n"))
    if args is None:
        return base
    if lower in SHELL_TOOLS:
        command = _command(args)
        if command is not None:
            workdir = _text(args, ("workdir", "cwd", "working_directory", "directory", "dir_path"))
            return _with(base, command=command, workdir=workdir)
    if lower in EDIT_TOOLS:
        edited = _edit(args)
        if edited is not None:
            path, diff = edited
            return _with(base, path=path, diff=diff)
    return _with(base, fields=_fields(args))


def _with(call: Call, **changes: Any) -> Call:
    return replace(call, **changes)


def _object(rest: str, cut: bool) -> dict[str, Any] | None:
    """The arguments as a JSON object; for a text cut short, the object as far as it goes
    (closing an open string, list or object), since a long Write is cut on the page."""
    stripped = rest.strip()
    if not stripped.startswith("{"):
        return None
    tries = [stripped]
    if cut:
        body = stripped[:-1] if _odd_backslashes(stripped) else stripped
        tries += [body + closer for closer in ('"}', "}", '"]}', "]}", '"}]}', '""}', '"}}')]
    for attempt in tries:
        try:
            found = orjson.loads(attempt)
        except orjson.JSONDecodeError:
            continue
        return found if isinstance(found, dict) else None
    return None


def _odd_backslashes(text: str) -> bool:
    return (len(text) - len(text.rstrip("\\"))) % 2 == 1


def _text(args: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str):
            return value
    return None


def _command(args: dict[str, Any]) -> str | None:
    """The command line: a string as it is, a list joined as a shell would read it, with a
    `bash -lc "…"` wrapper taken off; Codex's `local_shell` nests it in `command` of `action`."""
    value = args.get("command", args.get("cmd"))
    if value is None and isinstance(args.get("action"), dict):
        value = args["action"].get("command")
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(word, str) for word in value):
        if len(value) == 3 and value[0] in _SHELLS and value[1] in ("-c", "-lc"):
            return str(value[2])
        return shlex.join(value)
    return None


def _edit(args: dict[str, Any]) -> tuple[str, str] | None:
    """(path, unified diff) of an edit (old → new, or each of MultiEdit's `edits`) or of a
    write (nothing → the content)."""
    path = _text(args, _PATH_KEYS) or "file"
    edits = args.get("edits")
    if isinstance(edits, list):
        pairs = [
            (_text(edit, _OLD_KEYS) or "", _text(edit, _NEW_KEYS) or "")
            for edit in edits
            if isinstance(edit, dict)
        ]
        if pairs:
            return path, "\n".join(unified(path, old, new) for old, new in pairs)
    old, new = _text(args, _OLD_KEYS), _text(args, _NEW_KEYS)
    if old is not None or new is not None:
        return path, unified(path, old or "", new or "")
    content = _text(args, _CONTENT_KEYS)
    if content is not None:
        return path, unified(path, "", content, created=True)
    return None


def unified(path: str, old: str, new: str, *, created: bool = False) -> str:
    """A unified diff of one change to `path` (difflib's, without the trailing blanks)."""
    lines = difflib.unified_diff(
        old.splitlines(),
        new.splitlines(),
        fromfile="/dev/null" if created else path,
        tofile=path,
        lineterm="",
        n=3,
    )
    return "\n".join(lines)


def _fields(args: dict[str, Any]) -> list[tuple[str, str]]:
    """Each argument as (name, text): a string as it is, anything else as indented JSON."""
    out: list[tuple[str, str]] = []
    for key, value in args.items():
        if isinstance(value, str):
            out.append((str(key), value))
        else:
            shown = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
            out.append((str(key), shown))
    return out
