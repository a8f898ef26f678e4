"""The seven tools' semantics over real storage and the fixture logs, called in-process."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest

from origin_api.errors import OriginError
from origin_api.service import Caller, call
from origin_store.entries import versions as store_entries

ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$")
ENTRY_FIELDS = {
    "id",
    "kind",
    "text",
    "confidence",
    "status",
    "concurrent",
    "project",
    "author",
    "created",
    "valid_from",
    "valid_to",
    "supersedes",
    "superseded_by",
    "root",
    "imported",
}
EVENT_FIELDS = {"id", "time", "source", "project", "session", "role", "kind", "text"}
SESSION_FIELDS = {"session", "source", "project", "title", "prompt", "started", "ended", "events"}


def error_of(fn, *args, **kwargs) -> str:
    with pytest.raises(OriginError) as caught:
        fn(*args, **kwargs)
    return caught.value.message


def test_search_finds_english_and_cjk_with_snippets(tool):
    result = tool("search", query="token bucket", since="2000-01-01")
    assert result["events"], result
    event = result["events"][0]
    assert set(event) == EVENT_FIELDS | {"snippet"} and ISO.match(event["time"])
    assert "[token]" in event["snippet"].lower() and "[bucket]" in event["snippet"].lower()
    cjk = tool("search", query="笔记")
    assert cjk["events"] and all(
        "笔记" in e["text"] or "笔记" in e["snippet"] for e in cjk["events"]
    )
    assert "[笔记]" in cjk["events"][0]["snippet"]


def test_search_filters_tools_and_limits(tool):
    plain = tool("search", query="vitest")
    with_tools = tool("search", query="vitest", include_tools=True)
    assert all(e["kind"] in ("message", "memory") for e in plain["events"])
    assert any(e["kind"] in ("tool_use", "tool_result") for e in with_tools["events"])
    assert len(tool("search", query="the", include_tools=True, limit=1)["events"]) == 1
    only_codex = tool("search", query="build", source="codex", include_tools=True)
    assert only_codex["events"] and {e["source"] for e in only_codex["events"]} == {"codex"}
    assert tool("search", query="build", project="no-such-project")["events"] == []
    assert tool("search", query="vitest", since="2999-01-01")["events"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"limit": 0}, "limit must be between 1 and 100; got 0."),
        ({"limit": 101}, "limit must be between 1 and 100; got 101."),
        ({"limit": "5"}, "limit must be an integer."),
        ({"scope": "both"}, "scope must be one of all, entries, events; got 'both'."),
        ({"since": "yesterday"}, "since is not a time"),
        ({"query": 5}, "query must be a string."),
        ({"include_tools": "yes"}, "include_tools must be true or false."),
        ({"bogus": 1}, "Unknown argument 'bogus' for search"),
    ],
)
def test_search_rejects_bad_arguments_readably(tool, args, message):
    assert error_of(tool, "search", **args).startswith(message)


@pytest.mark.parametrize(
    "query",
    ["*", '"', "(", "^", "-v", "KeyError: 'x'", "C:\\path", "a" * 10_000, "   ", "!@#$%^&*()"],
)
def test_hostile_queries_never_raise(tool, query):
    result = tool("search", query=query)
    assert set(result) == {"entries", "events"}


def test_search_cuts_text_at_400_and_notes_the_cut(tool, origin):
    log = (
        Path(origin.settings.environ["CLAUDE_CONFIG_DIR"])
        / "projects/-home-dev-demo-app/7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10.jsonl"
    )
    text = "数据库 " + "x" * 5000 + " migrated"
    line = {
        "type": "user",
        "uuid": "10000000-0000-4000-8000-000000000000",
        "sessionId": "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10",
        "cwd": "/home/dev/demo-app",
        "timestamp": "2026-10-20T11:00:00.000Z",
        "message": {"role": "user", "content": text},
    }
    with log.open("ab") as f:
        f.write(orjson.dumps(line) + b"\n")
    [event] = tool("search", query="migrated 数据库")["events"]
    kept, note = event["text"].rsplit("… [", 1)
    assert kept == text[:400] and note == f"{len(text) - 400:,} characters cut]"
    assert event["snippet"].startswith("[数据库]") and event["snippet"].count("[") == 1
    assert tool("get", id=event["id"])["text"] == text


def test_timeline_lists_sessions_and_one_session(tool):
    sessions = tool("timeline", since="3650d")["sessions"]
    assert sessions and all(set(s) == SESSION_FIELDS for s in sessions)
    ended = [s["ended"] for s in sessions]
    assert ended == sorted(ended, reverse=True)
    titled = {s["title"] for s in sessions}
    assert "rate-limiter" in titled and "Fix CI build (tsconfig.build.json)" in titled
    untitled = [s for s in sessions if s["title"] is None]
    assert untitled and all(s["prompt"] and len(s["prompt"]) <= 80 for s in untitled)
    assert all(s["prompt"] is None for s in sessions if s["title"])
    one = tool("timeline", session="7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10")
    assert one["session"]["title"] == "rate-limiter"
    times = [e["time"] for e in one["events"]]
    assert times == sorted(times) and all(e["kind"] == "message" for e in one["events"])
    everything = tool(
        "timeline", session="7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10", include_tools=True, limit=500
    )
    assert len(everything["events"]) > len(one["events"])
    assert all(len(e["text"]) <= 1000 + 40 for e in everything["events"])
    assert (
        len(
            tool(
                "timeline",
                session="7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10",
                include_tools=True,
                limit=2,
            )["events"]
        )
        == 2
    )
    assert error_of(tool, "timeline", session="nope") == "Unknown session nope."
    assert (
        tool("timeline", since="3650d", source="codex", limit=1)["sessions"][0]["source"] == "codex"
    )


def test_get_and_sources_of_an_event(tool, origin):
    event_id = "claude-code:a0000001-0000-4000-8000-000000000001"
    event = tool("get", id=event_id)
    assert event["cwd"] == "/home/dev/demo-app" and event["git_branch"] == "feat/rate-limit"
    assert event["agent_version"] == "2.1.241" and event["text"].startswith("Add a token-bucket")
    [source] = tool("sources", id=event_id)
    assert source["event_id"] == event_id and source["quote"] is None and source["line"] == 4
    original = Path(source["original_file"]).read_bytes().split(b"\n")[3].decode()
    assert source["raw"] == original
    assert source["mirror_file"].startswith(str(origin.home / "raw"))
    assert (
        error_of(tool, "get", id="claude-code:nope") == "Unknown entry or event claude-code:nope."
    )
    assert (
        error_of(tool, "sources", id="ent_000000000000")
        == "Unknown entry or event ent_000000000000."
    )


def test_remember_by_id_and_quote_with_contract_errors(tool):
    event_id = "claude-code:a0000001-0000-4000-8000-000000000001"
    entry = tool(
        "remember",
        kind="memory",
        text="The rate limiter is a token bucket.",
        confidence=0.9,
        sources=[{"event_id": event_id, "quote": "TOKEN-bucket   rate limiter"}],
    )["entry"]
    assert (
        set(entry) == ENTRY_FIELDS
        and entry["author"] == "test-agent@testbox"
        and entry["status"] == "active"
    )
    assert (
        entry["root"] == entry["id"]
        and re.match(r"^ent_[0-9a-f]{12,32}$", entry["id"])
        and entry["project"] == "demo-app"
    )
    by_quote = tool(
        "remember",
        kind="knowledge",
        text="Burst is 20.",
        confidence=0.5,
        sources=[{"quote": "10 req/s, burst 20"}],
    )
    got = tool("get", id=by_quote["entry"]["id"])
    # The user's prompt and the assistant's later summary both contain it: the most recent wins.
    assert got["sources"][0]["id"] == "claude-code:a000000d-0000-4000-8000-00000000000d"
    assert (
        got["sources"][0]["quote"] == "10 req/s, burst 20"
        and got["sources"][0]["role"] == "assistant"
    )
    assert error_of(
        tool,
        "remember",
        kind="memory",
        text="x",
        confidence=1,
        sources=[{"quote": "zzqx never said"}],
    ) == (
        'No event contains the quote "zzqx never said". Search for the event and cite its id instead.'
    )
    assert error_of(
        tool,
        "remember",
        kind="memory",
        text="x",
        confidence=1,
        sources=[{"event_id": event_id, "quote": "nope nope"}],
    ) == (f'Quote not found in event {event_id}: "nope nope"')
    assert error_of(tool, "remember", kind="memory", text="x", confidence=1, sources=[]).startswith(
        "sources needs at least one source"
    )
    assert (
        error_of(
            tool, "remember", kind="memory", text="x", confidence=1.5, sources=[{"quote": "a"}]
        )
        == "confidence must be between 0 and 1; got 1.5."
    )
    assert error_of(
        tool, "remember", kind="fact", text="x", confidence=1, sources=[{"quote": "a"}]
    ).startswith("kind must be one of memory, knowledge, cognition")
    found = tool("search", query="rate limiter token bucket", scope="entries")["entries"]
    assert [e["id"] for e in found] == [entry["id"]]
    recent = tool("search", scope="entries")["entries"]
    assert [e["id"] for e in recent][:2] == [by_quote["entry"]["id"], entry["id"]]


def test_correct_versions_forks_and_contract_error(tool, origin):
    first = tool(
        "remember",
        kind="memory",
        text="Limiter is 10 req/s.",
        confidence=0.6,
        sources=[{"quote": "10 req/s"}],
    )["entry"]
    second = tool("correct", id=first["id"], text="Limiter is 10 req/s with burst 20.")["entry"]
    assert (
        second["supersedes"] == first["id"]
        and second["root"] == first["id"]
        and second["confidence"] == 0.6
    )
    assert second["created"] > first["created"]
    assert error_of(tool, "correct", id=first["id"], text="again") == (
        f"Entry {first['id']} was already corrected; its current version is {second['id']}. Correct that one instead."
    )
    old = tool("get", id=first["id"])
    assert old["entry"]["status"] == "superseded" and old["entry"]["superseded_by"] == second["id"]
    # A concurrent correction made elsewhere (as a hub sync delivers it) forks the history.
    with origin.store.read() as txn:
        base = store_entries.get_entry(origin.store, txn, first["id"])
    fork = {
        **base,
        "id": "ent_ffffffffffffffff",
        "text": "Limiter is 5 req/s.",
        "supersedes": first["id"],
        "author": "codex@laptop",
        "created": base["created"] + 1,
    }
    origin.store.write(lambda txn: store_entries.put_version(origin.store, txn, fork))
    history = tool("get", id=second["id"])["history"]
    assert [h["id"] for h in history] == [first["id"], fork["id"], second["id"]]
    current = tool("get", id=second["id"])["entry"]
    loser = tool("get", id=fork["id"])["entry"]
    assert (
        current["status"] == "active"
        and loser["status"] == "superseded"
        and loser["concurrent"] is True
    )
    assert tool("search", query="Limiter", scope="entries")["entries"][0]["id"] == second["id"]


def test_forget_and_restore(tool, origin):
    event_id = "claude-code:a0000001-0000-4000-8000-000000000001"
    entry = tool(
        "remember",
        kind="memory",
        text="Rate limiter decided.",
        confidence=0.8,
        sources=[{"event_id": event_id}],
    )["entry"]
    result = tool("forget", id=entry["id"], reason="user asked")
    assert (
        result["tombstone"].startswith("tmb_")
        and result["forgotten_entries"] == [entry["id"]]
        and result["excluded_events"] == 1
    )
    assert tool("forget", id=entry["id"], reason="again") == {
        "tombstone": None,
        "forgotten_entries": [],
        "excluded_events": 0,
    }
    assert error_of(tool, "get", id=entry["id"]) == f"{entry['id']} has been forgotten."
    assert error_of(tool, "get", id=event_id) == f"{event_id} has been forgotten."
    assert error_of(tool, "sources", id=event_id) == f"{event_id} has been forgotten."
    assert all(
        e["id"] != event_id for e in tool("search", query="token bucket rate limiter")["events"]
    )
    assert error_of(
        tool, "remember", kind="memory", text="x", confidence=1, sources=[{"event_id": event_id}]
    ) == (f"Event {event_id} has been forgotten and cannot be cited.")
    assert (
        error_of(tool, "forget", id="ent_0000000000000", reason="x")
        == "Unknown entry or event ent_0000000000000."
    )
    assert error_of(tool, "forget", id=event_id, reason="x" * 2001).startswith(
        "reason must have at most 2,000 characters"
    )
    from origin_api.admin import restore

    back = restore(origin, result["tombstone"])
    assert back["restored_entries"] == [entry["id"]] and back["restored_events"] == 1
    assert tool("get", id=event_id)["id"] == event_id
    assert any(
        e["id"] == event_id for e in tool("search", query="token bucket rate limiter")["events"]
    )


def test_forgetting_an_event_hides_entries_citing_it(tool):
    event_id = "claude-code:a0000001-0000-4000-8000-000000000001"
    entry = tool(
        "remember",
        kind="memory",
        text="Cites the prompt.",
        confidence=0.8,
        sources=[{"event_id": event_id}],
    )["entry"]
    result = tool("forget", id=event_id, reason="pasted a key")
    assert result["forgotten_entries"] == [entry["id"]] and result["excluded_events"] == 1
    assert tool("search", query="Cites the prompt", scope="entries")["entries"] == []


def test_unknown_tool_and_non_object_arguments(origin):
    caller = Caller("t", "d")
    assert error_of(call, origin, "nope", {}, caller).startswith("Unknown tool 'nope'")
    assert (
        error_of(call, origin, "search", [1, 2], caller)
        == "The arguments of search must be an object."
    )


def test_expired_entries_leave_search_but_get_returns_them(tool):
    entry = tool(
        "remember",
        kind="knowledge",
        text="The staging server is wombat.",
        confidence=0.9,
        sources=[{"quote": "token-bucket"}],
        valid_to="2000-01-01",
    )["entry"]
    assert entry["valid_to"].startswith("2000-01-01") or entry["valid_to"].startswith("1999-12-31")
    assert tool("search", query="wombat", scope="entries")["entries"] == []
    assert all(e["id"] != entry["id"] for e in tool("search", scope="entries")["entries"])
    assert tool("get", id=entry["id"])["entry"]["id"] == entry["id"]


def test_a_quote_alone_never_cites_a_tool_call(tool, origin):
    log = (
        Path(origin.settings.environ["CLAUDE_CONFIG_DIR"])
        / "projects/-home-dev-demo-app/7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10.jsonl"
    )
    base = {"sessionId": "7f3c9a52-1d4e-4b8a-9c61-2e5f8a7b3d10", "cwd": "/home/dev/demo-app"}
    call_line = {
        **base,
        "type": "assistant",
        "uuid": "20000000-0000-4000-8000-000000000001",
        "timestamp": "2026-10-20T11:00:00.000Z",
        "message": {
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_x",
                    "name": "Bash",
                    "input": {"command": "echo platypus-quote-here"},
                }
            ],
        },
    }
    result_line = {
        **base,
        "type": "user",
        "uuid": "20000000-0000-4000-8000-000000000002",
        "timestamp": "2026-10-20T11:00:01.000Z",
        "message": {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_x", "content": "platypus-quote-here"}
            ],
        },
    }
    later_call = {
        **call_line,
        "uuid": "20000000-0000-4000-8000-000000000003",
        "timestamp": "2026-10-20T11:00:02.000Z",
    }
    with log.open("ab") as f:
        for line in (call_line, result_line, later_call):
            f.write(orjson.dumps(line) + b"\n")
    entry = tool(
        "remember",
        kind="knowledge",
        text="echo works",
        confidence=0.5,
        sources=[{"quote": "platypus-quote-here"}],
    )["entry"]
    [source] = tool("get", id=entry["id"])["sources"]
    assert (
        source["id"] == "claude-code:20000000-0000-4000-8000-000000000002"
        and source["kind"] == "tool_result"
    )


def test_a_deleted_index_is_rebuilt_from_the_store(tmp_path, fixtures_dir):
    import shutil

    from helpers import fixture_env

    from origin_api.runtime import Origin
    from origin_store import Settings

    settings = Settings.from_env(fixture_env(tmp_path, copy=True))
    caller = Caller("t", "d")
    with Origin.open(settings) as origin:
        before = call(origin, "search", {"query": "token bucket"}, caller)["events"]
        entry = call(
            origin,
            "remember",
            {
                "kind": "memory",
                "text": "kept across rebuilds: emu",
                "confidence": 1,
                "sources": [{"quote": "token-bucket"}],
            },
            caller,
        )["entry"]
    shutil.rmtree(settings.home / "index")
    with Origin.open(settings) as origin:
        assert call(origin, "search", {"query": "token bucket"}, caller)["events"] == before
        assert [
            e["id"]
            for e in call(origin, "search", {"query": "emu", "scope": "entries"}, caller)["entries"]
        ] == [entry["id"]]


def test_hits_are_named_through_the_feed_exactly_as_their_indexed_ids(tool, origin):
    """A hit's id comes from the feed item at its `seq` (events keep no stored id): each one
    names the very document that the index's own `id` term finds."""
    from tantivy import Occur, Query

    from origin_search import Filters, clauses
    from origin_search.schema import build_query
    from origin_store.reader import events_at

    index = origin.index
    origin.searcher.catch_up()

    def lookup(seqs: list[int]) -> list[str | None]:
        return [named[0] if named else None for named in events_at(origin.store, seqs)]

    def both(query: str) -> tuple[list, list]:
        """The hits' ids as searches name them, and each again where its `id` term and the
        query find one document together, in all the partitions."""
        index.reload()
        named = [hit.id for hit in index.hits(clauses(query), Filters(doc="event"), 50)]
        by_term = []
        for name in named:
            together = 0
            for part in index._parts:
                by_id = Query.term_query(part.schema, "id", name)
                asked = build_query(part.schema, clauses(query), Filters(), None)
                both = Query.boolean_query([(Occur.Must, by_id), (Occur.Must, asked)])
                together += part.searcher().search(both, limit=2).count
            by_term.append(name if together == 1 else None)
        return named, by_term

    for query in ("rate limiter", "token bucket", "数据库"):
        named, by_term = both(query)
        assert named == by_term
    assert both("token bucket rate limiter")[0]

    store = origin.store
    with store.read() as txn:
        items = list(store.feed_since(txn, 0))
    seq, item = next((s, i) for s, i in items if i["t"] == "event")
    assert lookup([seq, 0, items[-1][0] + 1]) == [item["id"], None, None]

    # An event forgotten and restored is indexed again without its sequence: named by the id
    # stored with it.
    event_id = "claude-code:a0000001-0000-4000-8000-000000000001"
    result = tool("forget", id=event_id, reason="user asked")
    from origin_api.admin import restore

    restore(origin, result["tombstone"])
    entry = tool(
        "remember",
        kind="memory",
        text="Token bucket limiter.",
        confidence=0.8,
        sources=[{"event_id": event_id}],
    )["entry"]
    named, by_term = both("token bucket rate limiter")
    assert named == by_term and event_id in named
    with store.read() as txn:
        others = [
            s for s, i in store.feed_since(txn, 0) if i["t"] != "event"
        ]  # hide, unhide, entry
    assert others and lookup(others) == [None] * len(others)
    assert (
        tool("search", query="Token bucket limiter", scope="entries")["entries"][0]["id"]
        == entry["id"]
    )
