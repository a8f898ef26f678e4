"""Claude Code's `attachment` lines: the context the harness adds to what the model sees.

Hook output, the skills and agents the model may call, deferred tools, MCP servers'
instructions, the date, a file changed on disk, a queued prompt, a reminder: each is an
attachment of its own `type`, and new types come with most versions. The rule is Codex's for its
developer messages and `<environment_context>`: what the harness injects is a `system` event,
which `search` and `timeline` show with `include_tools` (the contract's "injected context") and
never without. Its words are every string the attachment holds, whatever its type, so a type
no version of this parser knew is kept too.
"""

from __future__ import annotations

from typing import Any

from ..base import Labelled, labelled, nonempty_str

_Event = tuple[int, str, str, str | Labelled]
#: Fields that identify rather than say something.
_SKIPPED_KEYS = frozenset({"type", "uuid", "id", "toolUseID", "sourceToolUseID", "hookEvent"})
#: How deep an attachment's values are looked into (they are a few levels deep at most).
_MAX_DEPTH = 6
#: Above this many strings, none is compared with the others (the comparison is quadratic).
_COMPARED_STRINGS = 200


def attachment_events(obj: dict[str, Any]) -> list[_Event]:
    """The attachment's words as one system event labelled with its type (a hook's with its
    name, as a tool's), or nothing when it holds no words."""
    attachment = obj.get("attachment")
    if not isinstance(attachment, dict):
        return []
    atype = nonempty_str(attachment.get("type")) or "attachment"
    if atype.startswith("hook"):
        return _hook_events(attachment, atype)
    words = _words(attachment)
    if not words:
        return []
    return [(0, "system", "system", labelled(f"{atype}: ", "\n".join(words)))]


def _hook_events(attachment: dict[str, Any], atype: str) -> list[_Event]:
    parts = [
        attachment[key]
        for key in ("content", "stdout", "stderr", "additionalContext")
        if isinstance(attachment.get(key), str) and attachment[key].strip()
    ]
    if not parts:
        return []
    text = "\n".join(parts)
    name = nonempty_str(attachment.get("hookName"))
    if name is None:
        return [(0, "system", "system", labelled(f"{atype}: ", text))]
    return [(0, "system", "system", f"{name}: {text}")]


def _words(attachment: dict[str, Any]) -> list[str]:
    """Its strings in order, each once; one that another of them contains is left out (a list
    of names beside the lines that describe them says nothing more)."""
    found: list[str] = []
    _collect(attachment, found, 0)
    distinct = list(dict.fromkeys(found))
    if len(distinct) > _COMPARED_STRINGS:
        return distinct
    return [
        text
        for text in distinct
        if not any(len(other) > len(text) and text in other for other in distinct)
    ]


def _collect(value: object, found: list[str], depth: int) -> None:
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, str):
        if value.strip():
            found.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key not in _SKIPPED_KEYS:
                _collect(item, found, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _collect(item, found, depth + 1)
