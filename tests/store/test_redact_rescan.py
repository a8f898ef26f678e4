"""`origin redact --rescan` on a store ingested before redaction (ingest with the switch off, as
Origin did before it masked anything): event records, sessions, problems, mirrors and row logs
come out masked, `verify()` holds, a second run has nothing to do, ingest goes on as before, and
a run killed anywhere is finished by the next.

The planted values are fake (FAKE, EXAMPLE) but have the real shapes."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import orjson
import pytest
from mirror_support import iter_mirror
from plain_format import PLAIN, line
from test_redact_ingest import NOTES

from origin_store import Ingester, Settings, Store
from origin_store.care.rescan import rescan
from origin_store.care.verify import verify
from origin_store.core.db import loads
from origin_store.core.lmdbio import pairs
from origin_store.model import ParseProblem
from origin_store.parsers.base import FileKind, Source
from origin_store.redaction.find import disabled
from origin_store.textclip import STORED_CHARS

GH = "ghp_FAKEexample0123456789FAKEexample0123"
AWS = "AKIAFAKEEXAMPLE12345"
SECRETS = (GH, AWS, "FAKE-hunter2")


def _problem(raw: bytes, number: int, state: dict) -> list:
    return [ParseProblem("odd-line", raw.decode())]


def _roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    return [Path(environ["ODD_HOME"])]


ODD = Source("odd", _roots, (FileKind("odd", ("*.txt",), _problem, lambda _: {}),))


def _secret_line(i: int) -> bytes:
    return line(i, f"call {GH} with {AWS} and password=FAKE-hunter2 " + "x" * 300, f"s{i % 3}")


def build(tmp: Path, files: int = 3, lines: int = 400) -> Settings:
    """A store ingested with redaction off: plain logs (frames and tails), a long labelled
    text, a note read through a row log, a problem line."""
    logs, notes, odd = tmp / "logs", tmp / "notes", tmp / "odd"
    for folder in (logs, notes, odd):
        folder.mkdir()
    for f in range(files):
        (logs / f"{f}.jsonl").write_bytes(
            b"".join(_secret_line(f * 10_000 + i) for i in range(lines))
        )
    long = f"{'y' * 100} {GH} " + "z" * STORED_CHARS
    labelled = {"id": "long", "t": 1, "s": "s9", "text": long, "label": [[200, "turn: "]]}
    (logs / "long.jsonl").write_bytes(orjson.dumps(labelled) + b"\n")
    (notes / "deploy.md").write_text(f"GITHUB_TOKEN={GH}\n")
    (odd / "x.txt").write_text(f"password=FAKE-hunter2 {AWS}\n")
    settings = Settings.from_env({"HOME": str(tmp), "ORIGIN_HOME": str(tmp / "origin"),
                                  "PLAIN_HOME": str(logs), "NOTES_HOME": str(notes),
                                  "ODD_HOME": str(odd)})  # fmt: skip
    with Store.open(settings.home) as store, disabled():
        Ingester(store, settings, _sources()).run()
    return settings


def _sources() -> dict[str, Source]:
    return {"plain": PLAIN, "notes": NOTES, "odd": ODD}


def _everything(store: Store, home: Path) -> bytes:
    """Every text the store and the files under the home hold, as a reader would see them."""
    out: list[bytes] = []
    with store.read() as txn:
        out += [orjson.dumps(store.codec.decode(txn, k, v)) for k, v in store.iter_events(txn)]
        for name in ("sessions", "problems"):
            out += [value for _, value in pairs(txn.cursor(db=store.dbs[name]))]
        mirrors = [int.from_bytes(k, "big") for k, _ in pairs(txn.cursor(db=store.dbs["mirrors"]))]
    for mirror in mirrors:
        out += list(iter_mirror(store, home, mirror))
    out += [path.read_bytes() for path in (home / "rows").rglob("*.jsonl")]
    return b"\n".join(out)


def test_a_rescan_masks_what_was_stored_before(tmp_path: Path):
    settings = build(tmp_path)
    with Store.open(settings.home) as store:
        assert all(s.encode() in _everything(store, settings.home) for s in SECRETS)
        with store.read() as txn:
            events = store.event_count(txn)
            last = store.feed_last(txn)
        report = rescan(store, settings.home)
        assert report.events == events and report.problems == 1
        assert report.mirrors == 6 and report.row_logs == 1 and not report.skipped
        assert report.redacted["github-token"] == 1_202 and report.redacted["password"] == 1_201
        kept = _everything(store, settings.home)
        assert not any(s.encode() in kept for s in SECRETS)
        assert verify(store, settings.home).ok
        with store.read() as txn:
            updated = {
                event_id
                for _, item in store.feed_since(txn, last)
                for event_id in item.get("ids", [])
            }
            long = store.event(txn, "plain:long")
            assert loads(txn.get(b"redacted", db=store.dbs["meta"])) == dict(report.redacted)
        assert len(updated) == events  # the index and a hub replace each one
        assert long["text_chars"] == 100 + 2 + len("[redacted github-token]") + STORED_CHARS
        assert long["label"] == [[200 - len(GH) + len("[redacted github-token]"), "turn: "]]
        assert rescan(store, settings.home).changed is False  # nothing left to do
        with open(tmp_path / "logs" / "0.jsonl", "ab") as handle:
            handle.write(_secret_line(99_999))
        (tmp_path / "notes" / "deploy.md").write_text(f"GITHUB_TOKEN={GH}\nmore\n")
        after = Ingester(store, settings, _sources()).run()
        assert after.events == 2 and after.rewritten == 1  # the rewritten row log: anew
        assert not any(s.encode() in _everything(store, settings.home) for s in SECRETS)
        assert verify(store, settings.home).ok


def _mirrors_left(store: Store, home: Path) -> int:
    """How many mirrors still hold a secret."""
    with store.read() as txn:
        mirrors = [int.from_bytes(k, "big") for k, _ in pairs(txn.cursor(db=store.dbs["mirrors"]))]
    return sum(GH.encode() in b"".join(iter_mirror(store, home, m)) for m in mirrors)


RUN = """
import sys
from origin_store import Settings, Store
from origin_store.care.rescan import rescan
settings = Settings.from_env({"HOME": sys.argv[1], "ORIGIN_HOME": sys.argv[1] + "/origin"})
with Store.open(settings.home) as store:
    print(rescan(store, settings.home, lambda step: print(step, flush=True)).as_dict())
