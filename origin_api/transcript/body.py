"""An event's body as HTML, for the session page and the HTML export: messages and memory
files as Markdown, a shell command as a command with its output below, an edit as a diff, any
other call as its arguments, a long output folded with its size, the harness's notes folded.

Every piece of event text goes through `_e` (markupsafe's escape), `markdown_html` or
`code_html` before it is put between tags; nothing here puts text in a page any other way.
(f-strings with `_e`, not `Markup.format`: the format machinery costs a third of a page.)
Bodies are kept once rendered, as long as their code was coloured, so a page read again costs
little.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup
from markupsafe import escape as _e

from .calls import Call, read_call
from .highlight import Budget, code_html
from .kept import Kept
from .markdown import markdown_html
from .outputs import Output, read_output

#: Kinds shown folded, a click away: what the harness says, not the agent or the person.
ASIDE_KINDS = frozenset({"meta", "system"})
#: A diff past this many lines is folded.
FOLD_DIFF_LINES = 40
SUMMARY_CHARS = 100
#: How many bodies are kept (the oldest go first).
CACHE_ENTRIES = 4_096
_KEPT: Kept[tuple[str, str, bool], Markup] = Kept(CACHE_ENTRIES)


def event_html(
    event: Mapping[str, Any],
    previous: Mapping[str, Any] | None = None,
    budget: Budget | None = None,
) -> Markup:
    """The body of one event (`EventView`-shaped: `kind`, `text`). `previous` is the event
    before it on the page: a tool result right after a shell command is shown as its output.
    `budget` is the page's time to colour code (`highlight.Budget`); None colours it all."""
    kind, text = str(event["kind"]), str(event["text"] or "")
    paired = kind == "tool_result" and _after_command(previous)
    key = (kind, text, paired)
    kept = _KEPT.get(key)
    if kept is not None:
        return kept
    skipped = budget.skipped if budget is not None else 0
    html = _body(kind, text, paired, budget)
    if budget is None or budget.skipped == skipped:
        _KEPT.put(key, html)
    return html


def clear_cache() -> None:
    """Forget every kept body (for measuring a page read the first time)."""
    _KEPT.clear()


def _after_command(previous: Mapping[str, Any] | None) -> bool:
    if previous is None or previous.get("kind") != "tool_use":
        return False
    return read_call(str(previous.get("text") or "")).kind == "command"


def _body(kind: str, text: str, paired: bool, budget: Budget | None) -> Markup:
    if kind == "message":
        return Markup(f'<div class="md">{markdown_html(text, budget)}</div>')
    if kind == "memory":
        return Markup(f'<div class="md memory">{markdown_html(text, budget)}</div>')
    if kind == "tool_use":
        return call_html(read_call(text), budget)
    if kind == "tool_result":
        return output_html(read_output(text), paired=paired)
    if kind in ASIDE_KINDS:
        return Markup(
            f'<details class="aside"><summary>{_e(summary_of(text))}</summary>'
            f'<div class="md">{markdown_html(text, budget)}</div></details>'
        )
    return Markup(f'<p class="text">{_e(text)}</p>')


def summary_of(text: str) -> str:
    line = " ".join(text[: SUMMARY_CHARS * 4].split())
    return line if len(line) <= SUMMARY_CHARS else line[:SUMMARY_CHARS] + "…"


def _tool(call: Call, about: str | None = None) -> str:
    head = f'<span class="tool">{_e(call.name)}</span>'
    if about:
        head += f' <code class="about">{_e(about)}</code>'
    if call.cut:
        head += ' <span class="muted">(cut)</span>'
    return head


def call_html(call: Call, budget: Budget | None = None) -> Markup:
    if call.kind == "command":
        head = _tool(call, call.workdir)
        description = (call.args or {}).get("description")
        if isinstance(description, str) and description:
            head += f' <span class="muted">{_e(description)}</span>'
        code = code_html(call.command or "", "bash", extra="shell", budget=budget)
        return Markup(f'<div class="call command"><p>{head}</p>{code}</div>')
    if call.kind == "edit":
        diff = call.diff or ""
        shown = str(code_html(diff, "diff", extra="diff", budget=budget))
        lines = diff.count("\n") + 1
        if lines > FOLD_DIFF_LINES:
            shown = _folded(f"diff, {lines:,} lines", shown)
        return Markup(f'<div class="call edit"><p>{_tool(call, call.path)}</p>{shown}</div>')
    if not call.fields:
        rest = _long_pre(call.rest) if call.rest else ""
        return Markup(f'<div class="call"><p>{_tool(call)}</p>{rest}</div>')
    items = "".join(f"<dt>{_e(key)}</dt><dd>{_value(value)}</dd>" for key, value in call.fields)
    return Markup(f'<div class="call"><p>{_tool(call)}</p><dl class="args">{items}</dl></div>')


def _value(value: str) -> str:
    if "\n" not in value and len(value) <= 200:
        return f"<code>{_e(value)}</code>"
    return _long_pre(value)


def _long_pre(text: str) -> str:
    shown = f'<pre class="plain">{_e(text)}</pre>'
    output = read_output(text)
    return _folded(output.size, shown) if output.long else shown


def _folded(summary: str, inner: str) -> str:
    """`inner` (HTML already) a click away, under `summary` (text)."""
    return f'<details class="fold"><summary>{_e(summary)}</summary>{inner}</details>'


def output_html(output: Output, *, paired: bool = False) -> Markup:
    """A tool's output: its mark and facts, then the text, folded with its size when long."""
    classes = "output" + (" paired" if paired else "") + (" failed" if output.mark else "")
    head = ""
    if output.mark:
        head += f'<span class="mark-error">{_e(output.mark)}</span> '
    if output.facts:
        head += f'<span class="muted">{_e(" · ".join(output.facts))}</span>'
    label = "Output" if paired else "Result"
    pre = f'<pre class="plain">{_e(output.body)}</pre>'
    if output.long:
        body = _folded(f"{label}: {output.size}", pre)
    elif output.body:
        body = pre
    else:
        body = '<p class="muted">(no output)</p>'
    lead = f"<p>{head}</p>" if head else ""
    return Markup(f'<div class="{classes}">{lead}{body}</div>')
