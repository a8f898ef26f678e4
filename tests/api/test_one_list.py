"""Each list of names is written once and the tools take it from there: sources from the parser
registry, entry kinds from the store's model, error categories from `errors`."""

from __future__ import annotations

import pytest

from origin_api.errors import CATEGORIES, OriginError
from origin_api.tools import TOOLS
from origin_store.model import ENTRY_KINDS
from origin_store.parsers.registry import SOURCES


def _enums(name: str) -> list[tuple[str, ...]]:
    return [p.enum for tool in TOOLS for p in tool.params if p.name == name]


def test_the_source_enum_offers_exactly_the_agents_origin_ingests():
    enums = _enums("source")
    assert enums and all(enum == tuple(SOURCES) for enum in enums)
    assert all(
        tool.as_mcp()["inputSchema"]["properties"]["source"]["enum"] == list(SOURCES)
        for tool in TOOLS
        if any(p.name == "source" for p in tool.params)
    )


def test_the_kind_enum_is_the_models_entry_kinds():
    enums = _enums("kind")
    assert len(enums) == 3 and all(enum == ENTRY_KINDS for enum in enums)


def test_every_source_the_contract_names_is_read_in_its_order():
    assert tuple(SOURCES) == ("claude-code", "codex", "cursor", "zcode", "grok")


def test_a_source_no_parser_reads_is_refused(tool):
    with pytest.raises(
        OriginError, match=f"^source must be one of {', '.join(SOURCES)}; got 'aider'"
    ):
        tool("search", query="x", source="aider")


def test_an_error_names_a_known_category():
    assert OriginError("x").category == "validation_error"
    for category in CATEGORIES:
        assert OriginError("x", category).category == category
    with pytest.raises(ValueError, match="Unknown error category 'nope'"):
        OriginError("x", "nope")