"""


@pytest.mark.e2e
def test_a_rescan_killed_anywhere_is_finished_by_the_next(tmp_path: Path):
    settings = build(tmp_path, files=60, lines=60)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    seed = random.Random(16)
    # Each run is killed a moment after it reaches a step (it says which as it starts one).
    partial = []
    for step in ("event records", "mirrors", "mirrors", "mirrors", "row logs"):
        with subprocess.Popen([sys.executable, "-c", RUN, str(tmp_path)], env=env,
                              stdout=subprocess.PIPE, text=True) as run:  # fmt: skip
            assert run.stdout is not None
            for said in run.stdout:
                if said.strip() == step or said.startswith("{"):
                    break
            time.sleep(seed.uniform(0, 0.15))
            run.send_signal(signal.SIGKILL)
            run.wait()
        with Store.open(settings.home) as store:
            assert verify(store, settings.home).ok  # whatever was done is whole
            partial.append(_mirrors_left(store, settings.home))
    assert any(0 < left < 63 for left in partial), partial  # a kill landed among the mirrors
    subprocess.run([sys.executable, "-c", RUN, str(tmp_path)], env=env, check=True,
                   capture_output=True)  # fmt: skip
    with Store.open(settings.home) as store:
        kept = _everything(store, settings.home)
        assert not any(s.encode() in kept for s in SECRETS)
        assert verify(store, settings.home).ok
        with store.read() as txn:
            assert store.event_count(txn) == 60 * 60 + 2
            assert not [k for k, _ in pairs(txn.cursor(db=store.dbs["meta"])) if b"redact_old" in k]
            updates = [i for _, i in store.feed_since(txn, 0) if i["t"] == "update"]
        assert {e for item in updates for e in item["ids"]} >= {f"plain:{n}" for n in range(60)}
    leftovers = [p for p in (settings.home / "raw").rglob("*") if p.is_file()]
    assert len(leftovers) == 2 * 63  # one .zst and one .tail per mirror, no old name left
