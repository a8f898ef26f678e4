"""The admin UI's search page (and home page) at the built archive's size: a real hub on loopback (uvicorn in a
thread, the UI's own router) over the cached Origin home, read only, signed in, the bench's query
mix. Figures are wall times per request (request to last byte) and the search tool's share, which
the page reports in its `Server-Timing` header; the issue's target is the whole page within 50 ms.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx2

from .stats import summarize, time_calls

#: The UI's pages: the whole search page, the fragment search-as-you-type fetches, and the home
#: page (which ignores the query: its figures come from the kept catalog of sessions).
PAGES = ("/ui/search", "/ui/search/hits", "/ui/")


def report(home: Path, mix: list[Any], section: Any) -> dict[str, Any]:
    """Measure, print the section, return {page: latency dict, "tool": latency of the tool}."""
    section("Admin UI: the search page's server time (a real hub on loopback, signed in)")
    results = measure(home, mix)
    for path in PAGES:
        wall = results[path]
        print(
            f"  {path:<17} p50 {wall['p50']:.2f} / p95 {wall['p95']:.2f} / p99 {wall['p99']:.2f} ms"
            f" (n={wall['n']}); target: within 50 ms"
        )
    tool = results["tool"]
    print(f"  of which the search tool  p50 {tool['p50']:.2f} / p99 {tool['p99']:.2f} ms")
    return results


@contextmanager
def signed_in(home: Path) -> Iterator[tuple[Any, str, httpx2.Client]]:
    """The UI alone, served over `home` by a real hub on loopback (uvicorn in a thread), read
    only, and a client signed in to it: (origin, the hub's base URL, client)."""
    from origin_api.hub.edge import HubApp
    from origin_api.hub.server import start_in_thread
    from origin_api.runtime import Origin
    from origin_api.settings import Settings
    from origin_api.ui.app import create_router
    from origin_api.ui.core import Ui
    from origin_api.ui.errors import not_found

    names = frozenset({"127.0.0.1"})
    with Origin.open(Settings.from_env(_env(home))) as origin:
        ui = Ui(origin)
        app = HubApp(
            hub_names=names,
            pages=not_found,
            route_handlers=[create_router(ui, names)],
            openapi_config=None,
            logging_config=None,
        )
        cookie, _ = ui.sessions.start("bench")
        with (
            start_in_thread(origin, app=app, ingest=False) as hub,
            httpx2.Client(cookies={"origin_ui": cookie}, timeout=30) as client,
        ):
            # One line a request on stderr otherwise (the hub turns it on as it starts).
            logging.getLogger("origin.hub.requests").setLevel(logging.WARNING)
            yield origin, hub.base, client


def measure(home: Path, mix: list[Any]) -> dict[str, Any]:
    tool_ms: list[float] = []
    out: dict[str, Any] = {}
    with signed_in(home) as (_, base, client):
        for path in PAGES:

            def get(query: Any, path: str = path) -> None:
                answer = client.get(base + path, params=_params(query))
                if answer.status_code != 200:
                    raise RuntimeError(f"{path} answered {answer.status_code}")
                if path == PAGES[0]:
                    timing = answer.headers.get("server-timing", "")
                    if "dur=" in timing:
                        tool_ms.append(float(timing.split("dur=")[1].split(",")[0]))

            out[path] = asdict(summarize(time_calls(get, mix)))
    out["tool"] = asdict(summarize(tool_ms[len(mix) :] or [0.0]))  # the timed pass only
    return out


def _params(query: Any) -> dict[str, str]:
    params = {"q": query.text, "tools": "1"}
    for name in ("source", "project", "since"):
        if name in query.filters:
            params[name] = str(query.filters[name])
    return params


# -- session: the session page opened at a search hit (`at=`) ------------------------------------

#: The session size the issue names: a hit in a 1,000-event session.
SESSION_EVENTS = 1_000
#: Sessions measured, the nearest to SESSION_EVENTS, and where in each the hit sits.
SESSIONS_MEASURED = 5
HIT_PLACES = (0.5, 0.8, 0.95, 1.0)
#: Passes over the (session, hit) pairs: enough samples for a p99.
SESSION_ROUNDS = 10


def report_session_at(home: Path, section: Any) -> dict[str, Any]:
    """Measure and print the session page opened at a hit: wall time per request through a
    real hub, as `report` measures the search page."""
    section("Admin UI: the session page opened at a hit (`at=`), sessions of ~1,000 events")
    results = measure_session_at(home)
    wall = results["at"]
    print(
        f"  /ui/session?at=   p50 {wall['p50']:.2f} / p95 {wall['p95']:.2f} / p99 {wall['p99']:.2f} ms"
        f" (n={wall['n']}; {results['sessions']} sessions of {results['events']}); "
        "target: within 50 ms"
    )
    return results


def _hits(home: Path) -> tuple[list[tuple[str, str, str]], list[int]]:
    """(source, session, event id) of hits deep in the sessions nearest SESSION_EVENTS long."""
    from origin_api.runtime import Origin
    from origin_api.settings import Settings
    from origin_store.reader import iter_sessions, session_event_ids

    with Origin.open(Settings.from_env(_env(home))) as origin, origin.store.read() as txn:
        sessions = sorted(
            iter_sessions(origin.store, txn),
            key=lambda s: abs(s["events"] - SESSION_EVENTS),
        )[:SESSIONS_MEASURED]
        hits, sizes = [], []
        for s in sessions:
            ids = list(session_event_ids(origin.store, txn, s["source"], s["session"]))
            sizes.append(len(ids))
            for place in HIT_PLACES:
                hits.append(
                    (s["source"], s["session"], ids[min(len(ids) - 1, int(place * len(ids)))])
                )
    return hits, sizes


def _env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home / "no-agents"),
        "ORIGIN_HOME": str(home),
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": str(10**12),  # read only: the build is what is timed
        "ORIGIN_WATCH_INTERVAL_MS": "0",
    }


