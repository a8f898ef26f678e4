"""Screenshots of every admin UI page, wide (1280) and narrow (390), into docs/ui/.

    .venv/bin/python tests/ui/screenshots.py   # Playwright (make test-ui installs it); Chinese
                                               # needs a CJK font: apt-get install fonts-wqy-zenhei
    .venv/bin/python tests/ui/screenshots.py activity   # only the pages named

Over the tests' archive (the sample logs, a hostile session, a long one) served by a real hub on
loopback, in Debian's chromium, after `scene` has written what the pages of entries, forgets and
tokens show: an entry citing the hostile event, corrected once; a forgotten event; a forget
undone; tokens made and one revoked. The pages in `DARK` are also shot in the dark theme
(`<name>-dark.png`, `<name>-narrow-dark.png`). A page is one line in `pages`; one that does not
answer 200 (not there yet: 404), or that redirects elsewhere, is skipped with a note.
"""

from __future__ import annotations

import itertools
import sys
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from helpers import ROOT, fixture_env  # noqa: E402
from ui_support import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    HOSTILE_EVENT,
    HOSTILE_SESSION,
    PASSWORD,
    RENDER_SESSION,
    sign_in_page,
    write_ui_sessions,
)

from origin_api import admin  # noqa: E402
from origin_api.hub import start_in_thread  # noqa: E402
from origin_api.runtime import Origin  # noqa: E402
from origin_api.service import Caller, call  # noqa: E402
from origin_api.ui.password import set_password  # noqa: E402
from origin_store import Settings  # noqa: E402

OUT = ROOT / "docs" / "ui"
SIZES = {"": (1280, 800), "-narrow": (390, 844)}
#: The colour schemes, by file name suffix, and the pages shot in the dark one too.
THEMES = {"": "light", "-dark": "dark"}
DARK = {"home", "search", "timeline", "session", "transcript", "raw", "entry", "activity", "status"}
#: Pages shot whole (up to this height), where what matters is below the fold.
FULL = {
    "transcript": 1800,
    "entry": 1400,
    "tombstone": 1200,
    "status": 1800,
    "raw": 1400,
    "activity": 1900,
}
#: Events of `ui_support`'s sessions the scene uses: the hostile reply, and one of the long
#: session's messages to forget.
HOSTILE_REPLY = "claude-code:5c0ffee0-0000-4000-8000-0000000000a2"
FORGOTTEN_EVENT = "claude-code:10000000-0000-4000-8000-000000000002"
LONG_EVENT = "claude-code:10000000-0000-4000-8000-000000000003"


def scene(origin: Origin) -> dict[str, str]:
    """Write what the entry, forget and token pages show, as the UI's own user; the ids made."""
    user = Caller("user", origin.settings.device)
    first = call(
        origin,
        "remember",
        {
            "kind": "knowledge",
            "text": "Event text is hostile input: the admin UI shows <script> as text.",
            "sources": [{"event_id": HOSTILE_EVENT, "quote": "Render this exactly"}],
            "confidence": 0.8,
            "project": "ui-tests",
        },
        user,
    )["entry"]["id"]
    entry = call(
        origin,
        "correct",
        {
            "id": first,
            "text": "Event text is hostile input: the admin UI shows <script> and "
            '"><img onerror> as text, never as markup.',
            "confidence": 0.95,
        },
        user,
    )["entry"]["id"]
    call(
        origin,
        "remember",
        {
            "kind": "memory",
            "text": "A session's page shows 200 events; the long test session has 25 pages.",
            "sources": [{"event_id": LONG_EVENT, "quote": "longsession"}],
            "confidence": 0.9,
        },
        user,
    )
    wrong = call(
        origin,
        "remember",
        {
            "kind": "cognition",
            "text": "A guess that turned out wrong.",
            "sources": [{"event_id": LONG_EVENT}],
            "confidence": 0.3,
        },
        user,
    )["entry"]["id"]
    undone = call(origin, "forget", {"id": wrong, "reason": "Wrong guess."}, user)["tombstone"]
    admin.restore(origin, undone)
    reason = "Pasted a customer's address into the prompt by mistake."
    tombstone = call(origin, "forget", {"id": FORGOTTEN_EVENT, "reason": reason}, user)
    for name, scope in (("laptop", "write"), ("ci-reader", "read"), ("old-phone", "write")):
        admin.create_token(origin, name, scope)
    admin.revoke_token(origin, "old-phone")
    origin.searcher.catch_up()
    return {"entry": entry, "tombstone": tombstone["tombstone"]}


