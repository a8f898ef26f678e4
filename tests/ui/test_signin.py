"""Signing in to the admin UI: who may, the cookie it gets, what a failure costs, signing out."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Request, post
from litestar.response import Redirect
from ui_support import PASSWORD, Client, csrf_in

from origin_api.hub.edge import HubApp
from origin_api.runtime import Origin
from origin_api.ui.app import create_router
from origin_api.ui.core import Ui
from origin_api.ui.guard import log_write, write_author
from origin_api.ui.password import check_password, has_password, set_password

PAGES = [
    "/ui/",
    "/ui/search",
    "/ui/search?q=release",
    "/ui/search/hits?q=x",
    "/ui/timeline",
    "/ui/session?id=x",
    "/ui/raw?id=x",
]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_needs_a_session_and_a_browser_is_sent_to_sign_in(client: Client, path: str):
    response = client.get(path, follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/ui/login?next=")
    target = path.split("?")[0].rstrip("/")  # the router names the home page `/ui`
    assert "next=" + target.replace("/", "%2F") in response.headers["location"]


def test_a_scripts_request_without_a_session_is_401_not_a_redirect(client: Client):
    response = client.get("/ui/search/hits?q=x", headers={"X-Requested-With": "origin-ui"})
    assert response.status_code == 401 and "Sign in" in response.text


def test_root_and_ui_lead_to_the_pages(client: Client):
    assert client.get("/", follow_redirects=False).headers["location"] == "/ui/"
    home = client.get("/ui/", follow_redirects=False)
    assert home.status_code == 303 and home.headers["location"] == "/ui/login?next=%2Fui"
    assert client.post("/", follow_redirects=False).status_code == 404


def test_a_wrong_password_is_refused_and_logged(client: Client, capsys: pytest.CaptureFixture[str]):
    response = client.sign_in("not the password")
    assert response.status_code == 401
    assert "not right" in response.text and "origin_ui=" not in response.headers.get(
        "set-cookie", ""
    )
    assert client.get("/ui/search", follow_redirects=False).status_code == 303
    assert "ui login failed client=testclient failures=1" in capsys.readouterr().err


def test_the_password_signs_in_with_a_strict_httponly_cookie(client: Client):
    form = client.get("/ui/login?next=/ui/timeline")
    response = client.post(
        "/ui/login",
        data={"_csrf": csrf_in(form.text), "secret": PASSWORD, "next": "/ui/timeline"},
        follow_redirects=False,
    )
    assert response.status_code == 303 and response.headers["location"] == "/ui/timeline"
    cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("origin_ui="))
    flags = {part.strip().lower() for part in cookie.split(";")}
    assert {"httponly", "samesite=strict", "path=/ui"} <= flags
    assert "secure" not in flags  # plain HTTP on loopback: a Secure cookie would never come back
    page = client.get("/ui/search")
    assert page.status_code == 200 and "Signed in." in page.text


def test_over_tls_the_cookie_is_secure(ui_origin: Origin):
    from origin_api.hub import create_app

    with Client(create_app(ui_origin, ingest=False), base_url="https://127.0.0.1") as tls:
        form = tls.get("/ui/login")
        assert "secure" in form.headers["set-cookie"].lower()
        response = tls.post(
            "/ui/login",
            data={"_csrf": csrf_in(form.text), "secret": PASSWORD},
            follow_redirects=False,
        )
        cookie = next(
            c for c in response.headers.get_list("set-cookie") if c.startswith("origin_ui=")
        )
        assert "secure" in cookie.lower()


def test_the_hubs_kept_token_signs_in_but_an_agents_token_does_not(client: Client, ui_archive):
    from origin_api import admin

    agent = admin.create_token(ui_archive.origin, "ui-test-agent")
    assert client.sign_in(agent).status_code == 401
    assert client.sign_in(ui_archive.kept).status_code == 200


def test_signing_in_without_the_forms_token_is_403(client: Client):
    client.get("/ui/login")
    response = client.post("/ui/login", data={"secret": PASSWORD}, follow_redirects=False)
    assert response.status_code == 403
    assert client.get("/ui/search", follow_redirects=False).status_code == 303


def test_next_never_leaves_the_ui(client: Client):
    for target in ("https://evil.example/", "//evil.example/ui/", "/\\evil.example", "/mcp"):
        form = client.get("/ui/login")
        response = client.post(
            "/ui/login",
            data={"_csrf": csrf_in(form.text), "secret": PASSWORD, "next": target},
            follow_redirects=False,
        )
        assert response.headers["location"] == "/ui/", target
        client.cookies.clear()


def test_five_failures_make_a_client_wait(ui_origin: Origin):
    from origin_api.hub import create_app

    with Client(create_app(ui_origin, ingest=False), base_url="http://127.0.0.1") as fresh:
        codes = [fresh.sign_in("wrong password").status_code for _ in range(6)]
        assert codes == [401] * 5 + [429]
        # Even the right password waits: the window, not the guess, decides.
        refused = fresh.sign_in(PASSWORD)
        assert refused.status_code == 429 and "try again in" in refused.text


def test_signing_out_needs_the_csrf_token_and_ends_the_session(signed_in: Client):
    assert signed_in.post("/ui/logout", follow_redirects=False).status_code == 403
    assert signed_in.get("/ui/search", follow_redirects=False).status_code == 200
    response = signed_in.post("/ui/logout", data={"_csrf": signed_in.csrf}, follow_redirects=False)
    assert response.status_code == 303
    assert signed_in.get("/ui/search", follow_redirects=False).status_code == 303


def test_a_session_cookie_from_another_ui_is_unknown(signed_in: Client, ui_origin: Origin):
    from origin_api.hub import create_app

    with Client(create_app(ui_origin, ingest=False), base_url="http://127.0.0.1") as other:
        other.cookies.update(signed_in.cookies)
        assert other.get("/ui/search", follow_redirects=False).status_code == 303


def test_the_password_is_kept_hashed_and_private(tmp_path):
    home = tmp_path / "home"
    assert not has_password(home) and not check_password(home, "anything at all")
    path = set_password(home, "a long enough secret")
    assert path.stat().st_mode & 0o777 == 0o600
    kept = path.read_text()
    assert kept.startswith("scrypt$") and "a long enough secret" not in kept
    assert check_password(home, "a long enough secret")
    assert not check_password(home, "a long enough secreT")
    with pytest.raises(Exception, match="8 to 1024 characters"):
        set_password(home, "short")


def test_every_write_is_logged_with_its_author(
    ui_origin: Origin, capsys: pytest.CaptureFixture[str]
):
    """A page's write calls `log_write`: one stderr line with the author and what changed."""
    seen: list[str] = []

    @post("/probe", sync_to_thread=False)
    def probe(request: Request[Any, Any, Any]) -> Redirect:
        seen.append(write_author(request))
        log_write(request, "probe", "id=ent_1\nforged=line")
        return Redirect("/ui/search", status_code=303)

    names = frozenset({"127.0.0.1"})
    router = create_router(Ui(ui_origin), names)
    router.register(probe)
    # Litestar would otherwise point the root logger at capsys's stream, closed after this test.
    app = HubApp(hub_names=names, route_handlers=[router], logging_config=None)
    with Client(app, base_url="http://127.0.0.1") as c:
        c.sign_in()
        capsys.readouterr()
        assert (
            c.post("/ui/probe", data={"_csrf": c.csrf}, follow_redirects=False).status_code == 303
        )
    assert seen == ["user@testbox"]
    lines = [line for line in capsys.readouterr().err.splitlines() if "ui write" in line]
    assert len(lines) == 1
    assert (
        "ui write probe author=user@testbox via=password client=testclient id=ent_1 forged=line"
        in lines[0]
    )
