"""`origin doctor`: where Origin looked on this machine and what it found there, as data.

Each check gives `Finding`s (an area, a subject, a level and one sentence, with the figures
behind it), one module per side: `archive` (the agents' logs, the archive, its index) and
`clients` (the hub, and the clients registered with Origin). Checking changes nothing a person
owns: the clients' configuration files are read, never written, and no secret of theirs is shown.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path

from ..settings import DEMO_MARK, Settings
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
    person: Mapping[str, str] | None = None,
) -> Diagnosis:
    """Every check, in the order a person reads them: agents, archive, index, hub, clients.
    `demo` is the home of a demo archive of samples beside this one, when there is one.
    `person` is the environment of whoever runs the doctor (this process's by default): when
    ORIGIN_HOME is the demo archive itself, its agents' logs are its samples, but the clients
    registered with Origin, and HOME, are still the person's (`in_demo`)."""
    settings = settings or Settings.from_env()
    person = os.environ if person is None else person
    inside_demo = (settings.home / DEMO_MARK).is_file()
    outside = _theirs(settings, person) if inside_demo else settings
    watched = Watched(settings.environ)
    watched.get("ORIGIN_HOME")
    watched.get("HOME")
    origin, archive = open_archive(settings)
    try:
        found = agents(settings, origin, watched) + archive
        if inside_demo:
            found += [in_demo(settings, outside)]
        if origin is not None:
            found += [recording(settings)]
        if origin is not None:
            found += [index(origin)]
        if demo is not None:
            found += [demo_archive(demo)]
        found += hub(settings, origin, watched, probe_timeout_s)
        found += clients(outside, origin, Watched(outside.environ), probe_timeout_s)
    finally:
        if origin is not None:
            origin.close()
    environment = {name: settings.environ.get(name) for name in watched.read}
    if inside_demo:
        environment["HOME"] = outside.environ.get("HOME")  # the person's, not the samples'
    return Diagnosis(str(settings.home), environment, found)


def _theirs(settings: Settings, person: Mapping[str, str]) -> Settings:
    """The demo's settings with the person's own environment: where their agents' configuration
    is (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME) and what is on their PATH."""
    environ = {**person, **{k: v for k, v in settings.environ.items() if k.startswith("ORIGIN_")}}
    home = Path(person.get("HOME") or Path.home())
    return dataclasses.replace(settings, environ=environ, user_home=home)


def in_demo(settings: Settings, outside: Settings) -> Finding:
    """ORIGIN_HOME is the demo: say so, and that its agents are samples, not the person's."""
    samples = settings.user_home
    return Finding(
        "archive",
        "demo",
        "note",
        f"ORIGIN_HOME is the demo archive of generated samples: its agents' logs are the "
        f"samples under {samples}, not your HOME ({outside.user_home}), whose agents are "
        "checked for registrations below.",
        {"samples": str(samples), "home": str(outside.user_home)},
    )
