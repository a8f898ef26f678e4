"""Help texts as written: typer reads every help text as Rich markup, so `[redacted <kind>]`
in `origin redact --help` vanished (taken for a style tag), and its list of commands keeps a
docstring's line breaks, so a description broke off mid-sentence at the end of each source line.

`as_written` runs once over the finished app: each command's and group's help and each option's
is escaped (shown as written, brackets and all), and each command's line in a list is its first
sentence on one line (`short_help`), which rich wraps at the terminal's width. The texts are
written as plain text, never with markup, so escaping all of them is right.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

import typer
from rich.markup import escape
from typer.main import solve_typer_info_help
from typer.models import ParameterInfo

#: Where a sentence ends: a stop, then a space and what starts the next.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`(\"“])")


def first_sentence(text: str) -> str:
    """The first sentence of a help text's first paragraph, on one line."""
    paragraph = " ".join(inspect.cleandoc(text).split("\n\n")[0].split())
    return _SENTENCE_END.split(paragraph, maxsplit=1)[0]


def as_written(app: typer.Typer) -> None:
    """Escape every help text of `app` and its groups, and give each command a whole first
    sentence as its line in a list of commands."""
    for command in app.registered_commands:
        text = command.help or inspect.getdoc(command.callback) or ""
        command.help = escape(text)
        command.short_help = escape(first_sentence(text))
        _options(command.callback)
    for group in app.registered_groups:
        text = solve_typer_info_help(group)
        group.help = escape(text)
        group.short_help = escape(first_sentence(text))
        sub = group.typer_instance
        if sub is not None:
            if sub.registered_callback is not None:
                _options(sub.registered_callback.callback)
            as_written(sub)


def _options(callback: Callable[..., Any] | None) -> None:
    if callback is None:
        return
    for parameter in inspect.signature(callback).parameters.values():
        info = parameter.default
        if isinstance(info, ParameterInfo) and info.help and not getattr(info, "_escaped", False):
            info.help = escape(info.help)
            info._escaped = True  # type: ignore[attr-defined]
