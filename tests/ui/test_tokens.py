"""Tokens through the UI: a new token's secret is shown once and only ever hashed at rest,
the list shows what the store knows, revoking refuses the token from then on."""

from __future__ import annotations

import html
import re
import secrets

import pytest
from ui_support import IMG, SCRIPT, Client

from origin_api.hub import create_app
from origin_api.runtime import Origin
from origin_store.core.lmdbio import pairs
from origin_store.replication import tokens as store_tokens

SECRET = re.compile(r'value="(ogn_[A-Za-z0-9_-]+)"')


def create(client: Client, name: str, scope: str = "write") -> str:
    """Create a token through the form and read its secret off the page shown once."""
    response = client.post(
        "/ui/tokens",
        data={"_csrf": client.csrf, "name": name, "scope": scope},
        follow_redirects=False,
    )
    assert response.status_code == 303 and response.headers["location"] == "/ui/tokens/created"
    shown = client.get("/ui/tokens/created")
    assert shown.status_code == 200
    found = SECRET.search(shown.text)
    assert found is not None, shown.text
    assert 'data-copy="token-secret"' in shown.text
    return found.group(1)


def stored_bytes(origin: Origin) -> bytes:
    store = origin.store
    with store.read() as txn:
        return b"".join(k + v for k, v in pairs(txn.cursor(db=store.dbs["tokens"])))


def test_a_new_tokens_secret_is_shown_once_and_only_its_hash_is_kept(
    signed_in: Client, ui_origin: Origin, capsys: pytest.CaptureFixture[str]
):
    name = "laptop-" + secrets.token_hex(3)
    secret = create(signed_in, name, "read")
    token = store_tokens.verify(ui_origin.store, secret)
    assert token is not None and token.name == name and token.scope == "read"
    second = signed_in.get("/ui/tokens/created", follow_redirects=False)
    assert second.status_code == 303 and second.headers["location"] == "/ui/tokens"
    listed = signed_in.get("/ui/tokens").text
    assert "shown once, right after it is created" in listed
    assert secret not in listed and name in listed and "ogn_" not in listed
    assert secret.encode() not in stored_bytes(ui_origin)
    assert store_tokens.digest(secret).encode() in stored_bytes(ui_origin)
    log = capsys.readouterr().err
    assert f"ui write token-create author=user@{ui_origin.settings.device}" in log
    assert f"name={name} scope=read" in log and secret not in log


def test_another_session_never_sees_the_secret(signed_in: Client, ui_origin: Origin):
    name = "desktop-" + secrets.token_hex(3)
    response = signed_in.post(
        "/ui/tokens", data={"_csrf": signed_in.csrf, "name": name}, follow_redirects=False
    )
    assert response.status_code == 303
    with Client(create_app(ui_origin, ingest=False), base_url="http://127.0.0.1") as other:
        assert other.sign_in().status_code == 200
        peek = other.get("/ui/tokens/created", follow_redirects=False)
        assert peek.status_code == 303
    mine = signed_in.get("/ui/tokens/created")
    assert SECRET.search(mine.text) is not None  # still there for the session that made it


def test_the_list_and_revoke(
    signed_in: Client, ui_origin: Origin, capsys: pytest.CaptureFixture[str]
):
    name = "cloud-" + secrets.token_hex(3)
    secret = create(signed_in, name)
    listed = signed_in.get("/ui/tokens").text
    row = listed[listed.index(f"<code>{name}</code>") :].split("</tr>")[0]
    assert "write" in row and "active" in row and f'action="/ui/tokens/{name}/revoke"' in row
    assert "data-confirm=" in row
    revoked = signed_in.post(
        f"/ui/tokens/{name}/revoke", data={"_csrf": signed_in.csrf}, follow_redirects=False
    )
    assert revoked.status_code == 303 and revoked.headers["location"] == "/ui/tokens"
    assert store_tokens.verify(ui_origin.store, secret) is None
    assert (
        f"ui write token-revoke author=user@{ui_origin.settings.device}" in capsys.readouterr().err
    )
    page = signed_in.get("/ui/tokens").text
    assert f"Revoked {name}: it is refused from now on." in page
    row = page[page.index(f"<code>{name}</code>") :].split("</tr>")[0]
    assert "revoked" in row and "/revoke" not in row


def test_refused_names_are_explained(signed_in: Client):
    name = "twice-" + secrets.token_hex(3)
    create(signed_in, name)
    taken = signed_in.post("/ui/tokens", data={"_csrf": signed_in.csrf, "name": name})
    assert taken.status_code == 400 and f"The name {name} is in use: a write token" in taken.text
    assert "origin token" not in taken.text  # an answer on the page, not a command to run
    assert f'name="name" value="{name}"' in taken.text  # what was typed, to change it
    hostile = signed_in.post("/ui/tokens", data={"_csrf": signed_in.csrf, "name": SCRIPT + IMG})
    assert hostile.status_code == 400
    assert SCRIPT not in hostile.text and "<img" not in hostile.text
    assert "A token name is 1 to 64 letters" in hostile.text
    assert (SCRIPT + IMG) in html.unescape(hostile.text)  # the name typed, shown as text
    unknown = signed_in.post("/ui/tokens/nobody-here/revoke", data={"_csrf": signed_in.csrf})
    assert "There is no token named nobody-here." in unknown.text


@pytest.mark.parametrize(
    ("path", "data"),
    [("/ui/tokens", {"name": "no-csrf"}), ("/ui/tokens/local/revoke", {})],
)
def test_a_post_without_the_csrf_token_is_refused(
    signed_in: Client, ui_origin: Origin, path: str, data: dict[str, str]
):
    response = signed_in.post(path, data=data, follow_redirects=False)
    assert response.status_code == 403 and "CSRF token" in response.text
    assert store_tokens.get(ui_origin.store, "no-csrf") is None
    local = store_tokens.get(ui_origin.store, "local")
    assert local is not None and local.active


def test_the_pages_need_a_session(client: Client):
    for path in ("/ui/tokens", "/ui/tokens/created"):
        response = client.get(path, follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"].startswith("/ui/login")
