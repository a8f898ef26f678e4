"""Several glob patterns matched in one walk of a directory tree.

`glob.glob` walks the tree once per pattern, and the agents' patterns share their trees
(`sessions/**/rollout-*.jsonl` and `…jsonl.zst`; `projects/*/*.jsonl` and
`projects/*/*/subagents/*.jsonl`). The freshness check runs this before searches, and a new
process's first search pays it: one `scandir` per directory for all patterns halves it.

The semantics are `glob.glob(root + "/" + pattern, recursive=True, include_hidden=True)`:
`*`, `?` and `[…]` match within one name (hidden names too), `**` as a whole component matches
zero or more directories (a pattern may not end in it), symbolic links to directories are
followed, and a final component matches files and directories alike. A test holds this to
`glob.glob` on random trees.

A caller may list directories itself (`listdir`: a directory's entries as (name, is a
directory) pairs, None when it cannot be read): discovery reuses the listing of a directory
whose mtime holds instead of reading it again.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from fnmatch import translate

#: Deeper than any agent's layout; stops a walk that a symbolic-link loop would make endless.
MAX_DEPTH = 40

#: A directory's entries as (name, whether it is a directory); None when it cannot be read.
Lister = Callable[[str], "list[tuple[str, bool]] | None"]


def scan(directory: str) -> list[tuple[str, bool]] | None:
    """A directory's entries read from disk (symbolic links to directories count as directories)."""
    try:
        with os.scandir(directory) as entries:
            return [(entry.name, _is_dir(entry)) for entry in entries]
    except OSError:
        return None


def match_many(root: str, patterns: list[str], listdir: Lister = scan) -> list[list[str]]:
    """For each pattern, the paths under `root` it matches (`root/...`, unsorted)."""
    compiled = [[_component(part) for part in pattern.split("/") if part] for pattern in patterns]
    if any(not parts or parts[-1] is None for parts in compiled):
        raise ValueError("a pattern must name something after its last **")
    found: list[list[str]] = [[] for _ in patterns]
    # Each state: (pattern index, position in its components). Dedupe per directory, since
    # `**` can reach the same state by several routes.
    start = root.rstrip("/") or "/"
    _walk(start, {(i, 0) for i in range(len(patterns))}, compiled, found, 0, listdir)
    return [list(dict.fromkeys(paths)) for paths in found]  # `**` may reach a path twice


def _component(part: str) -> re.Pattern[str] | str | None:
    """None for `**`; a plain string for a literal name; else the name's regex."""
    if part == "**":
        return None
    if not any(char in part for char in "*?["):
        return part
    return re.compile(translate(part))


def _walk(
    directory: str,
    states: set[tuple[int, int]],
    compiled: list[list[re.Pattern[str] | str | None]],
    found: list[list[str]],
    depth: int,
    listdir: Lister,
) -> None:
    # `**` matches zero directories too: its state also stands for the component after it.
    expanded: set[tuple[int, int]] = set()
    pending = list(states)
    while pending:
        state = pending.pop()
        if state in expanded:
            continue
        expanded.add(state)
        index, position = state
        if position < len(compiled[index]) and compiled[index][position] is None:
            pending.append((index, position + 1))
    live = [(i, p) for i, p in expanded if p < len(compiled[i])]
    if not live:
        return
    entries = listdir(directory)
    if entries is None:
        return
    descend: dict[str, set[tuple[int, int]]] = {}
    for name, is_dir in entries:
        for index, position in live:
            part = compiled[index][position]
            last = position == len(compiled[index]) - 1
            if part is None:  # `**`: this directory's subdirectories keep it
                if is_dir:
                    descend.setdefault(name, set()).add((index, position))
                continue
            if not (name == part if isinstance(part, str) else part.match(name)):
                continue
            if last:
                found[index].append(os.path.join(directory, name))
            elif is_dir:
                descend.setdefault(name, set()).add((index, position + 1))
    if depth >= MAX_DEPTH:
        return
    for name, next_states in descend.items():
        _walk(os.path.join(directory, name), next_states, compiled, found, depth + 1, listdir)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows symbolic links, as glob does
    except OSError:
        return False
