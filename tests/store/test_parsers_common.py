"""What every parser in the registry promises, checked once per source over the project's own
sample logs (tests/data/<source>/) and by fuzzing: the same records on every pass, state that
survives JSON between lines, and no exception or bad record whatever a line holds.

A new parser joins these tests by being in `SOURCES`, and by adding its sample logs and a strategy
for lines shaped like its records (`RECORD_LINES`); the tests fail until both exist.
"""

from __future__ import annotations

import json
import pickle

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from parse_support import events, fixture_root, kind_lines
from test_parsers_copilot_fuzz import EVENT_LINE
from test_parsers_cursor import CURSOR_LINES
from test_parsers_gemini_fuzz import RECORD_LINE as GEMINI_LINE
from test_parsers_grok_fuzz import UPDATE_LINE
from test_parsers_qwen_fuzz import RECORD_LINE as QWEN_LINE

from origin_store.model import EVENT_KINDS, ROLES, EventRecord, ParseProblem, Record, SessionFact
from origin_store.parsers.base import FileKind, Source
from origin_store.parsers.registry import SOURCES

SOURCE_NAMES = sorted(SOURCES)


def sample_files(source: Source) -> list[tuple[FileKind, str]]:
    """(kind, path relative to the source's sample root) for every log the patterns find."""
    root = fixture_root(source.name)
    found = []
    # A sample root is the agent's root, or a home under which its roots lie (Cursor's two).
    bases = [root, *(base for base in source.roots({}, root) if base != root)]
    for kind in source.files:
        for pattern in kind.patterns:
            for base in bases:
                found.extend(
                    (kind, p.relative_to(root).as_posix()) for p in sorted(base.glob(pattern))
                )
    return found


def feed(
    source: Source, kind: FileKind, relpath: str, *, through_json: bool = False
) -> list[Record]:
    """Every complete line of a sample through one state, as the store does (optionally with the
    state round-tripped through JSON between lines, as when the store persists it)."""
    state = kind.start(relpath)
    records: list[Record] = []
    for lineno, line in enumerate(kind_lines(kind, fixture_root(source.name) / relpath), start=1):
        if through_json:
            state = json.loads(json.dumps(state))
        records.extend(kind.parse(line, lineno, state))
    assert len(json.dumps(state)) < 1000
    return records


def check(source: str, records: object) -> None:
    assert isinstance(records, list)
    for r in records:
        assert isinstance(r, EventRecord | SessionFact | ParseProblem)
        if isinstance(r, ParseProblem):
            assert r.reason != "parser-error", r
        if isinstance(r, EventRecord):
            assert r.role in ROLES and r.kind in EVENT_KINDS
            assert isinstance(r.text, str) and isinstance(r.time, int) and r.time >= 0
            assert r.id.startswith(f"{source}:")


# --- over the project's own sample logs ----------------------------------------------------------


@pytest.mark.parametrize("name", SOURCE_NAMES)
def test_every_source_has_sample_logs_its_patterns_find(name: str) -> None:
    files = sample_files(SOURCES[name])
    assert files, f"no sample logs for {name} under {fixture_root(name)}"
    assert any(events(feed(SOURCES[name], kind, rel)) for kind, rel in files)


@pytest.mark.parametrize("name", SOURCE_NAMES)
def test_reparse_gives_identical_records(name: str) -> None:
    source = SOURCES[name]
    for kind, relpath in sample_files(source):
        first = feed(source, kind, relpath)
        check(name, first)
        assert not [r for r in first if isinstance(r, ParseProblem)], relpath
        assert feed(source, kind, relpath) == first, relpath


@pytest.mark.parametrize("name", SOURCE_NAMES)
def test_state_survives_json_between_lines(name: str) -> None:
    """The store persists state between passes and processes; resuming must change nothing."""
    source = SOURCES[name]
    for kind, relpath in sample_files(source):
        assert feed(source, kind, relpath, through_json=True) == feed(source, kind, relpath), (
            relpath
        )


# --- fuzzing -------------------------------------------------------------------------------------

_INT = st.integers(min_value=-(2**63), max_value=2**63 - 1)
_JSON = st.recursive(
    st.none() | st.booleans() | _INT | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4)
    ),
    max_leaves=20,
)

