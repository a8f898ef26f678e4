"""Create a token in headless Chromium, see its secret once (its Copy button copies it), and
revoke it."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from ui_support import sign_in_page

from origin_api.runtime import Origin
from origin_store.replication import tokens as store_tokens

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


def _create(page: Any, base: str) -> str:
    """A new read token made on the page; its secret, as the page shows it once."""
    page.goto(f"{base}/ui/tokens")
    page.fill("input[name=name]", "copy-" + secrets.token_hex(3))
    page.select_option("select[name=scope]", "read")
    page.click("button:has-text('Create')")
    page.wait_for_url("**/ui/tokens/created")
    return str(page.input_value("#token-secret"))


def test_the_copy_button_puts_the_secret_on_the_clipboard(browser: Any, ui_hub: Any):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=ui_hub.base)
    page = context.new_page()
    try:
        sign_in_page(page, ui_hub.base)
        secret = _create(page, ui_hub.base)
        copy = page.get_by_role("button", name="Copy")
        copy.click()
        page.get_by_role("button", name="Copied").wait_for()
        assert page.evaluate("navigator.clipboard.readText()") == secret
        page.get_by_role("button", name="Copy").wait_for()  # and back to its label
    finally:
        context.close()


def test_without_a_clipboard_the_copy_button_selects_the_secret(browser: Any, ui_hub: Any):
    """Beyond a secure context (plain http to a LAN name) there is no clipboard API: the
    button selects the secret instead, for Ctrl+C."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script("Object.defineProperty(navigator, 'clipboard', {value: undefined})")
    page = context.new_page()
    try:
        sign_in_page(page, ui_hub.base)
        secret = _create(page, ui_hub.base)
        page.locator("body").click()  # away from the field its autofocus gave
        page.get_by_role("button", name="Copy").click()
        assert "Selected" in page.locator("button[data-copy]").inner_text()
        chosen = page.evaluate(
            "(() => { const f = document.activeElement;"
            " return [f.id, f.value.slice(f.selectionStart, f.selectionEnd)]; })()"
        )
        assert chosen == ["token-secret", secret]
    finally:
        context.close()
