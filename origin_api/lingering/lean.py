"""`origin search …` and `origin get ID` without typer and rich: their options (one table,
which the typer command is built from too), their parse, their answer, and how a hit, an entry
and an event read as plain text; answered here in a fresh process (`run`) or by a running one
(`server.py`), with the same bytes.

People and scripts run these in fresh processes, where importing typer and rich cost more than
the answer (0.6 s against 30 ms). Their few options are read here by hand; anything else (help,
an option this does not know, a value typer would have to convert or reject, an error to report)
is left to the typer app, which answers it as it always did. The text is written here, with plain
prints, so that people get it as quickly as scripts get JSON; the typer commands print the same
text. Plain text is never wrapped, so an id or a command stays on one line in a pipe or a file.
A search's words may come quoted or not (`origin search rate limiter`), before or after its
options: they are joined with spaces, as the typer command joins them.
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Any, NamedTuple

from origin_store.model import ENTRY_KINDS

if TYPE_CHECKING:  # the shapes only: a fresh command imports no more than it needs
    from ..service.shapes import EntryView, EventView, GetResult, SearchResult

#: The entry kinds as help text says them: "memory, knowledge or cognition".
KINDS = (
    f"{', '.join(ENTRY_KINDS[:-1])} or {ENTRY_KINDS[-1]}"
    if len(ENTRY_KINDS) > 1
    else ENTRY_KINDS[0]
)
JSON_HELP = "Print the tool's JSON result."
TIME_HELP = "30m, 24h, 7d, 2w (back from now), a date or ISO 8601."


class Option(NamedTuple):
    """An option of `origin search`. Its default says how it is read: a flag when a bool (no
    value), an integer when an int, text otherwise (None: the tool's own default)."""

    flag: str
    default: str | int | bool | None
    help: str

    @property
    def key(self) -> str:
        """The argument's name: the typer command's parameter and the tool's argument."""
        return self.flag[2:].replace("-", "_")


#: `origin search`'s options, in the order its help lists them: both its parsers, this module's
#: and the typer command's (`cli/memory_cmds.py`), are built from this table.
SEARCH_OPTIONS = (
    Option("--scope", "all", "all, entries or events."),
    Option("--kind", None, f"Entries of this kind only: {KINDS}."),
    Option("--since", None, f"Since: {TIME_HELP}"),
    Option("--until", None, f"Until: {TIME_HELP}"),
    Option("--source", None, "Events of this source only (claude-code, codex, …)."),
    Option("--project", None, "Entries and events of this project only."),
    Option("--include-tools", False, "Also search tool calls and results."),
    Option("--limit", 20, "At most this many entries, and this many events (1–100)."),
    Option("--json", False, JSON_HELP),
)
#: The option that chooses the output, not the search.
JSON = "json"
_BY_FLAG = {option.flag: option for option in SEARCH_OPTIONS}
_INTEGER = re.compile(r"-?[0-9]+")


def parse(args: list[str]) -> tuple[str, dict[str, Any], bool] | None:
    """The tool, its arguments as the typer command would call it, and whether JSON is asked
    for; None to leave the command to typer."""
    if not args:
        return None
    command, rest = args[0], args[1:]
    if command == "get":
        flags = [arg for arg in rest if arg.startswith("-")]
        ids = [arg for arg in rest if not arg.startswith("-")]
        if len(ids) != 1 or flags not in ([], ["--json"]):
            return None
        return "get", {"id": ids[0]}, bool(flags)
    if command == "search":
        return _search(rest)
    return None


def _search(rest: list[str]) -> tuple[str, dict[str, Any], bool] | None:
    options: dict[str, Any] = {}
    positional: list[str] = []
    i = 0
    while i < len(rest):
        arg = rest[i]
        i += 1
        if not arg.startswith("-") or arg == "-":
            if arg == "-":
                return None
            positional.append(arg)
            continue
        name, eq, value = arg.partition("=")
        option = _BY_FLAG.get(name)
        flag = option is not None and isinstance(option.default, bool)
        if option is None or (flag and eq):
            return None  # --help, `--`, an option this does not know: typer's to answer
        if not (flag or eq):
            if i >= len(rest) or rest[i].startswith("-"):
                return None
            value = rest[i]
            i += 1
        if option.key in options:
            return None
        options[option.key] = True if flag else value
    if not positional:
        return None  # typer says a query is missing
    as_json = bool(options.pop(JSON, False))
    found = _typed(" ".join(positional), options)
    return None if found is None else ("search", found, as_json)


def _typed(query: str, given: dict[str, Any]) -> dict[str, Any] | None:
    """The search's arguments: the table's defaults under what was given, integers read; None
    for a value typer would convert or reject."""
    args: dict[str, Any] = {"query": query}
    for option in SEARCH_OPTIONS:
        value = given.get(option.key, option.default)
        if option.key == JSON or value is None:
            continue
        if type(option.default) is int and isinstance(value, str):
            if not _INTEGER.fullmatch(value):
                return None
            value = int(value)
        args[option.key] = value
    return args


def run(args: list[str]) -> bool:
    """Answer a lean command; False when typer should (nothing was printed then). The layers'
    errors (an unknown id, a bad value, a filter that names nothing, no archive) leave it for
    the CLI's edge (`cli.main`), which says them as typer's commands do, "error: …" and exit
    code 2, without the half second typer and rich would cost first."""
    parsed = parse(args)
    if parsed is None:
        return False
    from ..runtime import Origin

    with Origin.open(existing=True) as origin:
        out, note = answer(origin, parsed)
    if note:
        sys.stderr.write(note)
    sys.stdout.write(out)
    sys.stdout.flush()
    return True


def answer(origin: Any, parsed: tuple[str, dict[str, Any], bool]) -> tuple[str, str]:
    """What the command prints on stdout and on stderr, over an open Origin (this process's,
    or a running one's for a fresh command: `server.py`). Raises the layers' errors."""
    import orjson

    from ..service import Caller, device_call

    tool, tool_args, as_json = parsed
    caller = Caller("user", origin.settings.device)
    result, note = device_call(origin, tool, tool_args, caller)
    if tool == "search" and not result["entries"] and not result["events"]:
        from .names import check_filters

        check_filters(origin, tool_args.get("source"), tool_args.get("project"))
    if as_json:
        out = orjson.dumps(result, option=orjson.OPT_INDENT_2).decode() + "\n"
    else:
        out = "\n".join(get_lines(result) if tool == "get" else search_lines(result)) + "\n"
    return out, (note + "\n" if note else "")


def errors() -> tuple[type[Exception], ...]:
    """The errors the commands turn into messages: a running process declines them, and the
    command meets them again in its own process, where the CLI's edge says them."""
    from origin_search import SearchError
    from origin_store import StoreError

    from ..errors import OriginError

    return (OriginError, StoreError, SearchError)


# How results read as text. Times are shown as the tools render them.


def plural(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def indent(text: str | None, prefix: str = "  ") -> list[str]:
    return [prefix + line if line else "" for line in (text or "").splitlines()]


def joined(*parts: str | None) -> str:
    return " · ".join(part for part in parts if part)


def event_head(event: EventView) -> str:
    """An event's first line: its id, then when, who and what."""
    return f"{event['id']}  " + joined(event["time"], f"{event['role']} {event['kind']}")


def entry_lines(entry: EntryView) -> list[str]:
    """An entry: id and standing, its statement, then where it stands in its history."""
    standing = "superseded (concurrent)" if entry.get("concurrent") else entry["status"]
    head = joined(entry["kind"], standing, f"confidence {entry['confidence']:g}")
    facts = joined(
        f"by {entry['author']}",
        entry["created"],
        entry.get("project") and f"project {entry['project']}",
        entry.get("valid_from") and f"valid from {entry['valid_from']}",
        entry.get("valid_to") and f"valid to {entry['valid_to']}",
        entry.get("supersedes") and f"supersedes {entry['supersedes']}",
        entry.get("superseded_by") and f"superseded by {entry['superseded_by']}",
        "imported from an agent's memory file" if entry.get("imported") else None,
    )
    return [f"{entry['id']}  {head}", *indent(entry["text"]), f"  {facts}"]


def search_lines(result: SearchResult) -> list[str]:
    """`search`'s answer: entries, then events with the snippet around the match (the matched
    words in [brackets]) and the session it is in, as `origin timeline --session` takes it."""
    lines: list[str] = []
    for entry in result["entries"]:
        lines.append(f"{entry['id']}  " + joined(entry["kind"], entry["created"], entry["author"]))
        lines += indent(entry["text"])
    for event in result["events"]:
        about = joined(
            event["time"], event["source"], event["project"], f"{event['role']} {event['kind']}"
        )
        lines.append(f"{event['id']}  {about}")
        lines += indent(event["snippet"] or event["text"])
        lines.append(f"  session {event['session']}")
    if not lines:
        return ["nothing found"]
    if result["events"]:
        lines.append(
            "a session: origin timeline --session SESSION (its events), "
            "origin continue SESSION (resume it in its agent)"
        )
    return lines


def get_lines(result: GetResult) -> list[str]:
    """`get`'s answer: an entry with its sources and history, or an event with its whole text."""
    if "entry" not in result:
        context = joined(
            result["source"],
            result.get("project") and f"project {result['project']}",
            f"session {result['session']}",
        )
        where = joined(
            result.get("cwd") and f"cwd {result['cwd']}",
            result.get("git_branch") and f"branch {result['git_branch']}",
            result.get("agent_version") and f"agent {result['agent_version']}",
        )
        return [event_head(result), f"  {context}", *([f"  {where}"] if where else [])] + [
            "",
            *(result["text"] or "").splitlines(),
        ]
    lines = entry_lines(result["entry"])
    lines += ["", f"sources ({len(result['sources']):,}):"]
    for source in result["sources"]:
        lines.append(f"  {event_head(source)}")
        if source.get("quote"):
            lines.append(f'    quote "{source["quote"]}"')
        lines += indent(source["text"], "    ")
    versions = plural(len(result["history"]), "version", "versions")
    lines += ["", f"history ({versions}, oldest first):"]
    for version in result["history"]:
        lines.append(
            f"  {version['id']}  "
            + joined(version["status"], f"by {version['author']}", version["created"])
        )
    return lines
