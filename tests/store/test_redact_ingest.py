"""Redaction in the ingest engine, on real LMDB and real files: what is parsed and mirrored is
masked while the file is still known by its original bytes (its head, its offsets), a torn
tail is rebuilt as ingest wrote it, an oversized line is masked as it streams, a row log is
written masked, and every masked secret is counted.

The planted values are fake (FAKE, EXAMPLE) but have the real shapes."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import orjson
from mirror_support import iter_mirror
from plain_format import PLAIN, line

from origin_store import Ingester, Settings, Store
from origin_store.care.verify import verify
from origin_store.ingest import MAX_LINE_BYTES
from origin_store.mirrors import mirror as mirrors
from origin_store.model import EventRecord, ParseProblem
from origin_store.parsers.base import FileKind, Source, load_row
from origin_store.reader import status

AWS = "AKIAFAKEEXAMPLE12345"
GH = "ghp_FAKEexample0123456789FAKEexample0123"


def secret_line(i: int, text: str = f"deploy with {GH} and {AWS}") -> bytes:
    return line(i, text)


def events(store: Store) -> dict[str, dict]:
    with store.read() as txn:
        return {k.decode(): store.codec.decode(txn, k, v) for k, v in store.iter_events(txn)}


def mirror_of(store: Store, settings: Settings, path: Path) -> list[bytes]:
    with store.read() as txn:
        cursor = store.get(txn, "files", str(path).encode())
    return list(iter_mirror(store, settings.home, cursor["mirror"]["id"]))


def test_a_batch_is_masked_before_it_is_parsed_and_mirrored(plain_env):
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    log.write_bytes(secret_line(0) + line(1) + secret_line(2, "password=FAKE-hunter2"))
    report = ingester.run()
    assert report.events == 3 and report.lines == 3
    assert report.redacted == {"github-token": 1, "aws-access-key": 1, "password": 1}
    texts = {k: e["text"] for k, e in events(store).items()}
    assert texts["plain:0"] == "deploy with [redacted github-token] and [redacted aws-access-key] 0"
    assert texts["plain:2"] == "password=[redacted password] 2"
    kept = mirror_of(store, settings, log)
    assert len(kept) == 3 and kept[1] == line(1)[:-1]
    assert all(GH.encode() not in k and b"hunter2" not in k for k in kept)
    assert status(store, settings.home)["redacted"] == dict(report.redacted)
    assert verify(store, settings.home).ok


def test_the_file_is_known_by_its_original_head(plain_env):
    """The head digest is of the original bytes: the next pass sees the same file grown, not a
    rewritten one (a digest of the masked head would make every file with a secret new)."""
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    log.write_bytes(secret_line(0))
    ingester.run()
    with open(log, "ab") as handle:
        handle.write(line(1))
    again = ingester.run()
    assert again.rewritten == 0 and again.events == 1 and again.lines == 1
    assert len(mirror_of(store, settings, log)) == 2
    assert ingester.run().files_changed == 0


def test_a_torn_tail_is_rebuilt_as_ingest_masked_it(plain_env):
    """Lines sealed into frames are masked (shorter or longer than the original's), so where
    the tail starts in the original is counted in the original's bytes; a tail found damaged
    is rebuilt from there and masked again, and the mirror stays the same version."""
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    body = b"".join(secret_line(i, f"{GH} password=FAKE{i} " + "x" * 900) for i in range(400))
    log.write_bytes(body)
    ingester.run()
    with store.read() as txn:
        state = store.get(txn, "files", str(log).encode())["mirror"]
    assert state["sealed"] and state["tail"], "the test needs frames and a tail"
    tail_path = mirrors.paths(settings.home / "raw", state["rel"])[1]
    tail_path.write_bytes(b"#" * state["tail"])  # as a crash in the middle of a seal leaves it
    with open(log, "ab") as handle:
        handle.write(line(400))
    report = ingester.run()
    assert report.rewritten == 0 and report.events == 1
    kept = mirror_of(store, settings, log)
    assert len(kept) == 401 and all(GH.encode() not in k for k in kept)
    assert kept[399].startswith(b'{"id":399') and b"[redacted github-token]" in kept[399]
    assert verify(store, settings.home).ok


def test_an_oversized_line_is_masked_as_it_streams(plain_env):
    settings, logs, store, ingester = plain_env
    log = logs / "a.jsonl"
    big = b'{"id": 1, "text": "' + b"a " * (MAX_LINE_BYTES // 2 + 10)
    at_chunk = 1024 * 1024 - 10 - len(big) % (1024 * 1024)  # across a read chunk's end
    big += b"b" * at_chunk + b" " + AWS.encode() + b" " + b"c " * 1000 + GH.encode() + b'"}\n'
    log.write_bytes(line(0) + big + line(2))
    report = ingester.run()
    assert report.problems == {"oversized-line": 1}
    assert report.redacted == {"aws-access-key": 1, "github-token": 1}
    kept = mirror_of(store, settings, log)
    assert len(kept) == 3 and AWS.encode() not in kept[1] and GH.encode() not in kept[1]
    assert kept[1].endswith(b'[redacted github-token]"}') and kept[2] == line(2)[:-1]
    assert ingester.run().files_changed == 0
    assert verify(store, settings.home).ok


# -- a file read whole, through a row log -----------------------------------------------------


def _parse_note(raw: bytes, number: int, state: dict) -> list:
    row = load_row(raw)
    if row is None or isinstance(row, ParseProblem):
        return [] if row is None else [row]
    text = str(row[2].get("text", ""))
    return [
        EventRecord(
            id=f"notes:{number}", time=1_700_000_000_000 + number, source="notes", session="n",
            role="user", kind="message", text=text, cwd="/home/dev/notes",
        )
    ]  # fmt: skip


def _roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    return [Path(environ["NOTES_HOME"])]


NOTES = Source(
    "notes", _roots, (FileKind("note", ("*.md",), _parse_note, lambda _: {}, whole=True),)
)


def test_a_row_log_is_written_masked_and_counted(tmp_path: Path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "deploy.md").write_text(f"Use GITHUB_TOKEN={GH}\nand {AWS}\n")
    settings = Settings.from_env({"HOME": str(tmp_path), "ORIGIN_HOME": str(tmp_path / "o"),
                                  "NOTES_HOME": str(notes)})  # fmt: skip
    with Store.open(settings.home) as store:
        report = Ingester(store, settings, {"notes": NOTES, "plain": PLAIN}).run()
        assert report.events == 1 and report.redacted == {"github-token": 1, "aws-access-key": 1}
        rows = b"".join(p.read_bytes() for p in (settings.home / "rows").rglob("*.jsonl"))
        assert GH.encode() not in rows and AWS.encode() not in rows
        assert b"[redacted github-token]" in rows and orjson.loads(rows.splitlines()[0])
        (event,) = events(store).values()
        assert GH not in event["text"] and "[redacted aws-access-key]" in event["text"]
        assert status(store, settings.home)["redacted"] == dict(report.redacted)
        assert Ingester(store, settings, {"notes": NOTES}).run().files_changed == 0
        os.utime(notes / "deploy.md")  # touched, not changed: nothing appended, nothing counted
        again = Ingester(store, settings, {"notes": NOTES}).run()
        assert again.events == 0 and not again.redacted
