"""Every tool through a real hub on loopback, each argument given hostile values in turn: the
wrong types, sizes in characters and in bytes, Unicode digits, NUL, times no front door renders.
Each call is answered (a tool error with a readable message, or a result), never a bug; after
each tool's table, the store verifies and every read still answers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from hub_support import PROMPT_ID, SESSION, Hub, csrf_in, running_hub
from hub_support import UI_PASSWORD as PASSWORD

from origin_api.contract.tools import BY_NAME
from origin_api.ui.password import set_password
from origin_store.care.verify import verify

#: Values every argument is given in turn, whatever its type.
HOSTILE: list[tuple[str, Any]] = [
    ("a list", ["x"]),
    ("an object", {"a": 1}),
    ("a number", 3),
    ("a huge number", 2**70),
    ("a negative huge number", -(2**70)),
    ("a float", 1e308),
    ("true", True),
    ("null", None),
    ("empty", ""),
    ("NUL", "a\x00b"),
    ("a Unicode digit", "²"),
    ("Arabic-Indic digits", "٣٣"),
    ("200 CJK characters (600 bytes)", "漢" * 200),
    ("512 CJK characters", "漢" * 512),
    ("100,001 characters", "a" * 100_001),
    ("a time past 9999", "9999-12-31T23:59:59-14:00"),
    ("a time before 0001", "0001-01-01T00:00:00+14:00"),
    ("9999999 weeks", "9999999w"),
    ("an id of 512 bytes", "claude-code:" + "é" * 250),
]

#: Arguments that make each tool's call valid; each hostile value replaces one of them, or adds
#: one the call left out.
VALID: dict[str, dict[str, Any]] = {
    "search": {"query": "release"},
    "timeline": {"since": "3650d"},
    "get": {"id": PROMPT_ID},
    "sources": {"id": PROMPT_ID},
    "remember": {
        "kind": "knowledge",
        "text": "The release notes live in CHANGES.md.",
        "confidence": 0.5,
        "sources": [{"event_id": PROMPT_ID}],
    },
    "correct": {"id": "", "text": "The release notes live in docs/CHANGES.md."},
    "forget": {"id": "", "reason": "probe"},
    "ingest": {"content": "A probe of the hub.", "workspace": "/home/dev/demo-app"},
}
_BUG = ("this is a bug", "failed while running", "Traceback")


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(tmp_path_factory.mktemp("hub")) as running:
        yield running


def _entry(hub: Hub) -> str:
    """An entry of its own, citing an event of its own (a forget hides what it cites)."""
    recorded = hub.call("ingest", {"content": "Cited once.", "workspace": "/home/dev/probe"})
    cited = recorded["structuredContent"]["id"]
    made = hub.ok("remember", {**VALID["remember"], "sources": [{"event_id": cited}]})
    return str(made["entry"]["id"])


def assert_reads_answer(hub: Hub) -> None:
    assert hub.origin is not None
    report = verify(hub.origin.store, hub.origin.home)
    assert report.ok, report.problems
    assert hub.ok("search", {"query": "release"})["events"]
    assert hub.ok("timeline", {"since": "3650d"})["sessions"]
    assert hub.ok("timeline", {"session": SESSION})["events"]
    assert hub.ok("get", {"id": PROMPT_ID})["id"] == PROMPT_ID
    assert hub.ok("sources", {"id": PROMPT_ID})


@pytest.mark.parametrize("tool", sorted(VALID))
def test_every_argument_of_every_tool_given_hostile_values(hub: Hub, tool: str) -> None:
    names = [param.name for param in BY_NAME[tool].params]
    bugs = []
    # correct and forget: an entry that is neither superseded nor forgotten yet.
    current = _entry(hub) if "id" in VALID[tool] and not VALID[tool]["id"] else None
    for name in names:
        for what, value in HOSTILE:
            args = dict(VALID[tool])
            if current is not None:
                args["id"] = current
            args[name] = value
            response, result = hub.raw_call(tool, args)
            if response.status != 200 or result is None:
                bugs.append(f"{name} = {what}: HTTP {response.status} {response.body[:200]!r}")
                continue
            text = result["content"][0]["text"]
            if any(sign in text for sign in _BUG):
                bugs.append(f"{name} = {what}: {text[:300]}")
            if current is not None and not result["isError"] and name != "id":
                done = json.loads(text)
                current = done["entry"]["id"] if tool == "correct" else _entry(hub)
    assert not bugs, "\n".join(bugs)
    assert_reads_answer(hub)


#: The admin UI's pages with query arguments, each given the hostile values that fit a URL.
UI_PAGES: dict[str, list[str]] = {
    "/ui/": ["q"],
    "/ui/search": ["q", "limit", "since", "until", "source", "scope", "project"],
    "/ui/search/hits": ["q", "limit", "since"],
    "/ui/timeline": ["page", "since", "from", "until", "session", "source", "project"],
    "/ui/remember": ["event"],
    "/ui/session": ["id", "page"],
    "/ui/raw": ["id"],
    "/ui/entries": ["page", "q", "kind"],
    "/ui/forgets": ["page"],
    "/ui/forget": ["id"],
}
UI_VALUES = ["²", "٣", "１", "-1", "99999999999999999999999", "9999999w", "漢" * 512, "a\x00b"]


@pytest.mark.parametrize("page", sorted(UI_PAGES))
def test_ui_pages_given_hostile_query_arguments(hub: Hub, page: str) -> None:
    assert hub.origin is not None
    set_password(hub.origin.home, PASSWORD)
    with httpx2.Client(base_url=hub.base, timeout=10) as client:
        form = client.get("/ui/login")
        signed = client.post(
            "/ui/login",
            data={"_csrf": csrf_in(form.text), "secret": PASSWORD, "next": "/ui/search"},
        )
        assert signed.status_code == 303, signed.text[:300]
        bugs = []
        for name in UI_PAGES[page]:
            for value in UI_VALUES:
                answer = client.get(page, params={name: value})
                if answer.status_code >= 500:
                    bugs.append(f"{page}?{name}={value[:20]!r}: {answer.status_code}")
        assert not bugs, "\n".join(bugs)
    assert_reads_answer(hub)
