"""OpenCode sessions: rows of ``~/.local/share/opencode/opencode.db`` (session, message, part).

ZCode's database descends from OpenCode's and its parts keep OpenCode's shapes, so a session is
ZCode's writer (zcode.py) with OpenCode's ids, tables and session row. Events, as Origin's
parser makes them (origin_store/parsers/opencode/source.py): ``opencode:<session id>`` a marker
of how the session started; ``opencode:<part id>`` a text or reasoning part; a tool part
``opencode:<part id>:call`` and ``:result``. Every message is complete and every tool part
``completed``, as in a session that ended.
"""

from __future__ import annotations

from typing import Any

from .common import dump, uuid4
from .context import Context
from .session import Plan
from .zcode import ZcodeSession

VERSIONS = ("1.17.9", "1.18.33", "1.18.33", "1.18.40")
MODEL = {"id": "lumen-coder-2", "providerID": "lumen", "variant": "default"}

SCHEMA = """
CREATE TABLE session (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL,
  directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL, model TEXT,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE message (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (
  id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
"""


def _ident(prefix: str, at: int, unique: str) -> str:
    """OpenCode's ascending ids: the time first, so a message's parts sort as written."""
    return f"{prefix}_{(at * 0x1000) & 0xFFFF_FFFF_FFFF:012x}{unique.replace('-', '')[:14]}"


class OpencodeSession(ZcodeSession):
    """One session's rows; ``generate()`` fills ``session``, ``messages`` and ``parts``."""

    def __init__(self, ctx: Context, plan: Plan, seed: int) -> None:
        super().__init__(ctx, plan, seed)
        self.session_id = _ident("ses", plan.start_ms, uuid4(self.rng))
        self.version = self.pick(VERSIONS)

    def generate(self) -> None:
        p = self.project
        started = self.now
        model = f"{MODEL['providerID']}/{MODEL['id']}"
        fields = (("version ", self.version), ("model ", model), ("cwd ", p.cwd))
        words = ", ".join(name + value for name, value in (*fields, ("title ", self.title)))
        self.row(f"opencode:{self.session_id}", "session start: " + words, "meta", "system", False,
                 at=started)  # fmt: skip
        turns = self.conversation_turns(self.budget)
        for turn in turns:
            self._turn(turn)
        # No message is older than its session: that is how a fork's copies are told.
        created = min([started, *(message[2] for message in self.messages)])
        self.session = (
            self.session_id,
            "global",
            self.session_id[-8:].lower(),
            p.cwd,
            self.title,
            self.version,
            dump(MODEL).decode(),
            created,
            max(started, turns[-1].ended if turns else started),
        )

    def _message(self, at: int, done: int, data: dict[str, Any]) -> str:
        mid = _ident("msg", at, uuid4(self.rng))
        data["time"] = {"created": at, "completed": done}
        self.messages.append((mid, self.session_id, at, done, dump(data).decode()))
        return mid

    def _part(self, mid: str, at: int, done: int, data: dict[str, Any]) -> str:
        pid = _ident("prt", at, uuid4(self.rng))
        self.parts.append((pid, mid, self.session_id, at, done, dump(data).decode()))
        return pid
