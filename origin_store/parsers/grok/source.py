"""Grok: two products share `~/.grok` (research/formats.md §5). xAI's Grok Build keeps sessions
under `sessions/` (grok_build.py reads their update streams, this module their `summary.json`);
the community grok-cli keeps `grok.db` (grok_cli.py). Both are source "grok": their session ids
differ in shape (UUIDs, 12 hex digits), so they never meet.

`summary.json` is rewritten whole as the session goes on, so it is read as one line per version
(`whole`). It gives the title (the user's, when `title_is_manual`, above the generated one,
above the session summary), the cwd, and the parent of a fork or sub-agent session.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import orjson

from ...model import ParseProblem, Record, SessionFact
from ..base import FILE_TABLE, FileKind, Source, nonempty_str, row_parser, safe_time
from .build import UPDATES, decode_cwd
from .build_text import GENERATED_TITLE_RANK, MANUAL_TITLE_RANK, NAME, SUMMARY_TITLE_RANK
from .cli import DATABASE

__all__ = ["NAME", "SOURCE", "SUMMARY", "roots"]


def roots(environ: Mapping[str, str], home: Path) -> list[Path]:
    """GROK_HOME moves Grok Build's `~/.grok`; grok-cli's database stays at `~/.grok/grok.db`
    whatever it says, so `~/.grok` is read too."""
    default = home / ".grok"
    configured = environ.get("GROK_HOME")
    if not configured or Path(configured) == default:
        return [default]
    return [Path(configured), default]


def start_summary(relpath: str) -> dict[str, Any]:
    """Like the update stream beside it, the file's directory names its session and cwd."""
    parts = PurePosixPath(relpath).parts
    state: dict[str, Any] = {"sid": parts[-2] if len(parts) >= 2 else "unknown"}
    cwd = decode_cwd(parts[-3]) if len(parts) >= 3 else None
    if cwd is not None:
        state["cwd"] = cwd
    return state


@row_parser
def parse_summary(table: str, key: str, row: dict[str, Any], state: dict[str, Any]) -> list[Record]:
    """One version of a session's `summary.json`: session facts only (its words that matter are
    in the update stream as well: summaries, recaps)."""
    text = row.get("text")
    if table != FILE_TABLE or not isinstance(text, str):
        return []
    try:
        summary = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        return [ParseProblem("invalid-json", str(exc)[:200])]
    if not isinstance(summary, dict):
        return [ParseProblem("not-an-object", type(summary).__name__)]
    found = summary.get("info")
    info: Mapping[str, Any] = found if isinstance(found, dict) else {}
    sid = nonempty_str(info.get("id")) or nonempty_str(state.get("sid")) or "unknown"
    time = safe_time(row.get("mtime_ms")) or safe_time(summary.get("updated_at"))
    facts: list[Record] = [
        SessionFact(
            sid,
            NAME,
            cwd=nonempty_str(info.get("cwd")) or nonempty_str(state.get("cwd")),
            parent=nonempty_str(summary.get("parent_session_id")),
            time=time,
        )
    ]
    title = nonempty_str(summary.get("generated_title")) or nonempty_str(summary.get("title"))
    if title is not None:
        manual = summary.get("title_is_manual") is True
        rank = MANUAL_TITLE_RANK if manual else GENERATED_TITLE_RANK
        facts.append(SessionFact(sid, NAME, title=title, title_rank=rank, time=time))
    described = nonempty_str(summary.get("session_summary"))
    if described is not None:
        facts.append(
            SessionFact(sid, NAME, title=described, title_rank=SUMMARY_TITLE_RANK, time=time)
        )
    return facts


SUMMARY = FileKind(
    name="summary",
    patterns=("sessions/*/*/summary.json",),
    parse=parse_summary,
    start=start_summary,
    whole=True,
)

SOURCE = Source(name=NAME, roots=roots, files=(UPDATES, SUMMARY, DATABASE))
