"""The demo's sample logs: coding sessions a person recognises, in every agent's format.

The benchmark's corpus (``..corpus``) is generated prose, sized and pinned byte for byte; the
demo is what a new user browses first, so its sessions are tasks on four plausible projects (a
failing test, a timeout, a cache to add, in English and Chinese), written by the same writers
in each agent's own format (``writers.py``, ``claude.py``) from scripts (``script.py``) built
from data tables (``projects.py``, ``tasks.py``, ``code.py``, ``runs.py``). ``write.py`` plans
the sessions over the last 60 days and writes them, with the agents' memory files.
"""

from __future__ import annotations

from .write import DEMO_SEED, SOURCES_SHARE, write_demo_samples

__all__ = ["DEMO_SEED", "SOURCES_SHARE", "write_demo_samples"]
