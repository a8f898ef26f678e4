"""`origin doctor`: where Origin looked on this machine and what it found there, as data.

Each check gives `Finding`s (an area, a subject, a level and one sentence, with the figures
behind it), one module per side: `archive` (the agents' logs, the archive, its index) and
`clients` (the hub, and the clients registered with Origin). Checking changes nothing a person
owns: the clients' configuration files are read, never written, and no secret of theirs is shown.
"""

from __future__ import annotations

from pathlib import Path

from ..settings import Settings
from .archive import Counts, agents, counts, demo_archive, index, open_archive, status
from .clients import clients, hub
from .findings import LEVELS, Diagnosis, Finding, Level, Watched
from .pause import recording

__all__ = [
    "LEVELS",
    "Counts",
    "Diagnosis",
    "Finding",
    "Level",
    "counts",
    "diagnose",
    "status",
]


def diagnose(
    settings: Settings | None = None,
    *,
    demo: Path | None = None,
    probe_timeout_s: float = 1.0,
) -> Diagnosis:
    """Every check, in the order a person reads them: agents, archive, index, hub, clients.
    `demo` is the home of a demo archive of samples beside this one, when there is one."""
    settings = settings or Settings.from_env()
    watched = Watched(settings.environ)
    watched.get("ORIGIN_HOME")
    watched.get("HOME")
    origin, archive = open_archive(settings)
    try:
        found = agents(settings, origin, watched) + archive
        if origin is not None:
            found += [recording(settings)]
        if origin is not None:
            found += [index(origin)]
        if demo is not None:
            found += [demo_archive(demo)]
        found += hub(settings, origin, watched, probe_timeout_s)
        found += clients(settings, origin, watched, probe_timeout_s)
    finally:
        if origin is not None:
            origin.close()
    environment = {name: settings.environ.get(name) for name in watched.read}
    return Diagnosis(str(settings.home), environment, found)
