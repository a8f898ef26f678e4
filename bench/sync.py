"""A device and its personal hub on loopback: the first sync of the built archive, an
incremental sync of about 1,000 new events, and merged `search` against the device alone.

The device is a copy of the build section's Origin home (the cached home is never written); the
hub is a real `origin hub` process over a fresh home. Both syncs run `sync_now` in a child
process, as `origin sync` does, through a byte-counting loopback relay of ours: the client's
request bytes on the wire (headers and bodies) are what "bytes sent" counts, without touching the
sync client. The first sync stops at a deadline (`FIRST_SYNC_CAP_S`) when the whole archive
takes longer; the rest of the feed is then marked pushed on the copy, so the incremental sync
sends only the new events. The new events are a Codex corpus of the per-source generator under
a CODEX_HOME of their own, so the cached corpus is not touched either.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx2

from .corpus import CACHE_ROOT
from .stats import summarize, time_calls

ROOT = Path(__file__).resolve().parents[1]
ORIGIN = str(Path(sys.executable).with_name("origin"))
DEVICE = "bench-device"
#: The first sync is cut off here when the whole archive takes longer (the figures say so).
FIRST_SYNC_CAP_S = 150.0
NEW_EVENTS = 1000
NEW_SEED = 1414  # not the corpus's seed: the new events' ids are new to the device


def report(
    home: Path,
    mix: Sequence[Any],
    section: Callable[[str], None],
    *,
    cap_s: float = FIRST_SYNC_CAP_S,
    new_events: int = NEW_EVENTS,
    root: Path = CACHE_ROOT,
) -> dict[str, Any]:
    """The section: measure, print its lines under ``section``'s heading, return the figures."""
    section(f"Sync: a device and its hub on loopback (first sync capped at {cap_s:.0f} s)")
    results = measure(home, mix, cap_s=cap_s, new_events=new_events, root=root)
    print("\n".join(table(results)), flush=True)
    return results


def measure(
    home: Path, mix: Sequence[Any], *, cap_s: float, new_events: int, root: Path
) -> dict[str, Any]:
    """Copy ``home`` to a scratch device, start a hub, sync, sync again, search merged."""
    root.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="sync-", dir=root))
    try:
        return _measure(home, scratch, mix, cap_s, new_events)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _measure(
    home: Path, scratch: Path, mix: Sequence[Any], cap_s: float, new_events: int
) -> dict[str, Any]:
    from origin_api.samples.formats import HOME, generate_formats
    from origin_api.sync import connection as hub_connection

    started = time.perf_counter()
    device = scratch / "device"
    shutil.copytree(home, device, ignore=shutil.ignore_patterns("hub.json", "hub-client-token"))
    copied_s = time.perf_counter() - started
    hub_env = _agentless_env(scratch / "hub", scratch / "empty")
    token = _origin(hub_env, "token", "create", DEVICE).strip()
    hub = _Hub(hub_env, scratch / "hub.log")
    relay = _CountingRelay(hub.port)
    try:
        link = hub_connection.Connection(f"{relay.base}/mcp", DEVICE, False, token)
        hub_connection.save(device, link)
        generate_formats(scratch / "new", new_events, NEW_SEED, ("codex",))
        device_env = {
            **_agentless_env(device, scratch / "empty"),
            "CODEX_HOME": str(scratch / "new" / HOME / "codex"),
            "ORIGIN_HUB_TIMEOUT_MS": "60000",  # a push batch waits for a busy hub
        }
        first = relay.counted(lambda: _child(device_env, "first", str(cap_s)))
        second = relay.counted(lambda: _child(device_env, "incremental"))
        # Searches go to the hub itself: the relay's threads would share this process's GIL.
        hub_connection.save(device, dataclasses.replace(link, url=f"{hub.base}/mcp"))
        merged = _merged_search(device, scratch / "empty", mix)
    finally:
        relay.close()
        hub.stop()
    received = _hub_has(scratch / "hub", second["new_ids"])
    return {
        "copy_seconds": copied_s,
        "first": first,
        "incremental": {**{k: v for k, v in second.items() if k != "new_ids"}, **received},
        "search": merged,
    }


