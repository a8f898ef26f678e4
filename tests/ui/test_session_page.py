"""The session page opened at an event (`at=`: a search hit's, a raw line's, an entry's cited
event), with the events around it and the event marked; its header's context (directory, branch,
model, agent version, the sessions it started and was started by); the output an agent kept out
of line; and the agent's command that continues it."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from ui_support import LONG_EVENTS, LONG_SESSION, Client

from origin_api.runtime import Origin
from origin_api.service import Caller, call

LIMITER = "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10"
SUB_AGENT = f"{LIMITER}/agent-a3f9c2e1b7d40568"
TASK_CALL = "claude-code:a0000006-0000-4000-8000-000000000006"
VERBOSE = "5d2e8a41-7c3b-4f60-9e1d-3a4b5c6d7e8f"
PERSISTED = "claude-code:f0000005-0000-4000-8000-000000000005"


def long_event(n: int) -> str:
    """The id of the long session's event number `n` (1-based: its line's uuid)."""
    return f"claude-code:{LONG_SESSION[:8]}-0000-4000-8000-{n:012x}"


def shown_ids(page: str) -> list[str]:
    return [html.unescape(i) for i in re.findall(r'<li class="ev [^"]*" id="([^"]+)"', page)]


def marked(page: str) -> list[str]:
    return [html.unescape(i) for i in re.findall(r'<li class="ev [^"]*ev-at" id="([^"]+)"', page)]


def at(session: str, event_id: str, source: str = "claude-code", **more: str) -> str:
    extra = "".join(f"&{k}={v}" for k, v in more.items())
    return f"/ui/session?source={source}&id={quote(session)}&at={quote(event_id)}{extra}"


def test_an_event_opens_with_the_events_around_it(signed_in: Client) -> None:
    # Event 4,001 begins page 21 of 25: opened at it, the events before it are there too.
    hit = long_event(4001)
    page = signed_in.get(at(LONG_SESSION, hit)).text
    ids = shown_ids(page)
    assert marked(page) == [hit]
    assert long_event(4000) in ids and long_event(4002) in ids
    assert ids.index(hit) == 100 and len(ids) == 200  # centred in a page's worth of events
    assert "Events 3901–4100 of 5000" in page
    # The pager steps a page's worth from there, and back to the numbered pages at the ends.
    assert (
        'href="/ui/session?source=claude-code&amp;id=10000000-0000-4000-8000-000000000001&amp;start=4100"'
        in page
    )
    assert "start=3700" in page
    stepped = signed_in.get(f"/ui/session?source=claude-code&id={LONG_SESSION}&start=4100").text
    assert shown_ids(stepped)[0] == long_event(4101) and "Events 4101–4300 of 5000" in stepped


def test_an_event_near_either_end_opens_the_first_or_last_events(signed_in: Client) -> None:
    first = signed_in.get(at(LONG_SESSION, long_event(3))).text
    assert shown_ids(first)[0] == long_event(1) and marked(first) == [long_event(3)]
    assert "Page 1 of 25" in first
    last = signed_in.get(at(LONG_SESSION, long_event(LONG_EVENTS - 1))).text
    assert shown_ids(last)[-1] == long_event(LONG_EVENTS)
    assert marked(last) == [long_event(LONG_EVENTS - 1)]


def test_an_unknown_or_hidden_event_says_so_and_shows_the_start(signed_in: Client) -> None:
    page = signed_in.get(at(LONG_SESSION, "claude-code:no-such-event")).text
    assert marked(page) == [] and shown_ids(page)[0] == long_event(1)
    assert "is not among this session" in page


def test_messages_only_opens_every_event_when_the_hit_is_a_tools(signed_in: Client) -> None:
    page = signed_in.get(at(VERBOSE, PERSISTED, messages="1")).text
    assert marked(page) == [PERSISTED]
    assert "Show messages only" in page  # it shows every event now, and says how to go back
    assert "The event asked for is not a message: every event is shown." in page


def test_search_hits_raw_lines_and_entries_link_to_the_event(
    signed_in: Client, ui_origin: Origin
) -> None:
    hits = signed_in.get("/ui/search/hits?q=longsession+4001&tools=1").text
    hit = long_event(4001)
    anchor = quote(hit, safe=":@-._~")
    link = f"/ui/session?source=claude-code&amp;id={LONG_SESSION}&amp;at={quote(hit, safe='')}#{anchor}"
    assert link in hits
    raw = signed_in.get(f"/ui/raw?id={quote(hit)}").text
    assert link in raw
    entry = call(
        ui_origin,
        "remember",
        {
            "kind": "memory",
            "text": "The long session's 4001st message.",
            "confidence": 0.9,
            "sources": [{"event_id": hit}],
        },
        Caller("user", "test"),
    )
    page = signed_in.get(f"/ui/entries/{entry['entry']['id']}").text
    assert link in page


def test_the_header_says_where_and_with_what_the_session_ran(signed_in: Client) -> None:
    page = html.unescape(signed_in.get(f"/ui/session?source=claude-code&id={LIMITER}").text)
    for fact in (
        "<dt>Directory</dt><dd><code>/home/dev/demo-app</code>",
        "<dt>Branch</dt><dd><code>feat/rate-limit</code>",
        "<dt>Model</dt><dd><code>claude-opus-4-5</code>",
        "<dt>Agent version</dt><dd><code>2.1.241</code>",
    ):
        assert fact in page
    command = f"cd /home/dev/demo-app && claude --resume {LIMITER}"
    assert f'id="continue-command" readonly value="{command}"' in page
    assert 'data-copy="continue-command">Copy</button>' in page


def test_a_task_call_links_to_its_sub_agent_and_back(signed_in: Client) -> None:
    parent = signed_in.get(f"/ui/session?source=claude-code&id={LIMITER}").text
    child_url = f"/ui/session?source=claude-code&amp;id={quote(SUB_AGENT, safe='')}"
    assert f'<ul class="children"><li><a href="{child_url}">' in parent
    task = parent[parent.index(f'id="{TASK_CALL}"') :]
    task = task[: task.index("</li>")]
    assert f'class="extra" href="{child_url}">sub-agent: List every middleware' in task
    child = html.unescape(signed_in.get(html.unescape(child_url)).text)
    assert "<dt>Model</dt><dd><code>claude-haiku-4-5</code>" in child
    back = re.search(r'class="parent-session" href="([^"]+)"', child)
    assert back is not None and f"at={quote(TASK_CALL, safe='')}" in back.group(1)
    # A sub-agent is continued through its parent.
    assert f"claude --resume {LIMITER}" in child and "its parent" in child


def test_codex_sub_agents_link_both_ways(signed_in: Client) -> None:
    parent = signed_in.get("/ui/session?source=codex&id=019a0f2e-5b6c-7d81-9e02-a3b4c5d6e7f8").text
    assert "sub-agent: List every user-visible English string" in parent
    child = signed_in.get("/ui/session?source=codex&id=019a0f31-0a0b-7c0d-8e0f-101112131415").text
    assert 'class="parent-session" href="/ui/session?source=codex&amp;id=019a0f2e' in child
    assert "<code>gpt-5.5-mini</code>" in child


def test_an_output_kept_out_of_line_is_linked_from_its_result(signed_in: Client) -> None:
    page = signed_in.get(at(VERBOSE, PERSISTED)).text
    result = page[page.index(f'id="{PERSISTED}"') :]
    result = result[: result.index("</li>")]
    parts = re.findall(r'class="extra" href="([^"]+)">(?:full output )?([0-9]+)/([0-9]+)<', result)
    assert len(parts) == 7 and parts[0][1:] == ("1", "7")
    first = html.unescape(parts[0][0])
    opened = signed_in.get(first).text
    assert marked(opened) == [f"claude-code:{VERBOSE}:tool-results/b7q2k9x4m#0"]


def test_nothing_to_continue_says_why(signed_in: Client) -> None:
    page = signed_in.get("/ui/session?source=cursor&id=2a4c6e8f-0b1d-4f3a-9c5e-7a9b1c3d5e7f").text
    assert "Nothing continues it: a Cursor IDE chat" in page
    assert 'id="continue-command"' not in page
