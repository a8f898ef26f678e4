"""Finding agents' log files, and which of them changed since their cursors.

A `Sweep` is what a freshness pass remembers for the next one, in any process (a file under
ORIGIN_HOME): each directory's listing with the mtime it was read at, the log files those
listings gave, the logs written lately ("hot") and where the round of the others stands. A pass
then costs a stat per directory when no directory changed (an entry added, removed or renamed
changes its directory's mtime; an append does not), and a stat of the new and hot logs plus a
slice of the cold ones, each cold log taking its turn once every `rounds` passes.
"""

from __future__ import annotations

import marshal
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from stat import S_ISREG
from typing import Any

import lmdb

from ..core import keys
from ..core.db import Store
from ..parsers import memory
from ..parsers.base import FileKind, Source
from ..project import git_root
from ..records import Cursor
from ..settings import Settings
from ..system.globwalk import Lister, match_many, scan
from . import rowlog


@dataclass(slots=True)
class LogFile:
    source: Source
    kind: FileKind
    root: Path
    path: Path  # what is read line by line
    #: The agent's file when `path` is its row log (a database or a file rewritten whole).
    origin: Path | None = None

    @property
    def original(self) -> Path:
        """The agent's own file: what the cursor, the mirror and `sources` are about."""
        return self.origin or self.path

    @property
    def rel(self) -> str:
        return self.original.relative_to(self.root).as_posix()

    @property
    def key(self) -> bytes:
        """Its cursor's key in `files`."""
        return keys.text_key(str(self.original))

    def through(self, row_log: Path) -> LogFile:
        """This agent's file read through its row log at `row_log`."""
        return LogFile(self.source, self.kind, self.root, row_log, origin=self.path)


#: A found log: (its path, its source's name, the index of its kind, its root).
Found = tuple[str, str, int, str]


def discover(
    sources: dict[str, Source], settings: Settings, projects: Sequence[str] = ()
) -> list[LogFile]:
    """Every log file of every known agent under its default root (moved by its env var), and
    every project file they read in the directories `projects`."""
    return build(sources, find(sources, settings, scan, projects))


def roots(sources: dict[str, Source], settings: Settings) -> list[tuple[Source, Path]]:
    return [
        (source, root)
        for source in sources.values()
        for root in source.roots(settings.environ, settings.user_home)
    ]


def project_dirs(cwd: str) -> list[str]:
    """The directories whose project files a session in `cwd` reads: its git root down to it."""
    return memory.project_dirs(cwd, git_root(cwd))


def expand(cwds: Sequence[str]) -> list[str]:
    """Every directory whose project files the sessions in `cwds` read, each once."""
    return sorted({d for cwd in cwds for d in project_dirs(cwd)})


def places(
    sources: dict[str, Source], settings: Settings, projects: Sequence[str] = ()
) -> list[tuple[Source, Path, list[tuple[int, str]]]]:
    """Where to look: each agent root with its kinds' patterns, then each project directory
    with the patterns of the agents' project files, as (source, directory, (kind, pattern)s)."""
    out = [
        (source, root, [(i, p) for i, kind in enumerate(source.files) for p in kind.patterns])
        for source, root in roots(sources, settings)
    ]
    for directory in projects:
        for source in sources.values():
            first = len(source.files)
            kinds = [
                (first + i, p) for i, kind in enumerate(source.projects) for p in kind.patterns
            ]
            if kinds:
                out.append((source, Path(directory), kinds))
    return out