def _agentless_env(origin_home: Path, empty: Path) -> dict[str, str]:
    """An Origin home whose agents have no logs (each test of the device adds its own)."""
    empty.mkdir(parents=True, exist_ok=True)
    return {
        **os.environ,
        "HOME": str(empty),
        "ORIGIN_HOME": str(origin_home),
        "CLAUDE_CONFIG_DIR": str(empty / "claude"),
        "CODEX_HOME": str(empty / "codex"),
        "ZCODE_STORAGE_DIR": str(empty / ".zcode"),
        "GROK_HOME": str(empty / ".grok"),
        "GEMINI_CLI_HOME": str(empty),
        "COPILOT_HOME": str(empty / ".copilot"),
        "XDG_DATA_HOME": str(empty / ".local/share"),
        "XDG_CONFIG_HOME": str(empty / ".config"),
        "OPENCODE_DB": str(empty / ".local/share/opencode/opencode.db"),
        "OPENCODE_CONFIG_DIR": str(empty / ".config/opencode"),
        "QWEN_HOME": str(empty / ".qwen"),
        "QWEN_RUNTIME_DIR": str(empty / ".qwen"),
        "ORIGIN_WATCH_INTERVAL_MS": "0",
        "ORIGIN_SEARCH_INGEST_INTERVAL_MS": str(7 * 24 * 3600 * 1000),
        "ORIGIN_HUB_REQUEST_TIMEOUT_MS": "300000",
        "TZ": "UTC",
    }


def _origin(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([ORIGIN, *args], env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"origin {' '.join(args)} failed: {done.stderr[-2000:]}")
    return done.stdout


def _child(env: dict[str, str], *args: str) -> dict[str, Any]:
    """One step on the device in its own process, as `origin sync` would run it."""
    env = {**env, "PYTHONPATH": os.pathsep.join(filter(None, (str(ROOT), env.get("PYTHONPATH"))))}
    found: dict[str, Any] = json.loads(_run_python(env, "-m", "bench.sync", *args))
    return found


def _run_python(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, *args], env=env, cwd=ROOT, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"bench.sync {' '.join(args)} failed: {done.stderr[-3000:]}")
    return done.stdout


