"""The entries list, a page at a time, and what the entry view derives from `get`'s history.

No tool lists entries page by page (`search` without a query gives the newest 100 at most), so
the list reads the store with the parts the tools are made of: each entry's lineage decides
its current version by the same rule, a forget hides it by the same mark, and each row is the
same `entry_view` the tools return. On a device connected to a hub it lists this device's
entries; an entry only the hub has still opens by id (`get` asks the hub).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from origin_store.entries import versions as store_entries

from ...runtime import Origin
from ...service.shapes import EntryView, HistoryItem
from ...service.views import entry_view

#: Entries on one page of the list.
PAGE_SIZE = 50


class ListedEntry(EntryView):
    """An entry of the list: whether its validity has ended (search leaves such out)."""

    ended: bool


@dataclass(frozen=True)
class EntryPage:
    entries: list[ListedEntry]  # newest first
    page: int
    pages: int
    total: int
    projects: list[str]  # every project of a current entry, for the filter


def entry_page(
    origin: Origin,
    *,
    kind: str | None = None,
    project: str | None = None,
    page: int = 1,
    size: int = PAGE_SIZE,
) -> EntryPage:
    """Page `page` (1-based; past the end is the last) of the current, visible entries, newest
    first. An entry whose validity has ended is listed (marked `ended`): search leaves it out,
    and this is where a person finds it again."""
    store = origin.store
    now = store_entries.now_ms()
    found: list[tuple[int, str, ListedEntry]] = []
    projects: Counter[str] = Counter()
    with store.read() as txn:
        hidden = store_entries.anything_hidden(store, txn)
        for root in store_entries.root_ids(store, txn):
            line = store_entries.lineage(store, txn, root)
            current = next((v for v in line.versions if v["id"] == line.current), None)
            if current is None:
                continue
            if hidden and store_entries.is_hidden(store, txn, current["id"]):
                continue
            named = current.get("project")
            if named:
                projects[named] += 1
            if kind and current["kind"] != kind or project and current.get("project") != project:
                continue
            ended = current.get("valid_to")
            view: ListedEntry = {
                **entry_view(current, line),
                "ended": ended is not None and ended <= now,
            }
            found.append((current["created"], current["id"], view))
    found.sort(key=lambda item: (item[0], item[1]), reverse=True)
    pages = max(1, -(-len(found) // size))
    page = min(max(1, page), pages)
    shown = [view for _, _, view in found[(page - 1) * size : page * size]]
    return EntryPage(shown, page, pages, len(found), sorted(projects))


class MarkedVersion(HistoryItem):
    """A version of an entry's history as its page shows it."""

    concurrent: bool
    fork: bool
    corrected_by: list[str]


def marked_history(history: list[HistoryItem]) -> list[MarkedVersion]:
    """`get`'s history, oldest first, with what the page shows of each version: `concurrent`
    (superseded without anyone correcting it: it lost to a concurrent correction), `fork`
    (another version corrects the same one) and `corrected_by` (the versions correcting it).
    Derived from the history alone, by the rule the store applies: a version nobody corrects is
    a head, and every head but the current version lost to a concurrent correction."""
    corrected_by: dict[str, list[str]] = {}
    for version in history:
        supersedes = version.get("supersedes")
        if supersedes:
            corrected_by.setdefault(supersedes, []).append(version["id"])
    out: list[MarkedVersion] = []
    for version in history:
        parent: str = version.get("supersedes") or ""
        out.append(
            {
                **version,
                "concurrent": version["status"] == "superseded"
                and version["id"] not in corrected_by,
                "fork": bool(parent) and len(corrected_by.get(parent, [])) > 1,
                "corrected_by": corrected_by.get(version["id"], []),
            }
        )
    return out