# claude-code: transcript lines.
_CLAUDE_TYPES = st.sampled_from(
    ["user", "assistant", "system", "summary", "ai-title", "custom-title", "mode",
     "permission-mode", "agent-name", "queue-operation", "attachment", "last-prompt",
     "file-history-snapshot", "progress", "unknown"]
)  # fmt: skip
_CLAUDE_BLOCK = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["text", "image", "document", "thinking", "tool_use", "tool_result"]
        )
        | _JSON
    },
    optional={
        "text": _JSON,
        "thinking": _JSON,
        "name": _JSON,
        "input": _JSON,
        "content": _JSON | st.lists(_JSON, max_size=3),
        "is_error": _JSON,
        "source": st.fixed_dictionaries(
            {}, optional={"type": _JSON, "media_type": _JSON, "data": _JSON, "url": _JSON}
        )
        | _JSON,
    },
)
_CLAUDE_LINE = st.fixed_dictionaries(
    {"type": _CLAUDE_TYPES | _JSON},
    optional={
        "uuid": _JSON | st.text(),
        "sessionId": _JSON | st.text(),
        "timestamp": _JSON | st.just("2026-10-20T09:14:03.118Z") | _INT,
        "cwd": _JSON,
        "gitBranch": _JSON,
        "version": _JSON,
        "isMeta": st.booleans() | _JSON,
        "isSidechain": st.booleans(),
        "isCompactSummary": st.booleans(),
        "subtype": st.sampled_from(["compact_boundary", "stop_hook_summary", "api_error", "x"])
        | _JSON,
        "content": _JSON,
        "compactMetadata": _JSON,
        "hookInfos": _JSON,
        "hookErrors": _JSON,
        "preventedContinuation": _JSON,
        "aiTitle": _JSON,
        "customTitle": _JSON,
        "mode": _JSON,
        "permissionMode": _JSON,
        "operation": _JSON,
        "attachment": _JSON | st.fixed_dictionaries({"type": st.just("hook_success")}),
        "message": st.fixed_dictionaries(
            {}, optional={"content": st.lists(_CLAUDE_BLOCK, max_size=4) | _JSON}
        )
        | _JSON,
    },
)

# codex: rollout lines.
_CODEX_CONTENT = st.lists(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["input_text", "output_text", "input_image", "summary_text"])},
        optional={"text": _JSON, "image_url": _JSON | st.just("data:image/png;base64,AAAA")},
    ),
    max_size=3,
)
_CODEX_PAYLOAD = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
             "custom_tool_call_output", "local_shell_call", "web_search_call", "tool_search_call",
             "image_generation_call", "user_message", "agent_message", "thread_name_updated",
             "turn_aborted", "error", "context_compacted", "thread_rolled_back", "x"]
        )
        | _JSON
    },
    optional={
        "role": st.sampled_from(["user", "assistant", "developer"]) | _JSON,
        "content": _CODEX_CONTENT | _JSON,
        "summary": _CODEX_CONTENT | _JSON,
        "name": _JSON,
        "arguments": _JSON | st.just('{"a": 1}'),
        "input": _JSON,
        "output": _JSON | st.just('{"output": "x", "metadata": {"exit_code": 2}}') | _CODEX_CONTENT,
        "action": _JSON,
        "message": _JSON,
        "thread_name": _JSON,
        "thread_id": _JSON,
        "id": _JSON | st.text(),
        "cwd": _JSON,
        "cli_version": _JSON,
        "git": _JSON,
        "source": _JSON
        | st.just({"subagent": {"thread_spawn": {"parent_thread_id": "p"}}})
        | st.just({"subagent": 1}),
        "timestamp": _JSON | st.just("2026-10-20T09:14:03.118Z"),
        "parent_thread_id": _JSON,
        "sandbox_policy": _JSON,
        "model": _JSON,
        "num_turns": _JSON,
        "reason": _JSON,
    },
)  # fmt: skip
_CODEX_LINE = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            ["session_meta", "turn_context", "response_item", "event_msg", "compacted", "other"]
        ),
        "payload": _CODEX_PAYLOAD | _JSON,
    },
    optional={"timestamp": _JSON | _INT | st.just("2026-10-20T09:14:03.000Z")},
)

#: Lines shaped like each source's records: mostly valid structure with hostile values.
RECORD_LINES: dict[str, st.SearchStrategy[dict]] = {
    "claude-code": _CLAUDE_LINE,
    "codex": _CODEX_LINE,
    "cursor": CURSOR_LINES,
    "grok": UPDATE_LINE,
    "gemini": GEMINI_LINE,
    "copilot": EVENT_LINE,
    "qwen": QWEN_LINE,
}
#: Paths handed to `start`: odd ones, and (added per test) the sample logs' own.
_ODD_PATHS = ["", "x", "x.jsonl", "agent-", "a/subagents", "sessions/rollout-.jsonl.zst"]


