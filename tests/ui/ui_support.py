"""An archive for the admin UI's tests: the project's sample logs, plus a Claude Code session of
hostile text and Chinese, and one of 5,000 events, written in Claude Code's own format."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from litestar.testing import TestClient

PASSWORD = "correct horse battery"
SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(1)>'
#: A session whose prompt is hostile: the UI must show it as text, run nothing.
HOSTILE_SESSION = "5c0ffee0-0000-4000-8000-000000000001"
HOSTILE_PROMPT = f"Render this exactly: {SCRIPT} and {IMG} then stop (hostilemarker)"
HOSTILE_EVENT = "claude-code:5c0ffee0-0000-4000-8000-0000000000a1"
#: A session long enough that its page must be split.
LONG_SESSION = "10000000-0000-4000-8000-000000000001"
LONG_EVENTS = 5_000
PROJECT_DIR = "projects/-home-dev-ui-tests"
CHROMIUM = os.environ.get("ORIGIN_TEST_CHROMIUM", "/usr/bin/chromium")
#: The network is closed: nothing in the browser may try to reach it.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _line(session: str, n: int, role: str, content: Any, minute: int) -> str:
    kind = "user" if role == "user" else "assistant"
    uuid = f"{session[:8]}-0000-4000-8000-{n:012x}"
    message: dict[str, Any] = {"role": role, "content": content}
    if role == "assistant":
        message = {"id": f"msg_{n}", "type": "message", "role": role, "content": content}
    record = {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/ui-tests",
        "sessionId": session,
        "version": "2.1.241",
        "type": kind,
        "message": message,
        "uuid": uuid,
        "timestamp": f"2026-10-2{2 + minute // 1440}T{(minute // 60) % 24:02d}:{minute % 60:02d}:00.000Z",
    }
    return json.dumps(record, ensure_ascii=False)


def write_ui_sessions(claude_home: Path) -> None:
    """Two sessions under `claude_home` (a copy of the samples: `fixture_env(copy=True)`)."""
    folder = claude_home / PROJECT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    hostile = [
        _line(HOSTILE_SESSION, 0xA1, "user", HOSTILE_PROMPT, 0),
        _line(
            HOSTILE_SESSION,
            0xA2,
            "assistant",
            [{"type": "text", "text": f"Shown as text: {IMG} — 中文显示正常 [not a match]"}],
            1,
        ),
        _line(
            HOSTILE_SESSION,
            0xA3,
            "assistant",
            [
                {
                    "type": "tool_use",
                    "id": "toolu_ui1",
                    "name": "Bash",
                    "input": {"command": "echo hostilemarker"},
                }
            ],
            2,
        ),
    ]
    (folder / f"{HOSTILE_SESSION}.jsonl").write_text("\n".join(hostile) + "\n", encoding="utf-8")
    long = [
        _line(
            LONG_SESSION,
            i + 1,
            "user" if i % 2 == 0 else "assistant",
            f"longsession message number {i + 1}"
            if i % 2 == 0
            else [{"type": "text", "text": f"longsession reply number {i + 1}"}],
            i // 10,
        )
        for i in range(LONG_EVENTS)
    ]
    (folder / f"{LONG_SESSION}.jsonl").write_text("\n".join(long) + "\n", encoding="utf-8")


_CSRF = re.compile(r'name="_csrf" value="([^"]+)"')


def csrf_in(html: str) -> str:
    """The CSRF token a page's form carries."""
    found = _CSRF.search(html)
    assert found is not None, html[:500]
    return found.group(1)


class Client(TestClient[Any]):
    """A TestClient that knows its session's CSRF token once signed in."""

    csrf: str = ""

    def sign_in(self, secret: str = PASSWORD, next_page: str = "/ui/search") -> Any:
        form = self.get("/ui/login")
        response = self.post(
            "/ui/login",
            data={"_csrf": csrf_in(form.text), "secret": secret, "next": next_page},
            follow_redirects=True,
        )
        if response.status_code == 200:
            self.csrf = csrf_in(response.text)
        return response


def sign_in_page(page: Any, base: str, secret: str = PASSWORD) -> None:
    page.goto(base + "/ui/login?next=%2Fui%2Fsearch")
    page.fill("#secret", secret)
    page.click("button[type=submit]")
    page.wait_for_url("**/ui/search**")


#: The only scripts a page may have: the UI's own files (the theme's, before paint; the rest).
OWN_SCRIPTS = ['<script src="/ui/static/theme.js">', '<script src="/ui/static/ui.js" defer>']
