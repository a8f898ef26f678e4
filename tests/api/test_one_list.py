"""Each list of names is written once and the tools take it from there: sources from the parser
registry, entry kinds from the store's model, error categories from `errors`."""

from __future__ import annotations

import pytest

from origin_api.contract.tools import TOOLS
from origin_api.errors import CATEGORIES, OriginError
from origin_store.model import ENTRY_KINDS
from origin_store.parsers.registry import SOURCES


def test_the_source_filters_name_exactly_the_agents_origin_ingests():
    """`source` filters are free text (a source recorded with `ingest` is named by its client),
    so the agents are listed in the description, from the registry, rather than in an enum."""
    filters = [
        (tool, p) for tool in TOOLS for p in tool.params if p.name == "source" and tool.read_only
    ]
    assert {tool.name for tool, _ in filters} == {"search", "timeline"}
    for tool, param in filters:
        assert param.enum is None
        schema = tool.as_mcp()["inputSchema"]["properties"]["source"]
        assert "enum" not in schema and f"({', '.join(SOURCES)})" in schema["description"]


def test_the_kind_enum_is_the_models_entry_kinds():
    enums = {tool.name: p.enum for tool in TOOLS for p in tool.params if p.name == "kind"}
    assert enums == {
        "search": ENTRY_KINDS,
        "remember": ENTRY_KINDS,
        "correct": ENTRY_KINDS,
        "ingest": None,  # the client's own word, kept as given
    }


def test_every_source_the_contract_names_is_read_in_its_order():
    assert tuple(SOURCES) == (
        "claude-code",
        "codex",
        "cursor",
        "zcode",
        "grok",
        "gemini",
        "opencode",
        "copilot",
        "qwen",
    )


def test_a_source_nothing_recorded_finds_nothing_and_a_nameless_one_is_refused(tool):
    assert tool("search", query="token", source="aider", scope="events")["events"] == []
    with pytest.raises(OriginError, match=f"^source must be an agent \\({', '.join(SOURCES)}\\)"):
        tool("search", query="x", source="!!!")


def test_an_error_names_a_known_category():
    assert OriginError("x").category == "validation_error"
    for category in CATEGORIES:
        assert OriginError("x", category).category == category
    with pytest.raises(ValueError, match="Unknown error category 'nope'"):
        OriginError("x", "nope")
