"""Create a token in headless Chromium, see its secret once, and revoke it."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from origin_api.runtime import Origin
from origin_store import tokens as store_tokens

pytestmark = pytest.mark.browser


def test_create_a_token_see_its_secret_once_and_revoke_it(
    signed_in_page: Any, ui_hub: Any, ui_origin: Origin
):
    page, base = signed_in_page, ui_hub.base
    name = "browser-" + secrets.token_hex(3)
    page.goto(f"{base}/ui/tokens")
    page.fill("input[name=name]", name)
    page.select_option("select[name=scope]", "read")
    page.click("button:has-text('Create')")
    page.wait_for_url("**/ui/tokens/created")
    secret = page.input_value("#token-secret")
    assert secret.startswith("ogn_")
    token = store_tokens.verify(ui_origin.store, secret)
    assert token is not None and token.name == name and token.scope == "read"

    page.reload()
    page.wait_for_url("**/ui/tokens")
    assert secret not in page.content()
    assert "shown once" in page.locator("p.flash").inner_text()

    row = page.locator(f"tr:has-text('{name}')")
    assert "active" in row.inner_text()
    page.once("dialog", lambda dialog: dialog.accept())
    with page.expect_navigation():
        row.locator("button:has-text('Revoke')").click()
    assert f"Revoked {name}" in page.locator("p.flash").inner_text()
    assert "revoked" in page.locator(f"tr:has-text('{name}')").inner_text()
    assert store_tokens.verify(ui_origin.store, secret) is None
