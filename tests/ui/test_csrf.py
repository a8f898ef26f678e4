"""Every write the UI has refuses a request without the session's CSRF token, whichever page
module it comes from: the routes are read from the router, so a new page's form is covered
without a new test."""

from __future__ import annotations

import re
from typing import Any

import pytest
from ui_support import Client

from origin_api.ui.app import PAGES

#: Every route of every page module taking something other than GET (or HEAD), as a path
#: with its parameters filled in.
WRITES = sorted(
    {
        (re.sub(r"\{(\w+):\w+\}", "x", path), method)
        for module in PAGES
        for handler in getattr(module, "ROUTES", [])
        for method in handler.http_methods - {"GET", "HEAD", "OPTIONS"}
        for path in handler.paths
    }
)


def test_the_writes_are_found():
    paths = {path for path, _ in WRITES}
    # the writes each page module documents: sign in and out, remember, correct, forget,
    # restore, create and revoke a token
    assert {"/login", "/logout", "/remember", "/entries/x/correct", "/forget"} <= paths
    assert {"/forgets/x/restore", "/tokens", "/tokens/x/revoke"} <= paths


@pytest.mark.parametrize(("path", "method"), [w for w in WRITES if w[0] != "/login"])
def test_a_write_without_the_csrf_token_is_refused(signed_in: Client, path: str, method: str):
    for data in ({"reason": "x", "text": "x", "name": "x"}, {"_csrf": "forged", "text": "x"}):
        response: Any = signed_in.request(method, "/ui" + path, data=data, follow_redirects=False)
        assert response.status_code == 403, (path, data, response.text[:200])
        assert "CSRF token" in response.text
    assert signed_in.get("/ui/search", follow_redirects=False).status_code == 200  # still in
