"""A person's commands on a connected device answer as `origin mcp` does: `origin search`
(the lean path and typer's), `get` and `timeline` merge the hub's answer, labelled, and say on
stderr when the hub was not consulted."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hub_support import PROMPT_ID, Hub, running_hub
from mcp_client import run_origin
from test_merge import connect, dead_url, device_env

NOTE_END = "); these results come from this device only."

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    with running_hub(tmp_path_factory.mktemp("hub")) as running:
        yield running


def test_search_get_and_timeline_merge_the_hubs_answer(tmp_path: Path, hub: Hub) -> None:
    """A device with no logs of its own: what it finds is the hub's, labelled so."""
    env = device_env(tmp_path, samples=False)
    connect(env, hub.url, hub.tokens["laptop"])
    lean = run_origin(env, "search", "--json", "token bucket", timeout=60)  # the lean path
    assert lean.returncode == 0, lean.stderr
    found = {e["id"]: e["origin"] for e in json.loads(lean.stdout)["events"]}
    assert found and set(found.values()) == {"hub"}, found
    typed = run_origin(env, "search", "token bucket", timeout=60)  # typer's, for people
    assert typed.returncode == 0 and next(iter(found)) in typed.stdout
    got = run_origin(env, "get", PROMPT_ID, "--json", timeout=60)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["origin"] == "hub"
    timeline = run_origin(env, "timeline", "--since", "3650d", "--json", timeout=60)
    assert timeline.returncode == 0, timeline.stderr
    sessions = json.loads(timeline.stdout)["sessions"]
    assert sessions and {s["origin"] for s in sessions} == {"hub"}
    assert "Note:" not in lean.stderr + got.stderr + timeline.stderr


def test_a_hub_down_gives_this_devices_answer_and_the_note(tmp_path: Path, hub: Hub) -> None:
    env = device_env(tmp_path)
    connect(env, dead_url(), hub.tokens["laptop"])
    for args in (("search", "--json", "token bucket"), ("timeline", "--since", "3650d")):
        done = run_origin(env, *args, timeout=60)
        assert done.returncode == 0, done.stderr
        note = done.stderr.strip().splitlines()[-1]  # after the failed sync's own line
        assert note.startswith("Note: the Origin hub was not consulted (") and note.endswith(
            NOTE_END
        )
    assert (
        '"origin": "local"'
        in run_origin(env, "search", "--json", "token bucket", timeout=60).stdout
    )
