"""The sync section end to end at a tiny size, so it cannot rot: a built home of a few hundred
events, a real hub process, both syncs and the merged searches."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import sync as bench_sync
from bench.queries import Query
from origin_api.runtime import Origin
from origin_api.samples.formats import HOME, generate_formats
from origin_api.settings import Settings

pytestmark = pytest.mark.e2e


def _built_home(tmp_path: Path) -> Path:
    """A small archive as the build section leaves one: its logs ingested, then left alone."""
    corpus = tmp_path / "corpus"
    generate_formats(corpus, 300, 3, ("claude-code",))
    home = tmp_path / "built"
    env = {
        **bench_sync._agentless_env(home, tmp_path / "empty"),
        "CLAUDE_CONFIG_DIR": str(corpus / HOME / "claude"),
    }
    with Origin.open(Settings.from_env(env)) as origin:
        report = origin.ingest()
        assert report is not None and report.events > 0
    return home


@pytest.mark.slow
def test_the_sync_section_measures_both_syncs_and_merged_search(tmp_path: Path) -> None:
    home = _built_home(tmp_path)
    before = sorted(p.relative_to(home) for p in home.rglob("*"))
    mix = [Query(text, "english", {}) for text in ("message", "error", "test file")]
    got = bench_sync.measure(home, mix, cap_s=60, new_events=200, root=tmp_path / "cache")

    first, inc, search = got["first"], got["incremental"], got["search"]
    assert first["complete"] and first["events"] == first["device_events"] > 0
    assert first["bytes_sent"] > 0 and first["events_per_s"] > 0
    assert inc["ingested"] > 0 and inc["new_events"] == inc["hub_has_new"] == inc["ingested"]
    assert inc["hub_events"] == first["events"] + inc["ingested"]
    assert 0 < inc["bytes_sent"] < first["bytes_sent"] * 10
    assert search["notes"] == 0 and search["merged"]["n"] == search["alone"]["n"] == 3
    assert len(bench_sync.table(got)) == 4
    assert sorted(p.relative_to(home) for p in home.rglob("*")) == before  # the copy was synced
    assert not list((tmp_path / "cache").iterdir())  # the scratch copy is gone
