"""Writes prepare_golden.json.zst: corpus texts and what ``analyzer.prepare`` makes of them.

The texts are from the benchmark corpus (``bench/corpus.py``), chosen for the analyzer's slow
paths: ASCII text with runs of operator characters or a ``#``, and text beyond ASCII (with
operators, emoji sequences, marks). Speed-ups of ``prepare`` must leave every output equal to
what this file recorded. Run ``python tests/data/make_prepare_golden.py CORPUS_DIR`` only when
the tokens change on purpose (with a new ANALYZER_VERSION).
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from pathlib import Path

import zstandard

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench import corpus
from origin_search import analyzer

HERE = Path(__file__).resolve().parent
OUT = HERE / "prepare_golden.json.zst"
_OPERATOR_RUN = re.compile(r"[-=<>|&!+:*/%^~#]{2}|[A-Za-z]#")
_PER_GROUP = 1000
_MAX_CHARS = 700


def main(root: Path) -> None:
    ascii_ops: list[str] = []
    other: list[str] = []
    for event in itertools.islice(corpus.iter_events(root), 0, 300_000):
        text = event[1]
        if len(text) > _MAX_CHARS:
            continue
        if text.isascii():
            if len(ascii_ops) < _PER_GROUP and _OPERATOR_RUN.search(text):
                ascii_ops.append(text)
        elif len(other) < _PER_GROUP:
            other.append(text)
        if len(ascii_ops) >= _PER_GROUP and len(other) >= _PER_GROUP:
            break
    pairs = [[t, analyzer.prepare(t)] for t in ascii_ops + other]
    data = json.dumps(pairs, ensure_ascii=False).encode("utf-8", "surrogatepass")
    OUT.write_bytes(zstandard.ZstdCompressor(level=19).compress(data))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
