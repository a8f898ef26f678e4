"""A minimal line format for testing the ingest engine apart from any agent's quirks.

Each line is a JSON object {"id", "t", "s", "text", "label"}; anything else is a problem. It is a real
parser through the same interface as the agents' ones, not a stand-in for the engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import orjson

from origin_store import Store
from origin_store.entries import versions as entries
from origin_store.model import EventRecord, ParseProblem
from origin_store.parsers.base import FileKind, Source
from origin_store.replication import tokens


def parse_plain(line: bytes, lineno: int, state: dict) -> list:
    try:
        data = orjson.loads(line)
    except orjson.JSONDecodeError as error:
        return [ParseProblem("invalid-json", str(error)[:80])]
    if not isinstance(data, dict) or "id" not in data:
        return [ParseProblem("not-an-object")]
    state["n"] = state.get("n", 0) + 1
    return [
        EventRecord(
            id=f"plain:{data['id']}",
            time=int(data.get("t", 0)),
            source="plain",
            session=str(data.get("s", "s1")),
            role="user",
            kind="message",
            text=str(data.get("text", "")),
            cwd="/home/dev/plain-project",
            label=tuple((offset, words) for offset, words in data["label"])
            if data.get("label")
            else None,
        )
    ]


def _roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    return [Path(environ.get("PLAIN_HOME", str(home / ".plain")))]


def _start(rel: str) -> dict:
    return {}


PLAIN = Source("plain", _roots, (FileKind("log", ("**/*.jsonl",), parse_plain, _start),))


def line(i: int, text: str = "hello", session: str = "s1") -> bytes:
    return (
        orjson.dumps({"id": i, "t": 1_700_000_000_000 + i, "s": session, "text": f"{text} {i}"})
        + b"\n"
    )


def keepsakes(store: Store) -> tuple[dict, str]:
    """What a person wrote, which rewriting a store must keep: an entry (`ent_1`) citing
    `plain:5`, a forget of `plain:9` and a token; the forget's result and the token's secret."""
    version = {
        "id": "ent_1",
        "root": "ent_1",
        "corrects": None,
        "kind": "fact",
        "text": "a fact",
        "sources": [{"event_id": "plain:5"}],
        "created": 1,
        "author": "test",
        "project": None,
    }
    store.write(lambda txn: entries.put_version(store, txn, version))
    forgotten = store.write(lambda txn: entries.forget(store, txn, "plain:9", "test", "me"))
    return forgotten, tokens.create(store, "laptop", now_ms=1)