def _relpaths(source: Source) -> st.SearchStrategy[str]:
    return st.sampled_from(_ODD_PATHS + [rel for _, rel in sample_files(source)])


_TEXT_OR_JSON = _JSON | _JSON.map(lambda value: orjson.dumps(value).decode())


def _row_lines(source: Source) -> st.SearchStrategy[dict] | None:
    """Row log lines of a source's databases and whole files: each table with the columns its
    sample rows have, each value hostile (JSON, or JSON text where a column holds JSON)."""
    columns: dict[str, set[str]] = {}
    for kind, rel in sample_files(source):
        if kind.snapshots:
            for line in kind_lines(kind, fixture_root(source.name) / rel):
                row = orjson.loads(line)
                columns.setdefault(row["table"], set()).update(row["row"])
    tables = [
        st.fixed_dictionaries(
            {
                "table": st.just(table),
                "key": st.text(),
                "row": st.fixed_dictionaries(
                    {}, optional={name: _TEXT_OR_JSON | st.text() for name in sorted(names)}
                ),
            }
        )
        for table, names in sorted(columns.items())
    ]
    return st.one_of(*tables) if tables else None


def record_lines(name: str) -> st.SearchStrategy[dict]:
    """Lines shaped like a source's records: those of its logs, and those of its row logs."""
    source = SOURCES[name]
    shapes = [RECORD_LINES[name]] if name in RECORD_LINES else []
    rows = _row_lines(source)
    if rows is not None:
        shapes.append(rows)
    return st.one_of(*shapes)


@pytest.mark.parametrize("name", SOURCE_NAMES)
def test_every_source_has_a_record_strategy(name: str) -> None:
    logs = [kind for kind in SOURCES[name].files if not kind.snapshots]
    if logs:
        assert name in RECORD_LINES, f"add a strategy for {name}'s record lines to RECORD_LINES"
    else:
        assert _row_lines(SOURCES[name]) is not None, f"no sample rows for {name}"


@pytest.mark.parametrize("name", SOURCE_NAMES)
def test_fuzz_random_bytes_and_json(name: str) -> None:
    source = SOURCES[name]

    @given(
        kind=st.sampled_from(source.files),
        relpath=_relpaths(source),
        lines=st.lists(st.binary(max_size=300) | _JSON.map(orjson.dumps)),
    )
    def run(kind: FileKind, relpath: str, lines: list[bytes]) -> None:
        state = kind.start(relpath)
        for lineno, line in enumerate(lines, start=1):
            check(name, kind.parse(line, lineno, state))
            json.dumps(state)

    run()


@pytest.mark.parametrize("name", SOURCE_NAMES)
def test_fuzz_record_shaped_lines(name: str) -> None:
    source = SOURCES[name]

    @given(
        kind=st.sampled_from(source.files),
        relpath=_relpaths(source),
        lines=st.lists(record_lines(name), min_size=1, max_size=6),
    )
    def run(kind: FileKind, relpath: str, lines: list[dict]) -> None:
        state = kind.start(relpath)
        for lineno, obj in enumerate(lines, start=1):
            check(name, kind.parse(orjson.dumps(obj), lineno, state))
            json.dumps(state)

    run()


@pytest.mark.parametrize("name", SOURCE_NAMES)
def test_deep_nesting_does_not_raise(name: str) -> None:
    deep = b"[" * 1000 + b"]" * 1000
    lines = [
        b'{"type":"assistant","uuid":"u","message":{"content":[{"type":"tool_use","name":"x","input":'
        + deep + b"}]}}",
        b'{"type":"response_item","payload":{"type":"function_call","name":"x","arguments":' + deep + b"}}",
        b'{"a":' + deep + b"}",
    ]  # fmt: skip
    for kind in SOURCES[name].files:
        for lineno, line in enumerate(lines, start=1):
            check(name, kind.parse(line, lineno, kind.start("")))


@pytest.mark.parametrize("name", SOURCE_NAMES)
def test_every_kind_survives_pickling(name: str) -> None:
    """A large ingest sends its files (and so their kinds: parsers, state factories) to worker
    processes: a closure anywhere in a source stops every backfill above PARALLEL_BYTES."""
    source = SOURCES[name]
    back = pickle.loads(pickle.dumps(source))
    assert [kind.name for kind in back.kinds] == [kind.name for kind in source.kinds]
    for kind, copied in zip(source.kinds, back.kinds, strict=True):
        assert copied.start("x/y.jsonl") == kind.start("x/y.jsonl")
