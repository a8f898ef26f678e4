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
    write_transcript_sessions(folder)


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


# -- transcript: what agents wrote, rendered (Markdown, commands, diffs, long outputs) ------------

#: A session of Markdown, a shell command and its output, an edit, and an output long enough to
#: be folded; and one of hostile Markdown, every way a message could try to run a script.
RENDER_SESSION = "7e4d0001-0000-4000-8000-000000000001"
HOSTILE_MD_SESSION = "7e4d0002-0000-4000-8000-000000000002"
RENDER_MARKDOWN = (
    "## Retry plan\n\nThe webhook sender now:\n\n- retries **three** times\n- waits 1 s, 4 s, 16 s\n\n"
    "```python\ndef backoff(n: int) -> float:\n    return 4.0 ** n\n```\n"
)
RENDER_COMMAND = "pytest -q tests/test_retry.py"
RENDER_COMMAND_OUTPUT = "3 passed in 0.12s (rendermarker)"
LONG_OUTPUT_LINES = 500
#: A secret in the render session's prompt: stored masked, so shown and exported masked.
RENDER_SECRET = "ghp_FAKEexample0123456789FAKEexample0123"
#: Hostile Markdown: each line tries something; none may run (`alert` opens a dialog).
HOSTILE_MARKDOWN = "\n\n".join(
    [
        "[plain js](javascript:alert(1))",
        "[mixed case](JaVaScRiPt:alert(2))",
        "[entity](&#106;avascript:alert(3))",
        "[tab](java\tscript:alert(4))",
        "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCg1KTwvc2NyaXB0Pg==)",
        "[vb](vbscript:msgbox(6))",
        "<javascript:alert(7)>",
        "![remote](http://evil.example/x.png)",
        "<script>alert(8)</script>",
        "<img src=x onerror=alert(9)>",
        '<iframe src="javascript:alert(10)"></iframe>',
        "```html\n<script>alert(11)</script>\n```",
        "mdhostilemarker",
    ]
)
HOSTILE_COMMAND = "echo '<script>alert(12)</script>'"
HOSTILE_EDIT = "<img src=x onerror=alert(13)>"


def _tool_use(name: str, args: dict[str, Any], call: str) -> list[dict[str, Any]]:
    return [{"type": "tool_use", "id": call, "name": name, "input": args}]


def _tool_result(call: str, text: str) -> list[dict[str, Any]]:
    return [{"type": "tool_result", "tool_use_id": call, "content": text}]


def long_output() -> str:
    return "\n".join(f"line {n} of the long output" for n in range(LONG_OUTPUT_LINES))


def write_transcript_sessions(folder: Path) -> None:
    edit = {
        "file_path": "/home/dev/ui-tests/retry.py",
        "old_string": "tries = 1",
        "new_string": "tries = 3",
    }
    rendered = [
        ("user", f"Add **retries** to the webhook sender; push with {RENDER_SECRET} please."),
        ("assistant", [{"type": "text", "text": RENDER_MARKDOWN}]),
        (
            "assistant",
            _tool_use(
                "Bash", {"command": RENDER_COMMAND, "description": "Run the retry tests"}, "t1"
            ),
        ),
        ("user", _tool_result("t1", RENDER_COMMAND_OUTPUT)),
        ("assistant", _tool_use("Edit", edit, "t2")),
        ("user", _tool_result("t2", "The file /home/dev/ui-tests/retry.py has been updated.")),
        ("assistant", _tool_use("Bash", {"command": "cat build.log"}, "t3")),
        ("user", _tool_result("t3", long_output())),
        ("assistant", [{"type": "text", "text": "Done: retries are in."}]),
    ]
    hostile = [
        ("user", HOSTILE_MARKDOWN),
        ("assistant", [{"type": "text", "text": HOSTILE_MARKDOWN}]),
        ("assistant", _tool_use("Bash", {"command": HOSTILE_COMMAND}, "h1")),
        ("user", _tool_result("h1", "<script>alert(14)</script>")),
        (
            "assistant",
            _tool_use("Write", {"file_path": "/tmp/x.html", "content": HOSTILE_EDIT}, "h2"),
        ),
        ("assistant", _tool_use("Other", {"q": "<script>alert(15)</script>"}, "h3")),
    ]
    for session, lines in ((RENDER_SESSION, rendered), (HOSTILE_MD_SESSION, hostile)):
        written = [
            _line(session, n + 1, role, content, n) for n, (role, content) in enumerate(lines)
        ]
        (folder / f"{session}.jsonl").write_text("\n".join(written) + "\n", encoding="utf-8")


def render_event(n: int) -> str:
    """The id of the render session's `n`th event (1-based, one event a line)."""
    return f"claude-code:{RENDER_SESSION[:8]}-0000-4000-8000-{n:012x}"
