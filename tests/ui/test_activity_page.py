"""The activity page: the store's figures as totals, SVG charts and the busiest tables."""

from __future__ import annotations

import html
import re
from urllib.parse import urlencode

from ui_support import Client

from origin_api import admin
from origin_api.runtime import Origin


def test_the_activity_page_shows_the_figures_as_charts_and_tables(
    signed_in: Client, ui_origin: Origin
):
    found = admin.activity(ui_origin, 365)
    assert found.totals.events > 0 and found.totals.tokens_in > 0
    response = signed_in.get("/ui/activity?days=365")
    assert response.status_code == 200
    body = html.unescape(response.text)
    for name, value in (
        ("events", found.totals.events),
        ("sessions", found.totals.sessions),
        ("in", found.totals.tokens_in),
        ("out", found.totals.tokens_out),
    ):
        assert re.search(rf'id="act-total-{name}">{value:,}\b', body), name
    assert body.count('role="img"') == 3
    # Each bar says what it is; the bars of the events chart add up to the total.
    events_chart = body[body.index('id="act-events"') : body.index('id="act-sessions"')]
    bars = re.findall(r"<title>\d{4}-\d\d-\d\d · [^:]+: ([\d,]+) events</title>", events_chart)
    assert sum(int(b.replace(",", "")) for b in bars) == found.totals.events
    assert "style=" not in response.text and "<script>" not in response.text
    for session in found.sessions:
        link = html.escape(
            f"/ui/session?{urlencode({'source': session.source, 'id': session.session})}"
        )
        assert link in response.text
    top_project = next(name for name, _ in found.projects if name)
    assert f"/ui/timeline?since=all&amp;project={top_project}" in response.text


def test_the_window_and_filters_narrow_the_figures(signed_in: Client, ui_origin: Origin):
    whole = admin.activity(ui_origin, 365)
    source = max(whole.by_source, key=lambda s: whole.by_source[s].events)
    body = signed_in.get(f"/ui/activity?days=365&source={source}").text
    assert f'id="act-total-events">{whole.by_source[source].events:,}' in body
    assert '<option value="365" selected>' in body
    short = signed_in.get("/ui/activity?days=1").text
    assert 'id="act-total-events">' in short  # an empty window is a page, not an error


def test_an_unknown_agent_is_named_with_those_there_are(signed_in: Client):
    response = signed_in.get("/ui/activity?source=claude")
    assert response.status_code == 400
    assert "No source &#39;claude&#39; has activity; those that have:" in response.text
    assert "claude-code" in response.text


def test_the_page_is_in_the_navigation(signed_in: Client):
    assert 'href="/ui/activity"' in signed_in.get("/ui/status").text
