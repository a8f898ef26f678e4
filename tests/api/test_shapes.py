"""The typed seams hold what runs: the tools' argument shapes are their declared parameters and
their handlers' keywords, and each result shape names the fields a real answer has, in the
order the JSON gives them."""

from __future__ import annotations

import inspect
from typing import Any

import orjson
import pytest

from origin_api.contract.args import ARGS
from origin_api.contract.tools import BY_NAME, TOOLS
from origin_api.service import reading, record, shapes, writing

EVENT_ID = "claude-code:a0000001-0000-4000-8000-000000000001"
EVENT_ORDER = ["id", "time", "source", "project", "session", "role", "kind", "text"]
ENTRY_ORDER = [
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
]
SESSION_ORDER = ["session", "source", "project", "title", "prompt", "started", "ended", "events"]
SOURCE_ORDER = ["event_id", "time", "quote", "original_file", "mirror_file", "line", "raw"]
HISTORY_ORDER = ["id", "supersedes", "author", "created", "status"]

HANDLERS = {
    "search": reading.search,
    "timeline": reading.timeline,
    "get": reading.get,
    "sources": reading.sources,
    "remember": writing.remember,
    "correct": writing.correct,
    "forget": writing.forget,
    "ingest": record.ingest,
}
#: The least each tool takes; validation fills in the rest.
LEAST: dict[str, dict[str, Any]] = {
    "search": {},
    "timeline": {},
    "get": {"id": EVENT_ID},
    "sources": {"id": EVENT_ID},
    "remember": {"kind": "memory", "text": "t", "sources": [{"quote": "q"}], "confidence": 1},
    "correct": {"id": "ent_000000000000", "text": "t"},
    "forget": {"id": EVENT_ID, "reason": "asked"},
    "ingest": {"content": "c", "workspace": "/w", "tags": ["a"]},
}


def fields(shape: type) -> list[str]:
    """A shape's fields but `origin` (only a connected device's answers carry it)."""
    return [name for name in shape.__annotations__ if name != "origin"]


@pytest.mark.parametrize("spec", TOOLS, ids=lambda spec: spec.name)
def test_each_tools_arguments_are_its_parameters_and_its_handlers_keywords(spec):
    shape = set(ARGS[spec.name].__annotations__)
    assert shape == {p.name for p in spec.params}
    keywords = {
        name
        for name, p in inspect.signature(HANDLERS[spec.name]).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }
    assert keywords - {"caller", "elsewhere"} == shape
    assert set(spec.validate(LEAST[spec.name])) == shape  # every argument, defaults filled


def test_every_tool_has_an_argument_shape():
    assert set(ARGS) == set(BY_NAME) == set(HANDLERS)


@pytest.mark.parametrize(
    ("shape", "order"),
    [
        (shapes.EventView, EVENT_ORDER),
        (shapes.FoundEvent, [*EVENT_ORDER, "snippet"]),
        (shapes.EventDetail, [*EVENT_ORDER, "cwd", "git_branch", "agent_version"]),
        (shapes.EntryView, ENTRY_ORDER),
        (shapes.SessionView, SESSION_ORDER),
        (shapes.SourceItem, SOURCE_ORDER),
        (shapes.HistoryItem, HISTORY_ORDER),
    ],
    ids=lambda item: item.__name__ if isinstance(item, type) else "",
)
def test_each_view_shape_is_the_contracts_fields(shape, order):
    assert sorted(fields(shape)) == sorted(order)
    assert "origin" in shape.__annotations__  # a connected device labels every item


def keys(payload: Any) -> list[str]:
    """The keys of a JSON object in the order the encoded answer gives them."""
    return list(orjson.loads(orjson.dumps(payload)))


def test_real_answers_have_the_shapes_fields_in_the_contracts_order(tool):
    found = tool("search", query="token bucket", since="2000-01-01")
    assert keys(found) == fields(shapes.SearchResult)
    assert keys(found["events"][0]) == [*EVENT_ORDER, "snippet"]
    event = tool("get", id=EVENT_ID)
    assert keys(event) == [*EVENT_ORDER, "cwd", "git_branch", "agent_version"]
    assert keys(tool("sources", id=EVENT_ID)[0]) == SOURCE_ORDER
    made = tool(
        "remember", kind="memory", text="A token bucket.", confidence=1, sources=[{"quote": "Add"}]
    )
    assert keys(made) == fields(shapes.EntryResult) and keys(made["entry"]) == ENTRY_ORDER
    got = tool("get", id=made["entry"]["id"])
    assert keys(got) == fields(shapes.EntryDetail)
    assert keys(got["sources"][0]) == ["quote", *EVENT_ORDER]
    assert keys(got["history"][0]) == HISTORY_ORDER
    listed = tool("timeline", since="2000-01-01")
    assert keys(listed) == fields(shapes.SessionsResult)
    assert keys(listed["sessions"][0]) == SESSION_ORDER
    one = tool("timeline", since="2000-01-01", session=event["session"])
    assert keys(one) == fields(shapes.SessionEvents) and keys(one["events"][0]) == EVENT_ORDER
    gone = tool("forget", id=made["entry"]["id"], reason="asked")
    assert keys(gone) == fields(shapes.ForgetResult)
    said = tool("ingest", content="A note.", workspace="/home/dev/demo-app")
    assert keys(said.data) == fields(shapes.Recorded)
