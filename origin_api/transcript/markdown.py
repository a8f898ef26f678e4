"""What agents wrote, as Markdown, rendered so that nothing in it can act on the page.

Event text is hostile: a log line may hold `<script>`, a link to `javascript:`, an image that
would call a server when the page opens. markdown-it-py is set up so that none of it gets
through: raw HTML off (tags are shown as the characters they are), no linkify, links kept only
to `http:`, `https:` and `mailto:` (anything else stays the text it was), and images never
loaded: an image is a link to it, with its alt text. Code fences are highlighted with Pygments
(`highlight.code_html`, within the page's `Budget`). One parser serves every call, and recent
renderings are kept (those whose code was all coloured): a page read twice is rendered once.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import OptionsDict
from markupsafe import Markup, escape

from .highlight import Budget, code_html
from .kept import Kept

#: The schemes a link may have; anything else (javascript:, data:, vbscript:, file:, a
#: relative path into the UI) is left as text.
SCHEMES = ("http://", "https://", "mailto:")
#: What browsers ignore inside a scheme (`java\tscript:`), removed before it is checked.
_IGNORED = re.compile(r"[\x00-\x20\x7f]+")
#: What every link carries: no referrer, no opener, no ranking.
REL = "nofollow noopener noreferrer"


def safe_link(url: str) -> bool:
    """Whether a link (normalized by markdown-it: entities decoded, percent-encoded) may be a
    link: an absolute http(s) or mailto URL, its scheme judged as a browser would read it."""
    folded = _IGNORED.sub("", url).lower()
    return folded.startswith(SCHEMES)


def _fence(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    token = tokens[idx]
    language = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
    budget = env.get("budget") if isinstance(env, dict) else None
    before = budget.skipped if budget is not None else 0
    shown = code_html(token.content, language, budget=budget)
    if budget is not None and budget.skipped > before:
        env["uncoloured"] = True
    return str(shown) + "\n"


def _image(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    """An image as a link to it: the page loads nothing from elsewhere (the CSP would stop
    it, and a remote image tells its server that the page was read)."""
    token = tokens[idx]
    alt = "".join(child.content for child in token.children or []) or "image"
    src = str(token.attrGet("src") or "")
    return str(
        Markup('<a class="image" href="{0}" rel="{1}">[image: {2}]</a>').format(src, REL, alt)
    )


def _link_open(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    token = tokens[idx]
    token.attrSet("rel", REL)
    return str(renderer.renderToken(tokens, idx, options, env))


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.validateLink = safe_link  # type: ignore[method-assign]
    md.add_render_rule("fence", _fence)
    md.add_render_rule("image", _image)
    md.add_render_rule("link_open", _link_open)
    return md


_MD = _parser()


#: How many renderings are kept (the oldest go first).
CACHE_ENTRIES = 4_096
_KEPT: Kept[str, Markup] = Kept(CACHE_ENTRIES)


def markdown_html(text: str, budget: Budget | None = None) -> Markup:
    """A text as Markdown, as HTML safe to put in a page; its code coloured within `budget`."""
    kept = _KEPT.get(text)
    if kept is not None:
        return kept
    env: dict[str, Any] = {"budget": budget}
    html = Markup(_MD.render(text, env))
    if not env.get("uncoloured"):
        _KEPT.put(text, html)
    return html


def clear_cache() -> None:
    """Forget every kept rendering (for measuring a page read the first time)."""
    _KEPT.clear()


def markdown_text(text: str) -> str:
    """A line of Markdown as the words a person reads (`Add **retries**` is `Add retries`): a
    session's first prompt is its title, and a title shows no markers."""
    words: list[str] = []
    for token in _MD.parseInline(text):
        for child in token.children or []:
            if child.type in ("text", "code_inline"):
                words.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                words.append(" ")
    return "".join(words) or text


def plain_html(text: str) -> Markup:
    """A text as it is (escaped), for what is not Markdown."""
    return escape(text)
