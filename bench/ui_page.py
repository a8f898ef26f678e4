"""The admin UI's search page at the built archive's size: a real hub on loopback (uvicorn in a
thread, the UI's own router) over the cached Origin home, read only, signed in, the bench's query
mix. Figures are wall times per request (request to last byte) and the search tool's share, which
the page reports in its `Server-Timing` header; the issue's target is the whole page within 50 ms.
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx2

from .stats import summarize, time_calls

#: The UI's pages: the whole search page, and the fragment search-as-you-type fetches.
PAGES = ("/ui/search", "/ui/search/hits")


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


def measure(home: Path, mix: list[Any]) -> dict[str, Any]:
    from origin_api.hub.edge import HubApp
    from origin_api.hub.server import start_in_thread
    from origin_api.runtime import Origin
    from origin_api.settings import Settings
    from origin_api.ui.app import create_router
    from origin_api.ui.core import Ui
    from origin_api.ui.errors import not_found

    env = {
        "HOME": str(home / "no-agents"),
        "ORIGIN_HOME": str(home),
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": str(10**12),  # read only: the build is what is timed
        "ORIGIN_WATCH_INTERVAL_MS": "0",
    }
    names = frozenset({"127.0.0.1"})
    with Origin.open(Settings.from_env(env)) as origin:
        ui = Ui(origin)
        app = HubApp(
            hub_names=names,
            pages=not_found,
            route_handlers=[create_router(ui, names)],
            openapi_config=None,
            logging_config=None,
        )
        cookie, _ = ui.sessions.start("bench")
        tool_ms: list[float] = []
        out: dict[str, Any] = {}
        with (
            start_in_thread(origin, app=app, ingest=False) as hub,
            httpx2.Client(cookies={"origin_ui": cookie}, timeout=30) as client,
        ):
            # One line a request on stderr otherwise (the hub turns it on as it starts).
            logging.getLogger("origin.hub.requests").setLevel(logging.WARNING)
            for path in PAGES:

                def get(query: Any, path: str = path) -> None:
                    answer = client.get(hub.base + path, params=_params(query))
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

    from origin_api.hub.edge import HubApp
    from origin_api.hub.server import start_in_thread
    from origin_api.runtime import Origin
    from origin_api.settings import Settings
    from origin_api.ui.app import create_router
    from origin_api.ui.core import Ui
    from origin_api.ui.errors import not_found
    from origin_store import activity

    env = {
        "HOME": str(home / "no-agents"),
        "ORIGIN_HOME": str(home),
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": str(10**12),
        "ORIGIN_WATCH_INTERVAL_MS": "0",
    }
    names = frozenset({"127.0.0.1"})
    out: dict[str, Any] = {}
    with Origin.open(Settings.from_env(env)) as origin:
        began = time.perf_counter()
        out["backfilled"] = activity.backfill(origin.store)  # a home cached before the figures
        out["built_s"] = time.perf_counter() - began if out["backfilled"] else 0.0
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
            logging.getLogger("origin.hub.requests").setLevel(logging.WARNING)
            days = [ACTIVITY_DAYS[n % len(ACTIVITY_DAYS)] for n in range(ACTIVITY_REQUESTS)]
            for mode in ("read", "kept"):

                def get(window: int, mode: str = mode) -> None:
                    if mode == "read":  # as the first request after a write finds it
                        activity.forget_answers()
                    answer = client.get(hub.base + "/ui/activity", params={"days": str(window)})
                    if answer.status_code != 200:
                        raise RuntimeError(f"/ui/activity answered {answer.status_code}")

                out[mode] = asdict(summarize(time_calls(get, days)))
    return out
