"""The render helper's filters: matches marked, everything else escaped, times for the browser."""

from __future__ import annotations

import html

import pytest

from origin_api.ui.render import breakable, marked, session_url, when


@pytest.mark.parametrize(
    ("snippet", "query", "expected"),
    [
        ("the [release] workflow", "release", "the <mark>release</mark> workflow"),
        ("[Release] and [RELEASE]", "release", "<mark>Release</mark> and <mark>RELEASE</mark>"),
        ("a [release workflow] here", "release workflow", "a <mark>release workflow</mark> here"),
        ("把[导出]改成", "导出", "把<mark>导出</mark>改成"),
        ("ﾃﾞｰﾀ: [ﾃﾞｰﾀ]", "データ", "ﾃﾞｰﾀ: <mark>ﾃﾞｰﾀ</mark>"),
        ("arr[0] is [zero]", "zero", "arr[0] is <mark>zero</mark>"),
        ("[<script>] x", "script", "<mark>&lt;script&gt;</mark> x"),
        (
            '"><img onerror=alert(1)> [hit]',
            "hit",
            "&#34;&gt;&lt;img onerror=alert(1)&gt; <mark>hit</mark>",
        ),
        ("unclosed [bracket", "bracket", "unclosed [bracket"),
        ("[[nested]]", "nested", "[[nested]]"),
        ("[] empty", "x", "[] empty"),
        ("no query [marks] all", None, "no query <mark>marks</mark> all"),
        ("", "x", ""),
        (None, "x", ""),
    ],
)
def test_marked(snippet: str | None, query: str | None, expected: str):
    assert str(marked(snippet, query)) == expected


def test_when_is_a_time_element_the_script_can_localise():
    shown = str(when("2026-10-20T09:12:30.000+08:00"))
    assert shown == (
        '<time datetime="2026-10-20T09:12:30.000+08:00" title="2026-10-20T09:12:30.000+08:00">'
        "2026-10-20 09:12:30</time>"
    )
    assert "<time" not in str(when(None))
    assert "&lt;" in str(when("<b>"))


def test_session_urls_quote_every_id():
    assert session_url("codex", "a/b c&d", 2, messages=True) == (
        "/ui/session?source=codex&id=a%2Fb+c%26d&page=2&messages=1"
    )
    assert session_url("codex", "x", messages=False) == "/ui/session?source=codex&id=x"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a":1,"b":"c"}', "{<wbr>&#34;a&#34;:<wbr>1,<wbr>&#34;b&#34;:<wbr>&#34;c&#34;}"),
        ("/home/dev/app.py", "/<wbr>home/<wbr>dev/<wbr>app.py"),
        ("a, b: c", "a, b: c"),  # a space is a place to wrap already
        ("</script>&<img>", "&lt;/<wbr>script&gt;&amp;<wbr>&lt;img&gt;"),
        ("", ""),
    ],
)
def test_breakable_escapes_and_marks_where_a_long_run_may_wrap(text: str, expected: str):
    shown = str(breakable(text))
    assert shown == expected
    assert html.unescape(shown.replace("<wbr>", "")) == text  # nothing added but places to wrap
