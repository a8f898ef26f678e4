"""`ingest`: an agent without a session log Origin can read records an event of its own.

The event goes to its source's journal (`origin_store.journal`) and is read back from there by
the ordinary ingest path before the tool answers, so it has a mirror and a raw line like every
event, is found by `search` and cited by `remember` at once, and syncs to a hub.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from origin_store import bounds
from origin_store.project import project_of

from ..contract.timeargs import render
from ..errors import invalid
from ..runtime import Origin
from .common import Caller, Said, now_ms

#: Characters of the content the answer shows when there is no title.
SHOWN = 60
#: Bytes of the project's name a default session starts with (with the day and a digest, well
#: within what a session of any source can take).
DEFAULT_SESSION_NAME_BYTES = 200
_SPACE = re.compile(r"\s+")


def ingest(
    origin: Origin,
    *,
    caller: Caller,
    content: str,
    workspace: str,
    source: str,
    kind: str,
    title: str | None,
    tags: list[str] | None,
    session: str | None,
) -> Said:
    name = _recorded_name(source, workspace, session)
    now = now_ms()
    project = project_of(workspace)
    session = session or default_session(workspace, project, now)
    import secrets  # hashlib and OpenSSL: only for a process that records

    local_id = f"{now:012x}{secrets.token_hex(6)}"
    line: dict[str, Any] = {
        "id": local_id,
        "time": render_utc(now),
        "source": name,
        "author": caller.author,
        "workspace": workspace,
        "kind": kind,
        "session": session,
    }
    if title is not None:
        line["title"] = title
    if tags:
        line["tags"] = tags
    line["content"] = content
    if source != name:
        line["client_source"] = source
    from origin_store import journal  # the ingest machinery only for a process that records

    journal.append(origin.home, name, line)
    report = journal.ingest(origin.ingester, origin.store, [journal.log_file(origin.home, name)])
    event_id = f"{name}:{local_id}"
    with origin.store.read() as txn:
        stored = origin.store.event(txn, event_id) is not None
    if not stored:  # a line the checks above let through but the store cannot keep
        raise invalid(
            "The event could not be stored "
            f"({', '.join(sorted(report.problems)) or 'no reason given'}); nothing was recorded."
        )
    origin.searcher.catch_up()
    said = title if title is not None else _SPACE.sub(" ", content).strip()[:SHOWN]
    return Said(
        f"Recorded [{name}]: {said}",
        {
            "recorded": True,
            "id": event_id,
            "source": name,
            "session": session,
            "project": project,
            "time": render(now),
        },
    )


def _recorded_name(source: str, workspace: str, session: str | None) -> str:
    """The recorded source's name, once the arguments are known to make a storable event."""
    from origin_store.parsers.registry import recorded_id  # the parsers: only to record

    name = recorded_id(source)
    if not name:
        raise invalid(
            f"source must name the agent with letters or digits (a-z, 0-9); {source[:40]!r} "
            "has none."
        )
    if not absolute(workspace):
        raise invalid(
            "workspace must be the absolute path of the repository or workspace, as the "
            "agent's machine writes it (such as /home/me/project or C:\\Users\\me\\project); "
            f"got {workspace[:200]!r}."
        )
    if session is not None and not bounds.session_fits(name, session):
        raise invalid(
            f"session is {bounds.utf8(session):,} bytes of UTF-8; with the source {name}, at "
            f"most {bounds.session_bytes(name)} bytes fit."
        )
    return name


def absolute(workspace: str) -> bool:
    """An absolute path as a POSIX or a Windows machine writes it (`C:\\x`, `C:/x`,
    `\\\\server\\share`): a hub records for agents on other machines than its own."""
    return PurePosixPath(workspace).is_absolute() or PureWindowsPath(workspace).is_absolute()


def default_session(workspace: str, project: str | None, now: int) -> str:
    """One session per source, workspace and day (this server's local day): the project's
    name, the day, and a few characters of the workspace path's digest, so two workspaces of
    one name stay apart."""
    day = datetime.fromtimestamp(now / 1000).date().isoformat()
    digest = hashlib.sha256(workspace.rstrip("/\\").encode()).hexdigest()[:6]
    # The name's first bytes, whole characters only: a session must fit a key (`bounds`).
    named = (project or "workspace").encode()[:DEFAULT_SESSION_NAME_BYTES]
    return f"{named.decode(errors='ignore')}-{day}-{digest}"


def render_utc(ms: int) -> str:
    """The journal's times: UTC, milliseconds, `Z` (the form the agents' logs use)."""
    moment = datetime.fromtimestamp(ms // 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"
