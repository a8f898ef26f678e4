"""Only the log's own words are searched: the words Origin adds to say what an event is
(`thread name: `, `session start: `, `turn: model `, `[error] `, …) are shown, never matched,
whether the index answers or the scan of what it has not indexed yet."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from origin_api.errors import OriginError
from origin_search import clauses, matches
from origin_store.reader import get_event
from origin_store.textclip import with_label

CI = "019a0b1c-2d3e-7f40-8a51-6b7c8d9e0f12"
ROLLOUT = f"sessions/2026/10/20/rollout-2026-10-20T17-14-03-{CI}.jsonl"
THREAD_NAME = f"codex:{CI}:L24"
FAILED_TOOL = "claude-code:a0000017-0000-4000-8000-000000000017"
#: Words that the fixtures' events hold only in Origin's labels, or in labels and some texts.
LABEL_WORDS = [
    "thread",
    "name",
    "thread name",
    "session",
    "start",
    "session start",
    "turn",
    "model",
    "approval",
    "sandbox",
    "cwd",
    "source",
    "aborted",
    "compacted",
    "trigger",
    "preTokens",
    "permission",
    "mode",
    "title",
    "error",
    "exit code",
]


def _record(origin, event_id: str) -> dict:
    with origin.store.read() as txn:
        return get_event(origin.store, txn, event_id)


def _all_records(origin) -> list[dict]:
    with origin.store.read() as txn:
        return [origin.store.codec.decode(txn, k, v) for k, v in origin.store.iter_events(txn)]


def _check_label_words(tool, origin) -> None:
    records = _all_records(origin)
    for query in LABEL_WORDS:
        found = clauses(query)
        # The label alone would have matched some event: the check below means something.
        assert any(
            r.get("label")
            and matches(with_label(r["text"], r["label"]), found)
            and not matches(r["text"], found)
            for r in records
        ), query
        events = tool("search", query=query, include_tools=True, limit=100)["events"]
        for event in events:
            assert matches(_record(origin, event["id"])["text"], found), (query, event)


def test_origins_labels_are_not_searched_the_logs_words_are(tool, origin):
    _check_label_words(tool, origin)
    # The log's words in labelled events are found, and shown with their label.
    [named] = [
        e
        for e in tool("search", query="CI build fix", include_tools=True)["events"]
        if e["id"] == THREAD_NAME
    ]
    assert named["text"] == "thread name: CI build fix" and named["snippet"] == "[CI] [build] [fix]"
    turns = tool("search", query="gpt-5.5 workspace-write", include_tools=True)["events"]
    assert turns and all(e["text"].startswith("turn: model gpt-5.5") for e in turns)
    assert turns[0]["snippet"].startswith("[gpt-5.5] (high), on-request, [workspace-write]")
    failed = tool("search", query="String to replace not found", include_tools=True)["events"]
    assert [e["text"][:20] for e in failed if e["id"] == FAILED_TOOL] == ["[error] <tool_use_er"]


def test_get_and_timeline_show_the_labelled_text(tool):
    assert tool("get", id=THREAD_NAME)["text"] == "thread name: CI build fix"
    assert (
        tool("get", id=f"codex:{CI}:L1")["text"]
        == "session start: codex_cli_rs, 0.131.0, source cli, cwd /home/dev/demo-app"
    )
    events = {
        e["id"]: e["text"]
        for e in tool("timeline", session=CI, include_tools=True, limit=500)["events"]
    }
    assert events[THREAD_NAME] == "thread name: CI build fix"
    assert (
        events[f"codex:{CI}:L5"]
        == "turn: model gpt-5.5 (high), approval on-request, sandbox workspace-write, cwd /home/dev/demo-app"
    )


def _append_puppeteer(origin) -> None:
    log = Path(origin.settings.environ["CODEX_HOME"]) / ROLLOUT
    lines = [
        {
            "type": "event_msg",
            "payload": {
                "type": "thread_name_updated",
                "thread_id": CI,
                "thread_name": "Puppeteer flake",
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "the puppeteer thread pool leaks"}],
            },
        },
    ]
    with log.open("ab") as f:
        for line in lines:
            f.write(orjson.dumps({"timestamp": "2026-10-20T10:00:00.000Z", **line}) + b"\n")


def _puppeteer_checks(tool) -> None:
    both = tool("search", query="puppeteer thread", include_tools=True)["events"]
    assert [e["text"] for e in both] == ["the puppeteer thread pool leaks"]
    titled = {e["id"]: e for e in tool("search", query="puppeteer", include_tools=True)["events"]}
    assert titled[f"codex:{CI}:L36"]["text"] == "thread name: Puppeteer flake"
    assert titled[f"codex:{CI}:L36"]["snippet"] == "[Puppeteer] flake"
    assert tool("search", query="thread name", include_tools=True)["events"] == []


def test_puppeteer_thread_finds_what_the_log_says(tool, origin):
    _append_puppeteer(origin)
    _puppeteer_checks(tool)


def test_the_unindexed_tail_searches_the_logs_words_too(tool, origin):
    """With the index writer held elsewhere, new events are found by the scan of the feed."""
    from origin_search import catchup

    catchup.catch_up(origin.store, origin.index)
    writer = origin.index.try_writer()
    assert writer is not None
    try:
        _append_puppeteer(origin)
        origin.ingest()
        assert catchup.unindexed_tail(origin.store, 100)  # the new events wait for the index
        _puppeteer_checks(tool)
        assert catchup.unindexed_tail(origin.store, 100)
    finally:
        writer.close()


def test_remember_accepts_a_quote_of_the_shown_text_when_the_event_is_named(tool):
    def remember(*sources):
        return tool(
            "remember",
            kind="knowledge",
            text="The CI thread is named.",
            confidence=0.5,
            sources=list(sources),
        )

    # Named by id, a quote may be of what `get` showed (label included) or of the log's words.
    for quote in ("thread name: CI build fix", "CI build fix", "name: ci BUILD"):
        entry = remember({"event_id": THREAD_NAME, "quote": quote})["entry"]
        assert tool("get", id=entry["id"])["sources"][0]["quote"] == quote
    entry = remember(
        {"event_id": FAILED_TOOL, "quote": "[error] <tool_use_error>String to replace"}
    )["entry"]
    assert tool("get", id=entry["id"])["sources"][0]["id"] == FAILED_TOOL
    with pytest.raises(OriginError) as caught:
        remember({"event_id": THREAD_NAME, "quote": "thread name: something else"})
    assert (
        caught.value.message
        == f'Quote not found in event {THREAD_NAME}: "thread name: something else"'
    )
    # A quote alone is looked for in the log's words: Origin's label is not something anyone said.
    by_quote = remember({"quote": "<tool_use_error>String to replace not found"})["entry"]
    assert tool("get", id=by_quote["id"])["sources"][0]["id"] == FAILED_TOOL
    with pytest.raises(OriginError) as caught:
        remember({"quote": "[error] <tool_use_error>String to replace not found"})
    assert caught.value.message.startswith('No event contains the quote "[error] <tool_use_error>')
