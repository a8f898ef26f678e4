"""A record a parser holds open between lines (Grok's message chunks) is searchable after the
pass that read its first line, and replaced, not doubled, when the rest of it arrives; its event
points at the line it starts on."""

from __future__ import annotations

from pathlib import Path

import orjson
from mirror_support import read_mirror_line

from origin_store import Ingester, Settings, Store
from origin_store.care.verify import verify
from origin_store.parsers.grok import source as grok
from origin_store.reader import get_event, session_event_ids

SID = "019c0000-1111-7222-8333-444455556666"


def chunk(n: int, kind: str, text: str) -> bytes:
    envelope = {
        "timestamp": 1795086400 + n,
        "method": "session/update",
        "params": {
            "sessionId": SID,
            "update": {"sessionUpdate": kind, "content": {"type": "text", "text": text}},
            "_meta": {"eventId": f"{SID}-{n:04d}", "agentTimestampMs": 1795086400000 + n},
        },
    }
    return orjson.dumps(envelope) + b"\n"


def test_an_open_message_is_kept_at_once_and_completed_in_place(tmp_path: Path):
    home = tmp_path / "grok"
    log = home / "sessions" / "%2Fhome%2Fdev%2Fapp" / SID / "updates.jsonl"
    log.parent.mkdir(parents=True)
    log.write_bytes(
        chunk(1, "user_message_chunk", "explain the cache")
        + chunk(2, "agent_message_chunk", "The cache keeps ")
    )
    settings = Settings.from_env(
        {"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / "o"), "GROK_HOME": str(home)}
    )
    store = Store.open(settings.home)
    try:
        ingester = Ingester(store, settings, {"grok": grok.SOURCE})
        ingester.run()
        answer = f"grok:{SID}-0002"
        with store.read() as txn:
            first = get_event(store, txn, answer)
        assert first is not None and first["text"] == "The cache keeps "
        with open(log, "ab") as out:
            out.write(chunk(3, "agent_message_chunk", "the last 100 answers."))
            out.write(chunk(4, "user_message_chunk", "thanks"))
        assert ingester.run().events == 1  # the second prompt; the answer is replaced
        with store.read() as txn:
            whole = get_event(store, txn, answer)
            ids = list(session_event_ids(store, txn, "grok", SID))
            cursor = store.get(txn, "files", str(log).encode())
        assert whole is not None and whole["text"] == "The cache keeps the last 100 answers."
        assert ids.count(answer) == 1 and len(ids) == 3
        assert whole["line"] == 2  # where the message starts, not the line that ended it
        mirrored = read_mirror_line(store, settings.home, cursor["mirror"]["id"], whole["line"])
        assert mirrored is not None and b"The cache keeps" in mirrored
        assert verify(store, settings.home).ok
    finally:
        store.close()