def find(
    sources: dict[str, Source], settings: Settings, listdir: Lister, projects: Sequence[str] = ()
) -> list[Found]:
    """The log files under every root, listing directories with `listdir`."""
    found: list[Found] = []
    seen: set[str] = set()
    for source, root, kinds in places(sources, settings, projects):
        if not os.path.isdir(root):  # False on any error: a recorded cwd may be too long a name
            continue
        # One walk for all of the agent's patterns: this runs before every search that ingests.
        matches = match_many(str(root), [pattern for _, pattern in kinds], listdir)
        for (index, _), matched in zip(kinds, matches, strict=True):
            for name in sorted(matched):
                if name in seen:
                    continue
                if name.endswith(".zst") and os.path.exists(name[:-4]):
                    continue  # the agent decompressed it to append: the plain file wins
                seen.add(name)
                # Directories named like logs are left out by the stat in changed_files.
                found.append((name, source.name, index, str(root)))
    return found


def build(sources: dict[str, Source], found: list[Found]) -> list[LogFile]:
    by_name = {source.name: source for source in sources.values()}
    root_paths: dict[str, Path] = {}
    logs = []
    for name, source, index, root in found:
        root_path = root_paths.get(root)
        if root_path is None:
            root_path = root_paths[root] = Path(root)
        logs.append(LogFile(by_name[source], by_name[source].kinds[index], root_path, Path(name)))
    return logs


def read_cursor(store: Store, txn: lmdb.Transaction, log: LogFile) -> Cursor | None:
    found: Cursor | None = store.get(txn, "files", log.key)
    return found


def total_pending_bytes(store: Store, files: list[LogFile]) -> int:
    """Bytes not yet ingested, for progress bars."""
    total = 0
    with store.read() as txn:
        for log in files:
            try:
                size = log.path.stat().st_size
            except OSError:
                continue
            cursor = read_cursor(store, txn, log)
            if log.kind.snapshots:  # its cursor is its row log's: a database read once is done
                total += 0 if cursor else size
                continue
            done = cursor["size"] if cursor and cursor.get("size", 0) <= size else 0
            total += max(0, size - done)
    return total


def unchanged(cursor: Cursor | None, st: os.stat_result) -> bool:
    """Whether a file's size, mtime and inode are those its cursor remembers."""
    return cursor is not None and (cursor["size"], cursor["mtime"], cursor["ino"]) == (
        st.st_size,
        st.st_mtime_ns,
        st.st_ino,
    )


def settled(log: LogFile, cursor: Cursor | None, st: os.stat_result, rows_root: Path) -> bool:
    """Whether a file is as its cursor left it: for a log its size, mtime and inode; for a
    database or a file read whole, its stamp (`rowlog.settled`), since its cursor is its row
    log's, and its row log released as far as its mirror is sealed (`owes_release`)."""
    if log.kind.snapshots:
        return not owes_release(cursor) and rowlog.settled(
            rows_root, log.source.name, log.kind, log.path, cursor
        )
    return unchanged(cursor, st)


def owes_release(cursor: Cursor | None) -> bool:
    """Whether a row log's mirror sealed lines whose blocks no pass gave back: the pass that
    sealed them was killed before it could (it releases only once they are durable, at its
    end). The next pass that finds the row log unchanged releases them, from its cursor."""
    return cursor is not None and cursor.get("released", 0) < rowlog.releasable(
        cursor["mirror"]["src"]
    )


def changed_files(store: Store, logs: list[LogFile], rows_root: Path) -> list[LogFile]:
    """Files that differ from their cursor (no locks, one read)."""
    changed = []
    with store.read() as txn:
        for log in logs:
            cursor = read_cursor(store, txn, log)
            try:
                st = os.stat(log.path)
            except OSError:
                continue
            if not S_ISREG(st.st_mode):
                continue
            if not settled(log, cursor, st, rows_root):
                changed.append(log)
    return changed


#: A log written this recently is hot: every pass checks it.
HOT_NS = 3600 * 10**9
#: A directory written this recently is listed again next time: an entry added within the same
#: tick of the file system's clock would not change the mtime that was read.
RACY_NS = 2 * 10**9
#: The listing of a directory that must be read again next time.
RELIST = -1
#: 3: Claude Code's tool outputs became a kind of its own, which moved the index of the kinds
#: after it that `found` names.
SWEEP_VERSION = 3


