"""Long texts through every tool that returns text, from real log files in the agents' formats:
each tool's cut keeps the first characters and counts the characters cut on the original text
(with its label, as shown), whatever the store keeps."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import orjson
import pytest
from helpers import cut, fixture_env

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_store import Settings

SESSION = "5e55e55e-0000-4000-8000-00000000a11c"
THREAD = "019a1111-2222-7333-8444-555566667777"
SIZES = (19_999, 20_000, 20_001, 26_000, 200_000)
ALPHABETS = {
    "ascii": "the quick brown fox jumps over the lazy dog ",
    "cjk": "数据库迁移完成后请检查索引",
}
#: How each shape of event is written and shown: (source, kind, Origin's label before the text).
SHAPES = {
    "prompt": ("claude-code", "message", ""),
    "tool result": ("claude-code", "tool_result", ""),
    "failed tool": ("claude-code", "tool_result", "[error] "),
    "codex error": ("codex", "system", "error: "),
}


@dataclass(frozen=True)
class Case:
    number: int
    shape: str
    size: int
    alphabet: str

    @property
    def marker(self) -> str:
        return f"longmarker{self.number}"

    @property
    def text(self) -> str:
        """Exactly `size` characters of the log's words, starting with a word of its own."""
        head = f"{self.marker} "
        filler = ALPHABETS[self.alphabet]
        body = filler * ((self.size - len(head)) // len(filler) + 1)
        return (head + body)[: self.size]

    @property
    def shown(self) -> str:
        return SHAPES[self.shape][2] + self.text

    @property
    def event_id(self) -> str:
        if SHAPES[self.shape][0] == "codex":  # the rollout's line: after session_meta, in order
            return f"codex:{THREAD}:L{self.number - FIRST_CODEX + 2}"
        return f"claude-code:{self.uuid}"

    @property
    def uuid(self) -> str:
        return f"10000000-0000-4000-8000-{self.number:012d}"

    @property
    def session(self) -> str:
        return THREAD if SHAPES[self.shape][0] == "codex" else SESSION


CASES = [
    Case(n, shape, size, alphabet)
    for n, (shape, size, alphabet) in enumerate(
        (shape, size, alphabet) for shape in SHAPES for size in SIZES for alphabet in ALPHABETS
    )
]

FIRST_CODEX = min(case.number for case in CASES if case.shape == "codex error")


def _claude_line(case: Case) -> bytes:
    base = {
        "sessionId": SESSION,
        "cwd": "/home/dev/long-app",
        "uuid": case.uuid,
        "timestamp": f"2026-10-22T10:{case.number // 60:02d}:{case.number % 60:02d}.000Z",
    }
    if case.shape == "prompt":
        message = {"role": "user", "content": case.text}
        return orjson.dumps({**base, "type": "user", "message": message})
    block = {"type": "tool_result", "tool_use_id": f"toolu_{case.number}", "content": case.text}
    if case.shape == "failed tool":
        block["is_error"] = True
    return orjson.dumps({**base, "type": "user", "message": {"role": "user", "content": [block]}})


def _codex_line(case: Case) -> bytes:
    return orjson.dumps(
        {
            "timestamp": f"2026-10-22T11:{case.number // 60:02d}:{case.number % 60:02d}.000Z",
            "type": "event_msg",
            "payload": {"type": "error", "message": case.text},
        }
    )


def write_logs(env: dict[str, str]) -> dict[str, str]:
    """The cases as agents write them; returns each event's original line."""
    claude = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-home-dev-long-app" / f"{SESSION}.jsonl"
    rollout = (
        Path(env["CODEX_HOME"])
        / "sessions/2026/10/22"
        / f"rollout-2026-10-22T11-00-00-{THREAD}.jsonl"
    )
    claude.parent.mkdir(parents=True)
    rollout.parent.mkdir(parents=True)
    meta = {
        "timestamp": "2026-10-22T11:00:00.000Z",
        "type": "session_meta",
        "payload": {
            "id": THREAD,
            "cwd": "/home/dev/long-app",
            "cli_version": "0.131.0",
            "source": "cli",
        },
    }
    claude_lines, codex_lines = [], [orjson.dumps(meta)]
    lines: dict[str, str] = {}
    for case in CASES:
        if SHAPES[case.shape][0] == "codex":
            codex_lines.append(_codex_line(case))
            assert case.event_id.endswith(f":L{len(codex_lines)}")
            lines[case.event_id] = codex_lines[-1].decode()
        else:
            claude_lines.append(_claude_line(case))
            lines[case.event_id] = claude_lines[-1].decode()
    claude.write_bytes(b"\n".join(claude_lines) + b"\n")
    rollout.write_bytes(b"\n".join(codex_lines) + b"\n")
    return lines


@pytest.fixture(scope="module")
def long_store(tmp_path_factory):
    """One store over the fixtures and the long cases, an entry citing every case."""
    tmp = tmp_path_factory.mktemp("long")
    env = {**fixture_env(tmp, copy=True), "ORIGIN_SEARCH_INGEST_INTERVAL_MS": "0"}
    lines = write_logs(env)
    caller = Caller("test-agent", "testbox")
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()

        def tool(name: str, **args):
            return call(origin, name, args, caller)

        entry = tool(
            "remember",
            kind="knowledge",
            text="Long outputs are cut with their counts.",
            confidence=1,
            sources=[{"event_id": case.event_id} for case in CASES],
        )["entry"]
        yield tool, lines, entry["id"]


def _ids(case: Case) -> str:
    return f"{case.shape}-{case.size}-{case.alphabet}"


def test_the_cases_are_what_they_say() -> None:
    assert len(CASES) == len(SHAPES) * len(SIZES) * len(ALPHABETS) <= 50
    for case in CASES:
        assert len(case.text) == case.size and case.text.startswith(case.marker + " ")


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_search_cuts_at_400(long_store, case: Case) -> None:
    tool, _, _ = long_store
    [event] = tool("search", query=case.marker, include_tools=True)["events"]
    assert event["id"] == case.event_id and event["kind"] == SHAPES[case.shape][1]
    assert event["text"] == cut(case.shown, 400)
    assert event["text"].endswith(f"… [{len(case.shown) - 400:,} characters cut]")
    assert event["snippet"].startswith(f"[{case.marker}]")


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_timeline_of_the_session_cuts_at_1000(long_store, case: Case) -> None:
    tool, _, _ = long_store
    events = tool("timeline", session=case.session, include_tools=True, limit=500)["events"]
    [event] = [e for e in events if e["id"] == case.event_id]
    assert event["text"] == cut(case.shown, 1_000)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_get_of_an_event_cuts_at_20000(long_store, case: Case) -> None:
    tool, _, _ = long_store
    event = tool("get", id=case.event_id)
    expected = cut(case.shown, 20_000)
    assert event["text"] == expected
    if len(case.shown) <= 20_000:
        assert event["text"] == case.shown
    else:
        kept, note = event["text"][:20_000], event["text"][20_000:]
        assert (
            kept == case.shown[:20_000]
            and note == f"… [{len(case.shown) - 20_000:,} characters cut]"
        )


def test_get_of_an_entry_cuts_its_sources_at_500(long_store) -> None:
    tool, _, entry_id = long_store
    got = tool("get", id=entry_id)
    by_id = {source["id"]: source for source in got["sources"]}
    assert len(by_id) == len(CASES)
    for case in CASES:
        assert by_id[case.event_id]["text"] == cut(case.shown, 500), case


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_sources_cut_the_raw_line_at_4000(long_store, case: Case) -> None:
    tool, lines, _ = long_store
    [source] = tool("sources", id=case.event_id)
    original = lines[case.event_id]
    assert source["raw"] == cut(original, 4_000)
    assert source["raw"].endswith(f"… [{len(original) - 4_000:,} characters cut]")


def test_sources_of_an_entry_cut_every_raw_line(long_store) -> None:
    tool, lines, entry_id = long_store
    items = tool("sources", id=entry_id)
    assert {item["event_id"]: item["raw"] for item in items} == {
        case.event_id: cut(lines[case.event_id], 4_000) for case in CASES
    }
