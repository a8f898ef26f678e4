"""A session as one standalone HTML file: its own styles inline (it is a file on a disk, not a
page under the UI's policy), no script at all, every event's body rendered by `body` as the
session page renders it, and each event's id as its element's id and as visible text."""

from __future__ import annotations

from markupsafe import Markup

from .body import event_html
from .header import facts, left_out, title_of
from .highlight import stylesheet
from .read import ExportEvent, Transcript

#: The page's own styles: readable printed or on screen, light or dark as the system prefers.
STYLE = """
:root { color-scheme: light dark; --fg: #1c1f23; --muted: #5c6670; --bg: #fff; --panel: #f5f6f8;
  --line: #d8dce1; --accent: #0b5cad; --error: #a4161a;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans CJK SC", sans-serif;
  color: var(--fg); background: var(--bg); }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6e8eb; --muted: #9aa4ae; --bg: #16181b; --panel: #1f2226; --line: #353a40;
    --accent: #6cb6ff; --error: #ff7b72; }
}
body { margin: 0; }
main { max-width: 1000px; margin: 0 auto; padding: 16px; }
a { color: var(--accent); }
code, pre { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 0.9em; }
h1 { font-size: 1.4em; }
.muted, .id { color: var(--muted); }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; overflow-wrap: anywhere; }
.events { list-style: none; padding: 0; }
.ev { border-left: 3px solid var(--line); padding: 6px 10px; margin: 10px 0; overflow-wrap: anywhere; }
.ev.role-user { border-left-color: var(--accent); }
.meta { color: var(--muted); font-size: 0.9em; display: flex; flex-wrap: wrap; gap: 2px 10px; }
.left-out { color: var(--muted); font-style: italic; margin: 6px 0; }
.md table { border-collapse: collapse; } .md th, .md td { border: 1px solid var(--line); padding: 2px 8px; }
.md :not(pre) > code { background: var(--panel); padding: 0 3px; border-radius: 3px; }
pre.code, pre.plain { background: var(--panel); border: 1px solid var(--line); border-radius: 4px;
  padding: 6px 8px; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.shell code::before { content: "$ "; color: var(--muted); }
.tool { font-weight: 600; } .mark-error { color: var(--error); font-weight: 600; }
.args { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 10px; }
.args dt { color: var(--muted); } .args dd { margin: 0; }
details summary { cursor: pointer; color: var(--muted); }
"""


def html_document(transcript: Transcript) -> str:
    header = transcript["header"]
    title = title_of(header)
    rows = Markup("").join(
        Markup("<dt>{0}</dt><dd>{1}</dd>").format(label, value) for label, value in facts(header)
    )
    items: list[Markup] = []
    previous: ExportEvent | None = None
    for number, event in enumerate(transcript["events"], 1):
        if event.get("left_out"):
            items.append(_left_out(event.get("left_out", 0)))
        items.append(_event(number, event, previous))
        previous = event
    if transcript["left_out_at_end"]:
        items.append(_left_out(transcript["left_out_at_end"]))
    page = Markup(
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="origin export">\n'
        "<title>{0}</title>\n<style>{1}{2}</style>\n</head>\n<body>\n<main>\n"
        '<h1>{0}</h1>\n<dl class="facts">{3}</dl>\n<ol class="events">\n{4}</ol>\n'
        "</main>\n</body>\n</html>\n"
    ).format(title, Markup(STYLE), Markup(stylesheet()), rows, Markup("\n").join(items))
    return str(page)


def _left_out(count: int) -> Markup:
    return Markup('<li class="left-out">{0}</li>').format(left_out(count))


def _event(number: int, event: ExportEvent, previous: ExportEvent | None) -> Markup:
    kind = "" if event["kind"] == "message" else event["kind"]
    when = (event["time"] or "")[:19].replace("T", " ")
    meta = Markup(
        '<div class="meta"><span>{0}.</span><span>{1}</span><span>{2}</span>'
        '<time datetime="{3}">{4}</time><code class="id">{5}</code></div>'
    ).format(number, event["role"], kind, event["time"] or "", when, event["id"])
    return Markup('<li class="ev role-{0} kind-{1}" id="{2}">{3}{4}</li>').format(
        event["role"], event["kind"], event["id"], meta, event_html(event, previous)
    )
