"""What the shell says when a filter names nothing: `origin search --source claude` (the source
is `claude-code`) or `--project` with a name no session has answered "nothing found", which reads
as "no such work" when it means "no such name". An empty answer whose source or project the
archive does not know is an error naming what exists and the nearest name instead.

Checked only once an answer came back empty, so a search that finds something pays nothing, and
with what the archive holds (its sessions' sources and projects, its entries' projects), so a
source recorded by the `ingest` tool or synced from another device counts as well as the
agents'. The tools (MCP, the hub) answer as the contract says: an empty list.
"""

from __future__ import annotations

from difflib import get_close_matches
from typing import TYPE_CHECKING

from origin_store.parsers.agents import AGENTS

from ..errors import OriginError

if TYPE_CHECKING:
    from ..runtime import Origin

#: The most names a "Nearest:" or "Did you mean" offers, and a list of what exists shows.
NEAREST = 3
SHOWN = 12


def nearest(name: str, names: list[str]) -> list[str]:
    """The names closest to `name`: those it begins or is the beginning of, then the alike."""
    low = name.casefold()
    starts = [n for n in names if n.casefold().startswith(low) or low.startswith(n.casefold())]
    alike = get_close_matches(name, names, n=NEAREST, cutoff=0.6)
    lowered = {n.casefold(): n for n in names}
    alike += [lowered[m] for m in get_close_matches(low, list(lowered), n=NEAREST, cutoff=0.6)]
    return list(dict.fromkeys([*starts, *alike]))[:NEAREST]


def known(origin: Origin) -> tuple[list[str], list[str]]:
    """The sources (the agents', and any other the archive holds) and the projects, sorted."""
    from origin_store.entries.versions import get_entry, root_ids
    from origin_store.reader import iter_sessions

    sources, projects = set(AGENTS), set[str]()
    store = origin.store
    with store.read() as txn:
        for session in iter_sessions(store, txn):
            sources.add(session["source"])
            if session["project"]:
                projects.add(session["project"])
        for root in root_ids(store, txn):
            entry = get_entry(store, txn, root)
            project = entry.get("project") if entry is not None else None
            if project:
                projects.add(project)
    return sorted(sources), sorted(projects)


def check_filters(origin: Origin, source: str | None, project: str | None) -> None:
    """After an empty answer: an error when `source` or `project` names nothing in the archive,
    saying what exists and the nearest name; nothing when both exist (it was just empty)."""
    if source is None and project is None:
        return
    sources, projects = known(origin)
    if source is not None and not _among(source, sources):
        raise OriginError(_unknown("source", source, sources, "Sources"))
    if project is not None and not _among(project, projects):
        raise OriginError(_unknown("project", project, projects, "Projects"))


def _among(name: str, names: list[str]) -> bool:
    """Whether `name` is one of `names`, in any case (some tools read a filter so): a name that
    exists is never reported missing."""
    return name.casefold() in {n.casefold() for n in names}


def _unknown(what: str, name: str, names: list[str], heading: str) -> str:
    close = nearest(name, names)
    if not names:
        return f"No {what} {name}: the archive has none yet."
    listed = ", ".join(names[:SHOWN]) + (
        f" and {len(names) - SHOWN:,} more" if len(names) > SHOWN else ""
    )
    if what == "source":
        mean = f" Did you mean {' or '.join(close)}?" if close else ""
        return f"No {what} {name}. {heading}: {listed}.{mean}"
    if close:
        return f"No {what} {name}. Nearest: {', '.join(close)}. {heading}: {listed}."
    return f"No {what} {name}. {heading}: {listed}."