def measure_session_at(home: Path) -> dict[str, Any]:
    hits, sizes = _hits(home)
    with signed_in(home) as (_, base, client):

        def get(hit: tuple[str, str, str]) -> None:
            source, session, event_id = hit
            params = {"source": source, "id": session, "at": event_id}
            answer = client.get(base + "/ui/session", params=params)
            if answer.status_code != 200 or "ev-at" not in answer.text:
                raise RuntimeError(f"/ui/session?at= answered {answer.status_code}")

        samples = time_calls(get, hits * SESSION_ROUNDS)
    return {
        "at": asdict(summarize(samples)),
        "sessions": len(sizes),
        "events": "–".join(f"{n:,}" for n in (min(sizes), max(sizes))) if sizes else "0",
    }


# -- activity: the activity page's server time (bench/RESULTS.md, "activity page") -----------

#: The activity page's windows, requested in turn (its range selector's choices).
ACTIVITY_DAYS = (30, 90, 365)
#: Requests timed in each mode (after a warm-up pass of as many; the figures of a home from
#: before them are built first, once).
ACTIVITY_REQUESTS = 240


def report_activity(home: Path, section: Any) -> dict[str, Any]:
    """Measure and print the activity page's wall time per request, its figures read from the
    store each time (as after every write: the headline) and as kept between writes."""
    section("Admin UI: the activity page's server time (a real hub on loopback, signed in)")
    found = measure_activity(home)
    for mode, label in (("read", "figures read each time"), ("kept", "the answer kept")):
        wall = found[mode]
        print(
            f"  /ui/activity {label:<23} p50 {wall['p50']:.2f} / p95 {wall['p95']:.2f} / "
            f"p99 {wall['p99']:.2f} ms (n={wall['n']}, days {'/'.join(map(str, ACTIVITY_DAYS))})"
            "; target: within 50 ms"
        )
    if found.get("built_s"):
        print(f"  (the figures of this home were built first, once: {found['built_s']:.1f} s)")
    return found


def measure_activity(home: Path) -> dict[str, Any]:
    import time

    from origin_store import activity

    out: dict[str, Any] = {}
    with signed_in(home) as (origin, base, client):
        began = time.perf_counter()
        out["backfilled"] = activity.backfill(origin.store)  # a home cached before the figures
        out["built_s"] = time.perf_counter() - began if out["backfilled"] else 0.0
        days = [ACTIVITY_DAYS[n % len(ACTIVITY_DAYS)] for n in range(ACTIVITY_REQUESTS)]
        for mode in ("read", "kept"):

            def get(window: int, mode: str = mode) -> None:
                if mode == "read":  # as the first request after a write finds it
                    activity.forget_answers()
                answer = client.get(base + "/ui/activity", params={"days": str(window)})
                if answer.status_code != 200:
                    raise RuntimeError(f"/ui/activity answered {answer.status_code}")

            out[mode] = asdict(summarize(time_calls(get, days)))
    return out
