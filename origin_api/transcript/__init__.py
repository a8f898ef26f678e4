"""Sessions as a person reads them: what agents wrote rendered (Markdown, commands with their
output, edits as diffs, long outputs folded), and a session exported as Markdown, HTML or JSON.

The admin UI's session page renders each event's body with `event_html`; `origin export` and
the session page's download use `export`. Event text is hostile throughout: see `markdown`
(links, images and raw HTML) and `body` (everything escaped).
"""

from __future__ import annotations

from .body import event_html
from .export import FORMATS, export, file_name, write
from .highlight import Budget, stylesheet
from .markdown import markdown_html, markdown_text
from .read import Header, Transcript, read_transcript

__all__ = [
    "FORMATS",
    "Budget",
    "Header",
    "Transcript",
    "event_html",
    "export",
    "file_name",
    "markdown_html",
    "markdown_text",
    "read_transcript",
    "stylesheet",
    "write",
]
