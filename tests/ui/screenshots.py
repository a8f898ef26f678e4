"""Screenshots of every admin UI page, wide (1280) and narrow (390), into docs/ui/.

    .venv/bin/python tests/ui/screenshots.py   # Playwright (make test-ui installs it); Chinese
                                               # needs a CJK font: apt-get install fonts-wqy-zenhei

Over the tests' archive (the sample logs, a hostile session, a long one) served by a real hub on
loopback, in Debian's chromium. A page that does not answer 200 (not written yet) is left out.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from helpers import ROOT, fixture_env  # noqa: E402
from ui_support import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    HOSTILE_EVENT,
    HOSTILE_SESSION,
    PASSWORD,
    sign_in_page,
    write_ui_sessions,
)

from origin_api import admin  # noqa: E402
from origin_api.hub import start_in_thread  # noqa: E402
from origin_api.runtime import Origin  # noqa: E402
from origin_api.ui.password import set_password  # noqa: E402
from origin_store import Settings  # noqa: E402

OUT = ROOT / "docs" / "ui"
#: (file name, path): each page as a person first sees it.
PAGES = [
    ("search", "/ui/search?q=release"),
    ("search-chinese", "/ui/search?q=导出"),
    ("timeline", "/ui/timeline?since=all"),
    ("session", f"/ui/session?source=claude-code&id={HOSTILE_SESSION}"),
    ("raw", f"/ui/raw?id={HOSTILE_EVENT}"),
    ("entries", "/ui/entries"),
    ("forgets", "/ui/forgets"),
    ("tokens", "/ui/tokens"),
    ("status", "/ui/status"),
]
SIZES = {"": (1280, 800), "-narrow": (390, 844)}


def shoot(browser: Any, base: str) -> list[Path]:
    written = []
    for suffix, (width, height) in SIZES.items():
        context = browser.new_context(
            viewport={"width": width, "height": height}, locale="en-US", timezone_id="UTC"
        )
        page = context.new_page()
        page.goto(base + "/ui/login")
        target = OUT / f"login{suffix}.png"
        page.screenshot(path=str(target))
        written.append(target)
        sign_in_page(page, base, PASSWORD)
        for name, path in PAGES:
            response = page.goto(base + path)
            if response is None or response.status >= 400:  # not there yet, or failing
                continue
            page.wait_for_load_state("networkidle")
            target = OUT / f"{name}{suffix}.png"
            page.screenshot(path=str(target))
            written.append(target)
        context.close()
    return written


def main() -> None:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="origin-ui-shots-") as tmp:
        env = fixture_env(Path(tmp), copy=True)
        write_ui_sessions(Path(env["CLAUDE_CONFIG_DIR"]))
        with Origin.open(Settings.from_env(env)) as origin:
            origin.ingest()
            set_password(origin.home, PASSWORD)
            admin.hub_token(origin, origin.home / admin.TOKEN_FILE)
            with start_in_thread(origin, ingest=False) as hub, sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    for path in shoot(browser, hub.base):
                        print(f"{path.relative_to(ROOT)}  {path.stat().st_size // 1024} KB")
                finally:
                    browser.close()


if __name__ == "__main__":
    main()
