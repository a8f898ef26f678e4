"""Records of one source encoded on many threads of one process at once, as `origin mcp`'s
tool threads and its freshness thread each make their own compressor: every record must decode
back to what was encoded. Run in a subprocess, since the damage it looks for can end the
process with a signal (a compressor reading a freed dictionary); prints how many failed."""

import random
import sys
import threading
from pathlib import Path

from origin_store import Store
from origin_store.core import codec

WORDS = [
    "build",
    "test",
    "lint",
    "deploy",
    "cache",
    "index",
    "parse",
    "store",
    "mirror",
    "frame",
    "数据库",
    "迁移",
    "café",
]


def record(rng: random.Random, n: int) -> dict[str, object]:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 200)))
    return {"id": f"plain:t{n}", "source": "plain", "session": "s", "text": text, "n": n}


def main(home: Path, seconds: float) -> int:
    store = Store.open(home)
    rng = random.Random(5)
    samples = [record(rng, n) for n in range(2500)]
    store.codec.presample("plain", samples)
    dict_id = store.codec.prepare("plain")
    assert dict_id is not None, "no dictionary was trained"
    bad: list[str] = []
    stop = threading.Event()

    def encode_all(seed: int, rounds: int | None) -> None:
        local = random.Random(seed)
        encode = store.codec.encoder("plain", sample=False)
        done = 0
        while not stop.is_set() and (rounds is None or done < rounds):
            wanted = record(local, seed * 1_000_000 + done)
            value = encode(dict(wanted))
            with store.read() as txn:
                got = store.codec.decode(txn, str(wanted["id"]).encode(), value)
            if got != wanted:
                bad.append(str(wanted["id"]))
            done += 1

    steady = [threading.Thread(target=encode_all, args=(i, None)) for i in range(3)]
    for thread in steady:
        thread.start()
    import time

    until = time.monotonic() + seconds
    seed = 100
    while time.monotonic() < until:  # short-lived threads, each with its first compressor
        churn = [threading.Thread(target=encode_all, args=(seed + i, 20)) for i in range(4)]
        seed += 4
        for thread in churn:
            thread.start()
        for thread in churn:
            thread.join()
    stop.set()
    for thread in steady:
        thread.join()
    store.close()
    print(len(bad))
    return 0


if __name__ == "__main__":
    codec.GENERATIONS = (200, 1_000_000)
    codec.SAMPLE_BYTES = 20_000
    sys.exit(main(Path(sys.argv[1]), float(sys.argv[2])))