class _Hub:
    """`origin hub` on a free loopback port; its log goes to a file (an undrained pipe fills)."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = log.open("wb")
        self.proc = subprocess.Popen(
            [ORIGIN, "hub", "--port", str(self.port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx2.get(self.base + "/health", timeout=2).status_code == 200:
                    return
            except httpx2.TransportError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the hub did not start: {log.read_text()[-2000:]}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class _CountingRelay:
    """A loopback TCP relay in front of the hub that counts the bytes each way."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.sent = 0  # device to hub
        self.received = 0
        self.lock = threading.Lock()
        self.open: list[socket.socket] = []
        self.server = socket.create_server(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def counted(self, step: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Run ``step`` and add the bytes it moved to its figures."""
        with self.lock:
            sent, received = self.sent, self.received
        found = step()
        with self.lock:
            return {
                **found,
                "bytes_sent": self.sent - sent,
                "bytes_received": self.received - received,
            }

    def close(self) -> None:
        """Stop accepting and close every connection still open (the hub goes next)."""
        with self.lock:
            open_now, self.open = self.open, []
        for sock in (self.server, *open_now):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                return
            for sock in (client, upstream):  # no Nagle: a request's last few bytes would
                # wait for the delayed ACK of the ones before (40 ms a request, half the rate)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.open += [client, upstream]
            pair = [client, upstream]
            for a, b, up in ((client, upstream, True), (upstream, client, False)):
                threading.Thread(target=self._pump, args=(a, b, up, pair), daemon=True).start()

    def _pump(
        self, source: socket.socket, sink: socket.socket, up: bool, pair: list[socket.socket]
    ) -> None:
        with contextlib.suppress(OSError):
            while chunk := source.recv(1 << 18):
                sink.sendall(chunk)
                with self.lock:
                    if up:
                        self.sent += len(chunk)
                    else:
                        self.received += len(chunk)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)
        with self.lock:  # the second direction to finish closes both ends
            pair.append(source)
            done = len(pair) == 4
            if done:
                self.open = [s for s in self.open if s not in pair]
        if done:
            for end in pair[:2]:
                end.close()


def _merged_search(device: Path, empty: Path, mix: Sequence[Any]) -> dict[str, Any]:
    """The query mix on the device in this process, merged with the hub and alone; the hub's
    index is caught up first (one search with a long wait), as a hub in use would have it."""
    from origin_api.runtime import Origin
    from origin_api.service import Caller, Noted, call
    from origin_api.settings import Settings
    from origin_api.sync import client as hubclient

    from .origin_run import search_args

    env = {**_agentless_env(device, empty), "ORIGIN_HUB_TIMEOUT_MS": "2000"}
    with Origin.open(Settings.from_env(env)) as origin:
        origin.last_ingest = time.monotonic()  # the copy is built: nothing to ingest
        assert origin.connection is not None
        started = time.perf_counter()
        hubclient.call_tool(origin.connection, "search", {"query": "x"}, agent="b", timeout_s=600)
        hub_ready_s = time.perf_counter() - started
        caller = Caller("bench", DEVICE)
        notes = 0

        def merged(query: Any) -> Any:
            nonlocal notes
            answer = call(origin, "search", search_args(query), caller, merged=True)
            notes += isinstance(answer, Noted)
            return answer

        alone = time_calls(lambda q: call(origin, "search", search_args(q), caller), mix)
        both = time_calls(merged, mix)
    return {
        "queries": len(mix),
        "hub_index_seconds": hub_ready_s,
        "alone": asdict(summarize(alone)),
        "merged": asdict(summarize(both)),
        "notes": notes,
        "calls": 2 * len(mix),
    }


def _hub_has(hub_home: Path, ids: list[str]) -> dict[str, Any]:
    """How many of the new events the (stopped) hub holds, and its event count."""
    from origin_store import Store

    with Store.open(hub_home) as store, store.read() as txn:
        return {
            "hub_has_new": sum(1 for i in ids if store.event(txn, i) is not None),
            "new_events": len(ids),
            "hub_events": store.event_count(txn),
        }


def table(r: dict[str, Any]) -> list[str]:
    first, inc, s = r["first"], r["incremental"], r["search"]
    whole = "the whole archive" if first["complete"] else f"cut off at {first['cap_s']:.0f} s"
    lines = [
        f"  first sync   {first['events']:,} of {first['device_events']:,} events "
        f"({first['items']:,} items) in {first['seconds']:.1f} s: "
        f"{first['events_per_s']:,.0f} events/s, {first['bytes_sent'] / 1e6:,.1f} MB sent "
        f"({first['bytes_sent'] / max(1, first['events']):,.0f} B/event), {whole}",
        f"  incremental  {inc['ingested']:,} new events ingested, then one sync of "
        f"{inc['items']:,} items in {inc['ms']:,.0f} ms, {inc['bytes_sent'] / 1e6:,.2f} MB sent; "
        f"the hub has {inc['hub_has_new']:,} of the {inc['new_events']:,}",
        f"  search alone  p50 {s['alone']['p50']:.2f} / p95 {s['alone']['p95']:.2f} ms",
        f"  search merged p50 {s['merged']['p50']:.2f} / p95 {s['merged']['p95']:.2f} ms "
        f"({s['queries']} queries; Note on {s['notes']} of {s['calls']} merged calls; "
        f"the hub's index caught up first in {s['hub_index_seconds']:.1f} s)",
    ]
    return lines


# -- the device's own process ----------------------------------------------------------------


def _child_first(cap_s: float) -> dict[str, Any]:
    """The first sync, timed; past the cap the rest of the feed is marked pushed on this copy
    and the pull is finished, untimed."""
    from origin_api.runtime import Origin
    from origin_api.sync import sync_now
    from origin_store.replication import sync as store_sync

    with Origin.open() as origin:
        store = origin.store
        with store.read() as txn:
            device_events = store.event_count(txn)
        started = time.perf_counter()
        sync = sync_now(origin, deadline=time.monotonic() + cap_s)
        seconds = time.perf_counter() - started
        with store.read() as txn:
            pushed = store_sync.pushed_seq(store, txn)
            last = store.feed_last(txn)
            events = sum(
                1
                for seq, item in store.feed_since(txn, 0)
                if seq <= pushed and item["t"] == "event"
            )
        if pushed < last:
            store.write(lambda txn: store_sync.advance_pushed(store, txn, last), durable=True)
        if not sync.complete:  # untimed: the pull the cap cut off, so the next sync is only new
            sync_now(origin)
    return {
        "events": events,
        "device_events": device_events,
        "items": sync.pushed,
        "seconds": seconds,
        "events_per_s": events / seconds if seconds else 0.0,
        "complete": sync.complete,
        "cap_s": cap_s,
    }


def _child_incremental() -> dict[str, Any]:
    """Ingest the new log, then one sync, timed; the new event ids for the hub's check."""
    from origin_api.runtime import Origin
    from origin_api.sync import sync_now
    from origin_store.replication import sync as store_sync

    with Origin.open() as origin:
        store = origin.store
        ingested = origin.ingest()
        with store.read() as txn:
            after = store_sync.pushed_seq(store, txn)
            ids = [i["id"] for _, i in store.feed_since(txn, after) if i["t"] == "event"]
        started = time.perf_counter()
        sync = sync_now(origin)
        ms = (time.perf_counter() - started) * 1000
    return {
        "ingested": ingested.events if ingested is not None else 0,
        "items": sync.pushed,
        "ms": ms,
        "complete": sync.complete,
        "new_ids": ids,
    }


if __name__ == "__main__":
    step = sys.argv[1:2]
    if step == ["first"]:
        print(json.dumps(_child_first(float(sys.argv[2]))))
    elif step == ["incremental"]:
        print(json.dumps(_child_incremental()))
    else:
        raise SystemExit("usage: python -m bench.sync first <cap seconds> | incremental")
