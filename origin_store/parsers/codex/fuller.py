"""The fuller output of a large shell command (Codex 0.17x).

The `function_call_output` a model reads keeps about 10 KB of a large output (a head, a
`…N chars truncated…` mark, a tail), while the `item_completed` line of its `CommandExecution`,
written just before it, keeps 64 KiB (the first and last 32 KiB around
`... command output truncated for persistence ...`). So the item's output becomes the result's
words (in parts the store keeps whole), and the `function_call_output` that follows keeps only
its header: every word Codex kept is searchable, none twice, and no event changes id.
"""

from __future__ import annotations

import re
from typing import Any

from ..base import Labelled, labelled, nonempty_str, split_output

#: An item's output of this many UTF-8 bytes or more may be cut in the `function_call_output`
#: (Codex keeps about 10 KB there), so it is filed from the item.
FULLER_BYTES = 8_000
#: How many call ids a rollout's state remembers (a result follows its item within a few lines).
_REMEMBERED = 64

#: Codex's header of a shell output and its notes on a cut one, before the command's words.
_HEADER = re.compile(
    r"(?:[^\n]{0,80}\n){0,6}?Output:\n"
    r"(?:Warning: truncated output[^\n]*\n)?(?:Total output lines: \d+\n)?\n?"
)

_Event = tuple[str, str, str | Labelled]


def item_output(payload: dict[str, Any], state: dict[str, Any]) -> list[_Event]:
    """A completed `CommandExecution` with a large output gives that output as `tool_result`
    events; one whose result was already read gives nothing (its words are there)."""
    item = payload.get("item")
    if not isinstance(item, dict) or item.get("type") != "CommandExecution":
        return []
    call = nonempty_str(item.get("id"))
    output = item.get("aggregated_output")
    if call is None or not isinstance(output, str) or len(output.encode()) < FULLER_BYTES:
        return []
    if call in _remembered(state, "answered") or call in _remembered(state, "fuller"):
        return []
    _remember(state, "fuller", call)
    code = item.get("exit_code")
    failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
    return [
        ("system", "tool_result", labelled("[error] ", part) if failed else part)
        for part in split_output(output)
    ]


def result_words(call: object, output: object, state: dict[str, Any]) -> str | None:
    """The words a `function_call_output` keeps: only its header when its item gave the
    output (None when it did not, so the whole output stays)."""
    if not isinstance(call, str):
        return None
    if call not in _remembered(state, "fuller"):
        _remember(state, "answered", call)
        return None
    if not isinstance(output, str):
        return ""
    found = _HEADER.match(output)
    return found.group(0) if found is not None else ""


def _remembered(state: dict[str, Any], key: str) -> list[str]:
    found = state.get(key)
    return found if isinstance(found, list) else []


def _remember(state: dict[str, Any], key: str, call: str) -> None:
    state[key] = [*_remembered(state, key), call][-_REMEMBERED:]
