"""Search results that page and say what they are: an honest count, "Show more" up to the
contract's 100, each hit's session title, and filters to pick from."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

from ui_support import LONG_EVENTS, Client

from origin_api.runtime import Origin
from origin_api.service import Caller, call
from origin_api.ui.pages.home_read import facets

HITS = r'<li class="hit event"[ >]'


def _more(page: str) -> str:
    found = re.search(r'<a class="button" href="([^"]+)" data-more="([^"]+)">Show more</a>', page)
    assert found is not None, "no Show more link"
    return html.unescape(found.group(1))


def test_more_than_a_page_says_so_and_shows_more_up_to_100(signed_in: Client):
    page = signed_in.get("/ui/search?q=longsession").text
    assert len(re.findall(HITS, page)) == 20
    assert "0 entries, 20 of more than 20 events" in page  # not "20 events", a total it is not
    url = _more(page)
    assert parse_qs(urlsplit(url).query) == {"q": ["longsession"], "limit": ["40"]}
    second = signed_in.get(url).text
    assert len(re.findall(HITS, second)) == 40 and "40 of more than 40 events" in second
    last = signed_in.get("/ui/search?q=longsession&limit=80").text
    assert "limit=100" in _more(last)
    capped = signed_in.get("/ui/search?q=longsession&limit=100").text
    assert len(re.findall(HITS, capped)) == 100 > LONG_EVENTS // 100
    assert "the first 100 events" in capped and "Show more" not in capped
    assert "as many as one search gives" in capped


def test_the_hits_fragment_pages_too_for_the_script(signed_in: Client):
    page = signed_in.get("/ui/search?q=longsession").text
    fragment = re.search(r'data-more="([^"]+)"', page)
    assert fragment is not None
    url = html.unescape(fragment.group(1))
    assert url.startswith("/ui/search/hits?")
    more = signed_in.get(url).text
    assert "<html" not in more and len(re.findall(HITS, more)) == 40


def test_fewer_than_asked_is_an_exact_count_without_show_more(signed_in: Client, ui_origin: Origin):
    expected = call(ui_origin, "search", {"query": "rate limiter"}, Caller("t", "d"))
    n = len(expected["events"])
    assert 0 < n < 20
    page = signed_in.get("/ui/search?q=rate+limiter").text
    assert f", {n} {'event' if n == 1 else 'events'} ·" in page
    assert "more than" not in page and "Show more" not in page


def test_each_hit_names_its_session(signed_in: Client):
    page = signed_in.get("/ui/search/hits?q=longsession").text
    titles = re.findall(r'<p class="hit-session">([^<]+)</p>', page)
    assert len(titles) == 20 and set(titles) == {"longsession message number 1"}


def test_the_filters_list_the_projects_and_offer_date_pickers(signed_in: Client, ui_origin: Origin):
    page = signed_in.get("/ui/search").text
    listed = facets(ui_origin).projects
    assert listed and all(f'<option value="{html.escape(p)}">' in page for p in listed)
    assert 'name="since" type="date"' in page and 'name="until" type="date"' in page
    kept = signed_in.get("/ui/search?q=x&since=7d").text  # a kept URL's relative time stays
    assert 'name="since" type="text" value="7d"' in kept
