"""Sessions of their own for the entry, forget, token and status tests, and the forms' posts.

The UI's archive is shared by every test of a run, and a forget hides the events an entry
cites: so each test that writes cites events of a session written for it alone, in Claude
Code's own format, ingested on the spot. Nothing here is a test (pytest finds none).
"""

from __future__ import annotations

import json
import re
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ui_support import Client

from origin_api.runtime import Origin

PROJECT_DIR = "projects/-home-dev-ui-entries"
PROJECT = "ui-entries"


@dataclass(frozen=True)
class Said:
    """A session written for one test: its id, its user message's event id and the one word
    (`marker`) no other session holds."""

    session: str
    event_id: str
    reply_id: str
    marker: str
    text: str


def claude_line(session: str, event: str, role: str, text: str, cwd: str) -> str:
    message: dict[str, Any] = {"role": role, "content": text}
    if role == "assistant":
        message = {
            "id": f"msg_{event[:8]}",
            "type": "message",
            "role": role,
            "content": [{"type": "text", "text": text}],
        }
    return json.dumps(
        {
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": cwd,
            "sessionId": session,
            "version": "2.1.241",
            "type": "user" if role == "user" else "assistant",
            "message": message,
            "uuid": event,
            "timestamp": datetime.now(UTC)
            .isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
        },
        ensure_ascii=False,
    )


def claude_folder(origin: Origin) -> Path:
    folder = Path(origin.settings.environ["CLAUDE_CONFIG_DIR"]) / PROJECT_DIR
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def say(origin: Origin, words: str = "") -> Said:
    """A new session of a user message holding a fresh marker word (and `words`) and a reply,
    ingested and indexed."""
    marker = "mark" + secrets.token_hex(6)
    session, event, reply = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
    text = f"Please keep this in mind: {marker} {words}".strip()
    lines = [
        claude_line(session, event, "user", text, "/home/dev/ui-entries"),
        claude_line(session, reply, "assistant", f"Noted {marker}.", "/home/dev/ui-entries"),
    ]
    (claude_folder(origin) / f"{session}.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    origin.ingest()
    origin.searcher.catch_up()
    return Said(session, f"claude-code:{event}", f"claude-code:{reply}", marker, text)


def remember(client: Client, said: Said, text: str, **more: str) -> str:
    """Remember `text` citing `said`'s message through the form; the new entry's id."""
    form = {
        "_csrf": client.csrf,
        "kind": "knowledge",
        "text": text,
        "confidence": "0.8",
        "event_1": said.event_id,
        "quote_1": said.marker,
        **more,
    }
    response = client.post("/ui/remember", data=form, follow_redirects=False)
    assert response.status_code == 303, response.text
    return entry_id_of(response.headers["location"])


def correct(client: Client, entry_id: str, text: str) -> Any:
    return client.post(
        f"/ui/entries/{entry_id}/correct",
        data={"_csrf": client.csrf, "text": text},
        follow_redirects=False,
    )


def forget(client: Client, item_id: str, reason: str) -> Any:
    return client.post(
        "/ui/forget",
        data={"_csrf": client.csrf, "id": item_id, "reason": reason},
        follow_redirects=False,
    )


def entry_id_of(location: str) -> str:
    found = re.fullmatch(r"/ui/entries/(ent_[0-9a-f]+)", location)
    assert found is not None, location
    return found.group(1)


def tombstone_of(location: str) -> str:
    found = re.fullmatch(r"/ui/forgets/(tmb_[0-9a-f]+)", location)
    assert found is not None, location
    return found.group(1)


def searched(client: Client, query: str) -> str:
    response = client.get("/ui/search", params={"q": query})
    assert response.status_code == 200
    return response.text
