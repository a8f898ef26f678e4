"""The sign-in throttle behind a real hub on loopback: a client that rotates X-Forwarded-For is
still one client unless ORIGIN_HUB_TRUSTED_PROXIES names its address as a proxy's."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest
from hub_support import UI_PASSWORD as PASSWORD
from hub_support import csrf_in, running_hub

from origin_api.ui.password import set_password
from origin_api.ui.sessions import MAX_FAILURES


def _attempts(base: str, count: int) -> list[int]:
    """`count` wrong passwords, each from a different claimed address; their statuses."""
    statuses = []
    with httpx2.Client(base_url=base, timeout=10) as client:
        for number in range(count):
            form = client.get("/ui/login")
            answer = client.post(
                "/ui/login",
                data={"_csrf": csrf_in(form.text), "secret": "not it", "next": "/ui/search"},
                headers={"X-Forwarded-For": f"203.0.113.{number + 1}"},
            )
            statuses.append(answer.status_code)
    return statuses


def test_rotating_x_forwarded_for_does_not_escape_the_throttle(tmp_path: Path) -> None:
    with running_hub(tmp_path, ingest=False) as hub:
        assert hub.origin is not None
        set_password(hub.origin.home, PASSWORD)
        statuses = _attempts(hub.base, MAX_FAILURES + 2)
    assert statuses == [401] * MAX_FAILURES + [429, 429], statuses


@pytest.mark.parametrize("trusted", ["127.0.0.1", "*"])
def test_a_trusted_proxys_forwarded_address_is_the_client(tmp_path: Path, trusted: str) -> None:
    with running_hub(tmp_path, ingest=False, ORIGIN_HUB_TRUSTED_PROXIES=trusted) as hub:
        assert hub.origin is not None
        set_password(hub.origin.home, PASSWORD)
        statuses = _attempts(hub.base, MAX_FAILURES + 2)
    # Each forwarded address is a client of its own, as the proxy says.
    assert statuses == [401] * (MAX_FAILURES + 2), statuses
