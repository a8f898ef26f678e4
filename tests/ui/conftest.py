"""Fixtures of the admin UI's tests: a real archive, a real hub serving it on loopback, clients
signed in over HTTP, and (for the `browser` tests only) headless Chromium driven by Playwright.

- `ui_origin`: an Origin over copies of the sample logs plus `ui_support`'s sessions, ingested,
  with the admin password `PASSWORD` set and the hub's kept token made (`ui_origin.kept`).
- `ui_hub`: that archive served by a real hub (uvicorn, a free loopback port, a thread).
- `client`: a Litestar TestClient over a fresh hub app on the same archive; `signed_in`: the same,
  signed in with the password (its `.csrf` is the session's token).
- `page` (browser tests): a new Chromium page; `signed_in_page`: one signed in on `ui_hub`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers import fixture_env
from ui_support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PASSWORD,
    Client,
    sign_in_page,
    write_ui_sessions,
)

from origin_api import admin
from origin_api.hub import create_app, start_in_thread
from origin_api.hub.server import RunningHub
from origin_api.runtime import Origin
from origin_api.ui.password import set_password
from origin_store import Settings


@dataclass
class UiArchive:
    origin: Origin
    env: dict[str, str]
    kept: str  # the hub's kept token (`local`), which also signs in


@pytest.fixture(scope="session")
def ui_archive(tmp_path_factory: pytest.TempPathFactory) -> Iterator[UiArchive]:
    tmp = tmp_path_factory.mktemp("ui")
    env = fixture_env(tmp, copy=True)
    write_ui_sessions(Path(env["CLAUDE_CONFIG_DIR"]))
    with Origin.open(Settings.from_env(env)) as origin:
        origin.ingest()
        origin.searcher.catch_up()
        set_password(origin.home, PASSWORD)
        kept = admin.hub_token(origin, origin.home / admin.TOKEN_FILE).secret
        yield UiArchive(origin, env, kept)


@pytest.fixture(scope="session")
def ui_origin(ui_archive: UiArchive) -> Origin:
    return ui_archive.origin


@pytest.fixture(scope="session")
def ui_hub(ui_origin: Origin) -> Iterator[RunningHub]:
    with start_in_thread(ui_origin, ingest=False) as hub:
        yield hub


@pytest.fixture
def client(ui_origin: Origin) -> Iterator[Client]:
    with Client(create_app(ui_origin, ingest=False), base_url="http://127.0.0.1") as opened:
        yield opened


@pytest.fixture
def signed_in(client: Client) -> Client:
    assert client.sign_in().status_code == 200
    return client


# -- the browser ---------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the browser tests need `make test-ui` (Playwright)"
    )
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install chromium (.ci/run does)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.set_default_timeout(10_000)
    yield opened
    context.close()


@pytest.fixture
def signed_in_page(page: Any, ui_hub: RunningHub) -> Any:
    sign_in_page(page, ui_hub.base)
    return page
