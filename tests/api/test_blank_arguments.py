"""Every string parameter of the eight tools, given "" and "  ": a readable error or, where the
contract documents it, the default. Table-driven so a new parameter has to be listed here."""

from __future__ import annotations

import pytest

from origin_api.contract.tools import TOOLS
from origin_api.errors import OriginError

EVENT = "claude-code:a0000001-0000-4000-8000-000000000001"
TIME_ERROR = "{name} must not be empty: give a time such as 30m, 24h, 7d or 2w"

#: (tool, parameter) → what a blank value gives: an error message prefix, or "absent".
BLANK: dict[tuple[str, str], str] = {
    ("search", "query"): "absent",
    ("search", "scope"): "scope must be one of all, entries, events",
    ("search", "kind"): "kind must be one of memory, knowledge, cognition",
    ("search", "since"): TIME_ERROR,
    ("search", "until"): TIME_ERROR,
    ("search", "source"): "source must not be empty.",
    ("search", "project"): "project must not be empty.",
    ("timeline", "since"): TIME_ERROR,
    ("timeline", "until"): TIME_ERROR,
    ("timeline", "source"): "source must not be empty.",
    ("timeline", "project"): "project must not be empty.",
    ("timeline", "session"): "session must not be empty.",
    ("get", "id"): "id must not be empty.",
    ("sources", "id"): "id must not be empty.",
    ("remember", "kind"): "kind must be one of memory, knowledge, cognition",
    ("remember", "text"): "text must not be empty.",
    ("remember", "project"): "project must not be empty.",
    ("remember", "valid_from"): TIME_ERROR,
    ("remember", "valid_to"): TIME_ERROR,
    ("correct", "id"): "id must not be empty.",
    ("correct", "text"): "text must not be empty.",
    ("correct", "kind"): "kind must be one of memory, knowledge, cognition",
    ("correct", "valid_from"): TIME_ERROR,
    ("correct", "valid_to"): TIME_ERROR,
    ("forget", "id"): "id must not be empty.",
    ("forget", "reason"): "reason must not be empty.",
    ("ingest", "content"): "content must not be empty.",
    ("ingest", "workspace"): "workspace must not be empty.",
    ("ingest", "source"): "source must not be empty.",
    ("ingest", "kind"): "kind must not be empty.",
    ("ingest", "title"): "title must not be empty.",
    ("ingest", "session"): "session must not be empty.",
}

#: The other arguments each tool needs to get as far as the parameter under test.
BASE: dict[str, dict] = {
    "search": {"query": "token"},
    "timeline": {},
    "get": {"id": EVENT},
    "sources": {"id": EVENT},
    "remember": {
        "kind": "memory",
        "text": "A fact.",
        "confidence": 0.5,
        "sources": [{"event_id": EVENT}],
    },
    "correct": {"id": "ent_000000000000", "text": "A fact."},
    "forget": {"id": "ent_000000000000", "reason": "asked"},
    "ingest": {"content": "Chose a token bucket.", "workspace": "/home/dev/demo-app"},
}


def test_every_string_parameter_is_in_the_table():
    declared = {(t.name, p.name) for t in TOOLS for p in t.params if p.type in ("string", "time")}
    assert declared == set(BLANK)


@pytest.mark.parametrize("blank", ["", "  ", "\t\n"])
@pytest.mark.parametrize(("tool_name", "param"), sorted(BLANK))
def test_blank_strings_are_refused_or_mean_absent(shared_tool, tool_name, param, blank):
    tool = shared_tool  # every call is refused before it writes, or is a search or a timeline
    expected = BLANK[(tool_name, param)]
    args = {**BASE[tool_name], param: blank}
    if expected == "absent":
        without = {k: v for k, v in args.items() if k != param}
        assert tool(tool_name, **args) == tool(tool_name, **without)
        return
    with pytest.raises(OriginError) as caught:
        tool(tool_name, **args)
    assert caught.value.message.startswith(expected.format(name=param)), caught.value.message


def test_an_empty_until_is_no_longer_taken_as_absent(tool):
    with pytest.raises(OriginError) as caught:
        tool("search", query="token", until="")
    assert caught.value.message == (
        "until must not be empty: give a time such as 30m, 24h, 7d or 2w (back from now), a date such as "
        "2026-10-20, or ISO 8601, or leave it out."
    )


def test_time_parameters_are_strings_in_the_schema():
    for spec in TOOLS:
        schema = spec.input_schema()["properties"]
        for p in spec.params:
            if p.type == "time":
                assert schema[p.name]["type"] == "string" and schema[p.name]["minLength"] == 1
