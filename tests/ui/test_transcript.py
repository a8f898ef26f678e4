"""The session page renders what agents wrote (Markdown, commands with their output, edits as
diffs, long outputs folded), and downloads the session as `origin export` writes it."""

from __future__ import annotations

import json
import re

import pytest
from helpers import acting
from ui_support import (
    HOSTILE_MD_SESSION,
    RENDER_COMMAND,
    RENDER_COMMAND_OUTPUT,
    RENDER_SECRET,
    RENDER_SESSION,
    Client,
    long_output,
    render_event,
)

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_api.transcript.outputs import byte_size
from origin_api.ui.render import HEADERS

PAGE = f"/ui/session?source=claude-code&id={RENDER_SESSION}"


def _export(client: Client, fmt: str, session: str = RENDER_SESSION, tools: bool = False) -> str:
    tail = "&tools=1" if tools else ""
    response = client.get(f"/ui/session/export?source=claude-code&id={session}&format={fmt}{tail}")
    assert response.status_code == 200, response.text
    return response.text


def test_the_session_page_renders_markdown_commands_diffs_and_folds(signed_in: Client):
    page = signed_in.get(PAGE).text
    assert "<h2>Retry plan</h2>" in page and "<strong>three</strong>" in page
    assert '<pre class="code"><code><span class="k">def</span>' in page  # the fence, coloured
    words = re.sub(r"<[^>]+>", "", page)  # the text, highlighting's spans taken out
    assert '<div class="call command">' in page and RENDER_COMMAND in words
    assert '<div class="output paired">' in page and RENDER_COMMAND_OUTPUT in page
    assert '<pre class="code diff">' in page and '<span class="gi">+tries = 3</span>' in page
    # the page shows 4,000 characters of it: the lines counted there, the size the whole's
    size = byte_size(len(long_output()))
    assert re.search(rf"<summary>Output: \d{{3}}\+ lines, {size}</summary>", page), size
    assert '<link rel="stylesheet" href="/ui/static/code.css">' in page
    assert RENDER_SECRET not in page and "[redacted github-token]" in page


def test_a_page_may_open_at_a_tool_result():
    """A page whose first event is a tool result (its command on the page before: a session
    opened at a hit, a page past the first) shows it as an output of its own. The 1M bench's
    sessions opened at a hit met this first: the loop has no previous item there."""
    from origin_api.ui.render import _ENV

    page = _ENV.from_string(
        "{% set budget = highlight_budget() %}"
        '{% for e in events %}<li value="{{ loop.index }}">{% include "event_body.html" %}</li>'
        "{% endfor %}"
    )
    result = {"kind": "tool_result", "role": "tool", "text": RENDER_COMMAND_OUTPUT}
    command = {"kind": "tool_use", "role": "assistant", "text": 'Bash {"command": "ls"}'}
    assert RENDER_COMMAND_OUTPUT in page.render(events=[result])
    assert RENDER_COMMAND_OUTPUT in page.render(events=[command, result])


def test_the_title_shows_the_prompts_words_not_its_markers(signed_in: Client):
    """The first prompt, `Add **retries** to …`, titles the page as words; still escaped."""
    page = signed_in.get(PAGE).text
    assert "<h1>Add retries to the webhook sender;" in page
    assert "<title>Add retries to the webhook sender;" in page
    hostile = signed_in.get(f"/ui/session?source=claude-code&id={HOSTILE_MD_SESSION}").text
    assert "<h1>[plain js](javascript:alert(1))" in hostile.replace("\n", " ")
    assert not acting(hostile.split("<h1>", 1)[1].split("</h1>", 1)[0])


def test_the_code_colours_are_served(signed_in: Client):
    css = signed_in.get("/ui/static/code.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    assert ".code .k" in css.text


def test_the_page_links_each_download(signed_in: Client):
    page = signed_in.get(PAGE).text
    for fmt in ("md", "html", "json"):
        assert (
            f"/ui/session/export?source=claude-code&amp;id={RENDER_SESSION}&amp;format={fmt}&amp;tools=1"
            in page
        )
    messages = signed_in.get(PAGE + "&messages=1").text
    assert "format=md" in messages and "tools=1" not in messages


@pytest.mark.parametrize(
    ("fmt", "media"),
    [("md", "text/markdown"), ("html", "text/html"), ("json", "application/json")],
)
def test_each_download_is_an_attachment_under_the_uis_headers(
    signed_in: Client, fmt: str, media: str
):
    response = signed_in.get(
        f"/ui/session/export?source=claude-code&id={RENDER_SESSION}&format={fmt}"
    )
    assert response.status_code == 200 and response.headers["content-type"].startswith(media)
    disposition = response.headers["content-disposition"]
    assert disposition == f'attachment; filename="claude-code-{RENDER_SESSION}.{fmt}"'
    for name, value in HEADERS.items():
        assert response.headers[name] == value
    text = response.text
    assert render_event(1) in text and render_event(2) in text and "Retry plan" in text
    assert "/home/dev/ui-tests" in text and "2.1.241" in text  # the header's cwd and version
    assert RENDER_COMMAND not in text and render_event(3) not in text  # no tool calls
    assert RENDER_SECRET not in text and "[redacted github-token]" in text
    with_tools = re.sub(r"<[^>]+>", "", _export(signed_in, fmt, tools=True))
    assert RENDER_COMMAND in with_tools and render_event(3) in with_tools


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_a_forgotten_event_is_not_downloaded(signed_in: Client, ui_origin: Origin, fmt: str):
    last = render_event(9)
    if last in _export(signed_in, "json"):
        call(ui_origin, "forget", {"id": last, "reason": "test"}, Caller("user", "testbox"))
    for tools in (False, True):
        text = _export(signed_in, fmt, tools=tools)
        assert last not in text and "retries are in" not in text
    assert render_event(1) in json.loads(_export(signed_in, "json"))["events"][0]["id"]


def test_the_html_download_is_standalone_and_escaped(signed_in: Client):
    text = _export(signed_in, "html", HOSTILE_MD_SESSION, tools=True)
    assert text.startswith("<!doctype html>") and "<script" not in text
    assert "&lt;script&gt;alert(8)&lt;/script&gt;" in text
    assert acting(text.split("</head>", 1)[1]) == []


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("id=no-such-session&format=md", 404, "Unknown session no-such-session."),
        (f"id={RENDER_SESSION}&format=pdf", 400, "No export format pdf"),
        ("format=md", 400, "Which session?"),
    ],
)
def test_what_cannot_be_downloaded_is_a_page(
    signed_in: Client, query: str, status: int, words: str
):
    response = signed_in.get(f"/ui/session/export?{query}")
    assert response.status_code == status and words in response.text


def test_a_download_needs_a_session(client: Client):
    response = client.get(
        f"/ui/session/export?id={RENDER_SESSION}&format=json", follow_redirects=False
    )
    assert response.status_code in (302, 303, 401) and RENDER_SESSION not in response.text