def pages(made: dict[str, str]) -> list[tuple[str, str]]:
    """(file name, path): each page as a person first sees it."""
    return [
        ("home", "/ui/"),
        ("search", "/ui/search?q=release"),
        ("search-chinese", "/ui/search?q=导出"),
        ("timeline", "/ui/timeline?since=all"),
        ("session", f"/ui/session?source=claude-code&id={HOSTILE_SESSION}"),
        ("transcript", f"/ui/session?source=claude-code&id={RENDER_SESSION}&tools=1"),
        ("raw", "/ui/raw?" + urlencode({"id": HOSTILE_EVENT})),
        ("entries", "/ui/entries"),
        ("entry", f"/ui/entries/{made['entry']}"),
        ("remember", "/ui/remember?" + urlencode({"event": HOSTILE_EVENT})),
        ("forget", "/ui/forget?" + urlencode({"id": HOSTILE_REPLY})),
        ("forgets", "/ui/forgets"),
        ("tombstone", f"/ui/forgets/{made['tombstone']}"),
        ("tokens", "/ui/tokens"),
        ("status", "/ui/status"),
        ("recording", "/ui/recording"),
        ("activity", "/ui/activity?days=365"),
    ]


def shoot(browser: Any, base: str, made: dict[str, str], only: list[str]) -> list[Path]:
    written = []
    for (suffix, (width, height)), (shade, scheme) in itertools.product(
        SIZES.items(), THEMES.items()
    ):
        context = browser.new_context(
            viewport={"width": width, "height": height},
            locale="en-US",
            timezone_id="UTC",
            color_scheme=scheme,
        )
        page = context.new_page()
        page.goto(base + "/ui/login")
        if not shade and (not only or "login" in only):
            target = OUT / f"login{suffix}.png"
            page.screenshot(path=str(target))
            written.append(target)
        sign_in_page(page, base, PASSWORD)
        for name, path in pages(made):
            if only and name not in only:
                continue
            if shade and name not in DARK:
                continue
            target = OUT / f"{name}{suffix}{shade}.png"
            if shot(page, base + path, target, full=FULL.get(name)):
                written.append(target)
        context.close()
    return written


def shot(page: Any, url: str, target: Path, *, full: int | None) -> bool:
    """`url` as `target`, up to `full` pixels tall when given; False (and a note) when the page
    is not there (yet) or leads elsewhere."""
    response = page.goto(url)
    if response is None or response.status != 200 or response.request.redirected_from:
        status = response and response.status
        moved = response is not None and response.request.redirected_from is not None
        print(
            f"skipped {target.name}: {url} "
            + (f"led to {page.url}" if moved else f"answered {status}")
        )
        return False
    page.wait_for_load_state("networkidle")
    page.evaluate("document.activeElement && document.activeElement.blur()")
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    tall = min(full or height, page.evaluate("document.body.scrollHeight"))
    clip = {"x": 0, "y": 0, "width": width, "height": max(height, tall)}
    page.screenshot(path=str(target), full_page=full is not None, clip=clip)
    return True


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
            made = scene(origin)
            with start_in_thread(origin, ingest=False) as hub, sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    for path in shoot(browser, hub.base, made, sys.argv[1:]):
                        print(f"{path.relative_to(ROOT)}  {path.stat().st_size // 1024} KB")
                finally:
                    browser.close()


if __name__ == "__main__":
    main()
