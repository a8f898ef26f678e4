"""The status page: `origin status`'s figures, the index, the syncs, and unparsed lines by
file and reason (a file name is hostile input too)."""

from __future__ import annotations

import html
import re
import secrets

from test_entries_support import claude_folder, claude_line
from ui_support import IMG, Client

from origin_api import admin
from origin_api.runtime import Origin
from origin_api.ui.pages.status import size


def test_the_status_page_shows_the_archives_figures(signed_in: Client, ui_origin: Origin):
    info = admin.status(ui_origin)
    response = signed_in.get("/ui/status")
    assert response.status_code == 200
    body = html.unescape(response.text)
    assert f"{info['events']:,} in {info['sessions']:,} sessions" in body
    for source, counts in info["by_source"].items():
        row = body[body.index(f">{source}</a>") :].split("</tr>")[0]
        assert f"{counts['events']:,}" in row and f"{counts['sessions']:,}" in row
    assert size(info["store_bytes"]) in body and size(info["mirror_bytes"]) in body
    assert "new events from" in body  # the last ingest
    assert "Index" in body and re.search(r"level-(ok|note|attention)", body)
    assert "Not connected to a hub" in body or "Devices that pushed" in body


def test_unparsed_lines_are_listed_by_file_and_reason_as_text(signed_in: Client, ui_origin: Origin):
    folder = claude_folder(ui_origin)
    name = f"broken {IMG} {secrets.token_hex(3)}.jsonl"
    good = claude_line(
        "0badf00d-0000-4000-8000-00000000cafe", secrets.token_hex(8), "user", "ok", "/x"
    )
    (folder / name).write_text(f"{good}\n{{not json\n[1, 2]\n{{still not json\n", "utf-8")
    ui_origin.ingest()
    response = signed_in.get("/ui/status")
    body = response.text
    assert "<img" not in body and "onerror=alert(1)>" not in body
    shown = html.unescape(body.replace("<wbr>", ""))  # places to wrap a path, not text
    path = str(folder / name)
    rows = [row for row in shown.split("<tr>") if path in row]
    assert len(rows) == 2  # one per reason
    invalid = next(row for row in rows if "invalid-json" in row)
    assert re.search(r'class="num">2<', invalid) and ">2: " in invalid  # two lines, from line 2
    assert any("not-an-object" in row and 'class="num">1<' in row for row in rows)
    assert "invalid-json: " in shown  # the totals by reason


def test_devices_that_pushed_to_this_hub_are_listed(signed_in: Client, ui_origin: Origin):
    store = ui_origin.store
    device = "laptop-" + secrets.token_hex(3)
    store.write(
        lambda txn: store.meta_put(
            txn, f"sync.device.{device}", {"pushed": 4321, "time": 1_790_000_000_000}
        )
    )
    body = signed_in.get("/ui/status").text
    row = body[body.index(f"<code>{device}</code>") :].split("</tr>")[0]
    assert "4321" in row and "<time datetime=" in row


def test_the_page_needs_a_session(client: Client):
    response = client.get("/ui/status", follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"].startswith("/ui/login")


def test_sizes_read_as_people_read_them():
    assert [size(n) for n in (0, 1023, 1024, 5 * 1024 * 1024, 3 * 1024**4)] == [
        "0 bytes",
        "1,023 bytes",
        "1.0 KB",
        "5.0 MB",
        "3,072.0 GB",
    ]


def test_the_status_page_says_whether_recording_is_paused(signed_in: Client, ui_origin: Origin):
    from origin_store.pause import state as switch

    on = signed_in.get("/ui/status").text
    assert 'href="/ui/recording"' in on and "pause (ephemeral mode)" in on
    switch.pause(ui_origin.home, for_ms=3_600_000, reason="a call")
    try:
        paused = signed_in.get("/ui/status").text
    finally:
        switch.resume(ui_origin.home)
    assert ">paused</span> since" in paused and 'href="/ui/recording">resume</a>' in paused
