"""Eight real `origin mcp` processes on one store for 40 s, each called with every tool while a
writer appends to an agent's log (`many_mcp.py`), three times over: no process ends before its
client does, no call fails but for what the mix itself causes (an id another process forgot or
corrected first), no traceback in any process's stderr, and `origin verify` is clean after
every run. Such runs once ended with records that no longer decoded in two of three (each
thread's first compressor freed the dictionary tables the other threads' compressors used)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from many_mcp import environment, run, verify


@pytest.mark.slow
@pytest.mark.parametrize("round_", [1, 2, 3])
def test_many_servers_on_one_store_leave_it_whole(tmp_path: Path, round_: int):
    tallies, lines = asyncio.run(run(tmp_path, seconds=40, processes=8))
    for n, tally in enumerate(tallies):
        assert tally.closed is None, f"process {n} ended: {tally.closed}"
        assert tally.calls > 100, f"process {n} made only {tally.calls} calls"
        assert not tally.unexpected(), f"process {n}: {tally.unexpected()}"
    for log in sorted(tmp_path.glob("mcp-*.stderr")):
        assert "Traceback" not in log.read_text(errors="replace"), log.read_text()[-3000:]
    checked = verify(environment(tmp_path))
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    assert f"{lines:,} events" in checked.stdout, (lines, checked.stdout)
