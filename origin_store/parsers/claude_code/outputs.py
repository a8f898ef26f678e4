"""Claude Code's tool outputs kept out of line: `projects/<slug>/<session>/tool-results/<name>.txt`.

An output too large for the transcript (about 30 KB and more) is written whole to such a file,
and the transcript's `tool_result` holds only `<persisted-output>`, the file's path and a 2 KB
preview (`toolUseResult.stdout` a 30,000-character head): the rest of the output is only here.
The file is written once, before the line that names it, and deleted with its session.

So each file is read whole (`FileKind.whole`: a row log line per version of its text, which the
mirror keeps after the agent deletes the file, and which `sources` shows with the file's path),
and its text becomes tool_result events of the session its directory names, in parts of at most
`base.OUTPUT_PART_CHARS` characters: the store keeps and indexes 20,000 characters of an event, so a word at
the end of a 100 KB output is found, its snippet shown and its part given whole by `get` only
when no part is longer. The parts end at a line's end where there is one, and never inside a
word otherwise. The events have no cwd: they take their session's project (`settle_projects`).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from ...model import EventRecord, Record
from ..base import (
    FILE_TABLE,
    FileKind,
    labelled,
    nonempty_str,
    row_parser,
    safe_time,
    split_output,
)

NAME = "claude-code"
DIRECTORY = "tool-results"


def start(relpath: str) -> dict[str, Any]:
    """The session is the directory above `tool-results/`; the file's name names the output."""
    parts = PurePosixPath(relpath).parts
    name = parts[-1] if parts else ""
    stem = name[: -len(".txt")] if name.endswith(".txt") else name
    sid = parts[-3] if len(parts) >= 3 and parts[-2] == DIRECTORY else ""
    return {"sid": sid or "unknown", "name": stem or "output"}


@row_parser
def parse(table: str, key: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """One version of an output file: its parts, ids `claude-code:<session>:tool-results/<name>#<n>`
    (a new version of the file gives the same ids, which its events replace)."""
    text = row.get("text")
    if table != FILE_TABLE or not isinstance(text, str) or not text.strip():
        return []
    sid = nonempty_str(state.get("sid")) or "unknown"
    name = nonempty_str(state.get("name")) or "output"
    time = safe_time(row.get("mtime_ms")) or 0
    parts = split_output(text)
    out: list[Record] = []
    for number, part in enumerate(parts):
        where = f"part {number + 1} of {len(parts)}, " if len(parts) > 1 else ""
        words, label = labelled(f"[{where}{DIRECTORY}/{name}.txt] ", part)
        out.append(
            EventRecord(
                id=f"{NAME}:{sid}:{DIRECTORY}/{name}#{number}",
                time=time,
                source=NAME,
                session=sid,
                role="system",
                kind="tool_result",
                text=words,
                label=label,
            )
        )
    return out


OUTPUTS = FileKind(
    name="tool_output",
    patterns=(f"projects/*/*/{DIRECTORY}/*.txt",),
    parse=parse,
    start=start,
    whole=True,
    head=True,
)