class Sweep:
    """What one freshness pass leaves for the next (see the module's docstring)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: Row logs live beside the sweep file, in ORIGIN_HOME.
        self.rows_root = path.parent / "rows"
        #: directory -> (mtime_ns or RELIST, inode) when listed
        self.dirs: dict[str, tuple[int, int]] = {}
        #: directory -> (mtime_ns or RELIST, inode, its entries as (name, is a directory)), read
        #: only when a walk needs them
        self.listings: dict[str, tuple[int, int, list[tuple[str, bool]]]] | None = None
        self.roots: list[str] = []
        self.found: list[Found] = []
        #: hot log -> its mtime when last seen
        self.hot: dict[str, int] = {}
        #: log -> (size, mtime_ns, inode) when last seen equal to its cursor's
        self.stats: dict[str, tuple[int, int, int]] = {}
        #: Whether a previous pass left this (else every log is checked).
        self.known = False
        #: Logs the last pass did not know.
        self.new: set[str] = set()
        #: a session's cwd -> the directories whose project files its agents read (`projects`)
        self.projects: dict[str, list[str]] = {}
        self._visited: set[str] = set()
        self._dirty = False

    @classmethod
    def load(cls, path: Path) -> Sweep:
        sweep = cls(path)
        state = _read(path)
        if state is not None:
            try:
                sweep.dirs, sweep.roots, sweep.found = state["dirs"], state["roots"], state["found"]
                sweep.hot, sweep.stats, sweep.known = state["hot"], state["stats"], True
                sweep.projects = state["projects"]
            except (KeyError, TypeError):
                sweep = cls(path)  # unreadable: this pass checks everything and writes it anew
        return sweep

    @property
    def _listings_path(self) -> Path:
        return self.path.with_name(self.path.name + ".dirs")

    def save(self) -> None:
        """Written when it changed, each file whole under a temporary name, then renamed:
        readers see the old or the new. The listings carry their own mtimes."""
        if not self._dirty:
            return
        if self.listings is not None:
            _write(self._listings_path, {"version": SWEEP_VERSION, "listings": self.listings})
        state = {
            "version": SWEEP_VERSION,
            "dirs": self.dirs,
            "roots": self.roots,
            "found": self.found,
            "hot": self.hot,
            "stats": self.stats,
            "projects": self.projects,
        }
        _write(self.path, state)
        self._dirty = False

    def discover(
        self, sources: dict[str, Source], settings: Settings, cwds: Sequence[str] = ()
    ) -> list[Found]:
        """The log files, as the last pass found them when no directory it listed changed;
        `new` is then the logs that pass did not know. `cwds` are the directories sessions ran
        in, whose project files are looked for too (each expanded once: `projects`)."""
        if any(cwd not in self.projects for cwd in cwds):
            self.projects = {cwd: self.projects.get(cwd) or project_dirs(cwd) for cwd in cwds}
            self._dirty = True
        dirs = sorted({d for cwd in cwds for d in self.projects[cwd]})
        current = [str(root) for _, root in roots(sources, settings)] + dirs
        if self.known and current == self.roots and self._unchanged():
            return self.found
        before = {found[0] for found in self.found}
        if self.listings is None:
            state = _read(self._listings_path)
            listings = state.get("listings") if state is not None else None
            self.listings = listings if isinstance(listings, dict) else {}
        self._visited = set()
        found = find(sources, settings, self._listdir, dirs)
        self.dirs = {d: stamp for d, stamp in self.dirs.items() if d in self._visited}
        self.listings = {d: entries for d, entries in self.listings.items() if d in self.dirs}
        names = {name for name, *_ in found}
        self.new = names - before
        self.hot = {name: mtime for name, mtime in self.hot.items() if name in names}
        self.stats = {name: stat for name, stat in self.stats.items() if name in names}
        self.roots, self.found, self._dirty = current, found, True
        return found

    def _unchanged(self) -> bool:
        """Whether every directory listed last time holds its mtime, and no root appeared."""
        if any(root not in self.dirs and os.path.isdir(root) for root in self.roots):
            return False
        for directory, (mtime, ino) in self.dirs.items():
            try:
                st = os.stat(directory)
            except OSError:
                return False
            if (st.st_mtime_ns, st.st_ino) != (mtime, ino):
                return False
        return True

    def _listdir(self, directory: str) -> list[tuple[str, bool]] | None:
        self._visited.add(directory)
        try:
            st = os.stat(directory)
        except OSError:
            return None
        assert self.listings is not None
        cached = self.listings.get(directory)
        if cached is not None and (cached[0], cached[1]) == (st.st_mtime_ns, st.st_ino):
            self.dirs[directory] = (st.st_mtime_ns, st.st_ino)
            return cached[2]
        entries = scan(directory)
        if entries is None:
            self._visited.discard(directory)
            return None
        racy = time.time_ns() - st.st_mtime_ns < RACY_NS
        stamp = (RELIST if racy else st.st_mtime_ns, st.st_ino)
        self.dirs[directory] = stamp
        self.listings[directory] = (*stamp, entries)
        return entries

    def pick(self, found: list[Found], rounds: int, turn: int) -> tuple[list[Found], int]:
        """What this pass checks, and the next pass's turn: everything on a first pass (or with
        one round); else the new and hot logs and the `turn`-th `1/rounds` of the others."""
        now = time.time_ns()
        self.hot = {name: mtime for name, mtime in self.hot.items() if now - mtime < HOT_NS}
        if not self.known or rounds <= 1:
            return found, 0
        chosen: list[Found] = []
        cold: list[Found] = []
        for log in found:
            (chosen if log[0] in self.new or log[0] in self.hot else cold).append(log)
        turn %= rounds
        size = -(-len(cold) // rounds)
        chosen += cold[turn * size : (turn + 1) * size]
        return chosen, (turn + 1) % rounds

    def check(
        self, store: Store, sources: dict[str, Source], chosen: list[Found], *, trust: bool = True
    ) -> list[LogFile]:
        """The chosen logs that changed: a stat first (equal to the one last seen equal to the
        cursor: unchanged, when `trust`ed), then their cursors, in one read."""
        now = time.time_ns()
        suspects: list[Found] = []
        seen: dict[str, os.stat_result] = {}
        for entry in chosen:
            name = entry[0]
            try:
                st = os.stat(name)
            except OSError:
                if self.hot.pop(name, None) is not None or self.stats.pop(name, None) is not None:
                    self._dirty = True
                continue
            if now - st.st_mtime_ns < HOT_NS:
                if self.hot.get(name) != st.st_mtime_ns:
                    self.hot[name], self._dirty = st.st_mtime_ns, True
            elif self.hot.pop(name, None) is not None:
                self._dirty = True
            if not trust or self.stats.get(name) != (st.st_size, st.st_mtime_ns, st.st_ino):
                suspects.append(entry)
                seen[name] = st
        changed: list[LogFile] = []
        with store.read() as txn:
            for (name, *_), log in zip(suspects, build(sources, suspects), strict=True):
                st = seen[name]  # `name` is `found`'s own string: marshal writes it once
                if settled(log, read_cursor(store, txn, log), st, self.rows_root):
                    stat = (st.st_size, st.st_mtime_ns, st.st_ino)
                    if self.stats.get(name) != stat:
                        self.stats[name], self._dirty = stat, True
                elif S_ISREG(st.st_mode):
                    changed.append(log)
        return changed


def _read(path: Path) -> dict[str, Any] | None:
    try:
        state: Any = marshal.loads(path.read_bytes())  # marshal.load reads a file in small pieces
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return state if isinstance(state, dict) and state.get("version") == SWEEP_VERSION else None


def _write(path: Path, state: dict[str, Any]) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_bytes(marshal.dumps(state))
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)
