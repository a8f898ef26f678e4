"""What agents wrote, rendered safely: Markdown with raw HTML off, links only to http(s) and
mailto, images never loaded, code highlighted with classes (the CSP allows no inline style);
and every other body (tool calls, diffs, outputs, the harness's notes) escaped."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import acting

from origin_api.transcript import event_html, markdown_html, markdown_text, stylesheet

CODE_CSS = Path(__file__).parents[2] / "origin_api" / "ui" / "static" / "code.css"


@pytest.mark.parametrize(
    "text",
    [
        "[a](javascript:alert(1))",
        "[a](JaVaScRiPt:alert(1))",
        "[a](&#106;avascript:alert(1))",
        "[a](&#x6A;avascript:alert(1))",
        "[a](java\tscript:alert(1))",
        "[a]( javascript:alert(1))",
        "[a](<javascript:alert(1)>)",
        "[a](vbscript:msgbox(1))",
        "[a](VBScript:msgbox(1))",
        "[a](data:text/html;base64,PHNjcmlwdD4=)",
        "[a](data:image/png;base64,AAAA)",
        "[a](file:///etc/passwd)",
        "<javascript:alert(1)>",
        "<JAVASCRIPT:alert(1)>",
        "[ref]\n\n[ref]: javascript:alert(1)",
        "![x](javascript:alert(1))",
        "![x](data:image/svg+xml;base64,PHN2Zz4=)",
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        '"><img src=x onerror=alert(1)>',
        '<iframe src="javascript:alert(1)"></iframe>',
        "<svg onload=alert(1)>",
        '<a href="javascript:alert(1)">x</a>',
        '<div style="background:url(x)">x</div>',
        "<style>body{display:none}</style>",
        "```html\n<script>alert(1)</script>\n```",
        '```"><script>alert(1)</script>\nx\n```',
        "    <script>alert(1)</script>",
        "`<script>alert(1)</script>`",
        '[a](http://x "\\"onmouseover=alert(1)")',
        "<!-- <script>alert(1)</script> -->",
    ],
)
def test_hostile_markdown_renders_nothing_that_acts(text: str):
    html = str(markdown_html(text))
    assert acting(html) == [], html
    if "<script>" in text and "```" not in text:
        assert "&lt;script&gt;" in html  # shown as the characters it is


@pytest.mark.parametrize(
    ("text", "href"),
    [
        ("[docs](https://example.com/a?b=1&c=2)", "https://example.com/a?b=1&amp;c=2"),
        ("<https://example.com>", "https://example.com"),
        ("[mail](mailto:dev@example.com)", "mailto:dev@example.com"),
    ],
)
def test_web_links_stay_links_without_referrer(text: str, href: str):
    html = str(markdown_html(text))
    assert f'href="{href}"' in html and 'rel="nofollow noopener noreferrer"' in html


@pytest.mark.parametrize("text", ["[rel](src/server.ts)", "[up](../x)", "[ui](/ui/logout)"])
def test_links_into_the_ui_or_relative_stay_text(text: str):
    assert "<a" not in str(markdown_html(text))


def test_an_image_is_a_link_to_it_and_never_loaded():
    html = str(markdown_html("![the chart](http://evil.example/x.png)"))
    assert "<img" not in html
    assert '<a class="image" href="http://evil.example/x.png"' in html and "the chart" in html


def test_the_checker_sees_what_would_act():
    assert acting('<img src=x onerror="a()"><a href="javascript:x">y</a><p style="">') == [
        "<img>",
        "img src",
        "img onerror",
        "a href=javascript:x",
        "p style",
    ]
    assert acting("&lt;img src=x onerror=alert(1)&gt;") == []


def test_markdown_structure_and_highlighted_fences():
    html = str(markdown_html("# Title\n\n- one\n- two\n\n```python\ndef f():\n    return 1\n```"))
    assert "<h1>Title</h1>" in html and "<li>one</li>" in html
    assert '<pre class="code"><code><span class="k">def</span>' in html
    assert "style=" not in html
    table = str(markdown_html("| a | b |\n| --- | --- |\n| 1 | 2 |"))
    assert "<table>" in table and "<td>1</td>" in table


def test_unknown_fence_language_is_plain_escaped_text():
    html = str(markdown_html("```nosuchlang\n<b>x</b>\n```"))
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<span" not in html


HOSTILE = "<script>alert(1)</script>"


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("tool_use", f'Bash {{"command":"echo \'{HOSTILE}\'","description":"{HOSTILE}"}}'),
        ("tool_use", f'Edit {{"file_path":"{HOSTILE}","old_string":"a","new_string":"{HOSTILE}"}}'),
        ("tool_use", f'MultiEdit {{"file_path":"x","edits":[{{"old_string":"{HOSTILE}","new_string":"b"}}]}}'),
        ("tool_use", 'Write {"file_path":"x","content":"<img src=x onerror=alert(1)>"}'),
        ("tool_use", f"apply_patch *** Begin Patch\n+{HOSTILE}\n*** End Patch"),
        ("tool_use", f'{HOSTILE} {{"a":"{HOSTILE}"}}'),
        ("tool_use", f'Task {{"prompt":"{HOSTILE}\\n{HOSTILE}","n":["{HOSTILE}"]}}'),
        ("tool_use", f"weird {HOSTILE}"),
        ("tool_result", f"[error: exit code 1] {HOSTILE}"),
        ("tool_result", f"Process exited with code 0\nOutput:\n{HOSTILE}"),
        ("tool_result", "\n".join([HOSTILE] * 100)),
        ("meta", f"{HOSTILE} [a](javascript:alert(1))"),
        ("system", '"><img src=x onerror=alert(1)>'),
        ("memory", f"# CLAUDE.md\n\n{HOSTILE}\n\n![x](http://evil/x.png)"),
        ("message", '"><img src=x onerror=alert(1)>'),
        ("unknown-kind", HOSTILE),
    ],
)  # fmt: skip
def test_every_body_escapes_event_text(kind: str, text: str):
    html = str(event_html({"kind": kind, "text": text}))
    assert acting(html) == [], html


def test_the_committed_code_colours_are_the_generated_ones():
    """Regenerate with `python -m origin_api.transcript.highlight > origin_api/ui/static/code.css`."""
    css = CODE_CSS.read_text(encoding="utf-8")
    assert css == stylesheet()
    assert "[data-theme=dark] .code .k" in css and "@media (prefers-color-scheme: dark)" in css


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("Add **retries** to the sender", "Add retries to the sender"),
        ("Fix `parse_dates` on CI", "Fix parse_dates on CI"),
        ("line one\nline two", "line one line two"),
        ("<script>alert(1)</script> stays text", "<script>alert(1)</script> stays text"),
        ("[x](javascript:alert(1)) is no link", "[x](javascript:alert(1)) is no link"),
        ("[docs](https://example.com/a) here", "docs here"),
        ("", ""),
    ],
)
def test_a_title_is_its_words(text: str, words: str) -> None:
    assert markdown_text(text) == words
