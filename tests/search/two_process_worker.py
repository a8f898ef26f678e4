"""One of two processes that write log lines and search for them on a shared store."""

import json
import sys
import time
from pathlib import Path

import orjson

from origin_api.runtime import Origin
from origin_api.service import Caller, call


def line(session: str, uuid: str, text: str) -> bytes:
    return (
        orjson.dumps(
            {
                "type": "user",
                "uuid": uuid,
                "sessionId": session,
                "cwd": "/home/dev/two-procs",
                "timestamp": "2026-11-01T10:00:00.000Z",
                "message": {"role": "user", "content": text},
            }
        )
        + b"\n"
    )


def main(name: str, log: Path, count: int, other: str) -> None:
    missing: list[str] = []
    with Origin.open() as origin:
        caller = Caller(name, "box")
        for i in range(count):
            word = f"{name}word{i}"
            with log.open("ab") as f:
                f.write(
                    line(
                        f"session-{name}",
                        f"{name}-{i:04d}-0000-4000-8000-000000000000",
                        f"note {word} written",
                    )
                )
            found = call(origin, "search", {"query": word}, caller)["events"]
            if [e["id"] for e in found] != [
                f"claude-code:{name}-{i:04d}-0000-4000-8000-000000000000"
            ]:
                missing.append(word)
        deadline = time.time() + 30
        seen_other = 0
        while time.time() < deadline:
            seen_other = sum(
                1
                for i in range(count)
                if call(origin, "search", {"query": f"{other}word{i}"}, caller)["events"]
            )
            if seen_other == count:
                break
            time.sleep(0.2)
    print(json.dumps({"missing": missing, "seen_other": seen_other}))


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
