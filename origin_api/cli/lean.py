"""`origin search --json …` and `origin get ID` without typer and rich.

Scripts and agents run these in fresh processes, where importing typer and rich cost more than
the answer. Their few options are read here by hand; anything else (help, an option this does
not know, a value typer would have to convert or reject, an error to report) is left to the
typer app, which answers it as it always did.
"""

from __future__ import annotations

import re
import sys
from typing import Any

#: `origin search` options taking a value, by their command-line name.
SEARCH_VALUES = {
    "--scope": "scope",
    "--kind": "kind",
    "--since": "since",
    "--until": "until",
    "--source": "source",
    "--project": "project",
    "--limit": "limit",
}
SEARCH_FLAGS = {"--include-tools": "include_tools", "--json": "json"}
_INTEGER = re.compile(r"-?[0-9]+")


def parse(args: list[str]) -> tuple[str, dict[str, Any]] | None:
    """The tool and its arguments, as the typer command would call it; None to leave it to typer."""
    if not args:
        return None
    command, rest = args[0], args[1:]
    if command == "get":
        if len(rest) != 1 or rest[0].startswith("-"):
            return None
        return "get", {"id": rest[0]}
    if command == "search":
        return _search(rest)
    return None


def _search(rest: list[str]) -> tuple[str, dict[str, Any]] | None:
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
        if name in SEARCH_FLAGS and not eq:
            key = SEARCH_FLAGS[name]
            if key in options:
                return None
            options[key] = True
        elif name in SEARCH_VALUES:
            key = SEARCH_VALUES[name]
            if not eq:
                if i >= len(rest) or rest[i].startswith("-"):
                    return None
                value = rest[i]
                i += 1
            if key in options:
                return None
            options[key] = value
        else:
            return None  # --help, `--`, an option this does not know: typer's to answer
    if len(positional) != 1 or not options.pop("json", False):
        return None  # people's output is rich's
    limit = options.get("limit")
    if limit is not None:
        if not _INTEGER.fullmatch(limit):
            return None
        options["limit"] = int(limit)
    args: dict[str, Any] = {
        "query": positional[0],
        "scope": "all",
        "include_tools": False,
        "limit": 20,
        **options,
    }
    return "search", args


def run(args: list[str]) -> bool:
    """Answer a lean command; False when typer should (nothing was printed then)."""
    parsed = parse(args)
    if parsed is None:
        return False
    tool, tool_args = parsed
    import orjson

    from origin_search import SearchError
    from origin_store import StoreError

    from ..errors import OriginError
    from ..runtime import Origin
    from ..service import Caller, call

    try:
        with Origin.open() as origin:
            result = call(origin, tool, tool_args, Caller("user", origin.settings.device))
    except (OriginError, StoreError, SearchError):
        return False  # typer runs it again and reports the error its way
    sys.stdout.write(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode() + "\n")
    sys.stdout.flush()
    return True
