"""The eight tools of the contract, declared once for every front door.

Each tool has a description, its parameters (which give the JSON Schema and validate calls) and
annotations. The stdio server and the hub both list and call tools from this table only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from origin_store.model import ENTRY_KINDS
from origin_store.parsers.agents import AGENTS

from ..errors import invalid
from .args import ToolArgs
from .params import Param, input_schema, validate

TIME = "A time: 30m, 24h, 7d or 2w back from now, a date such as 2026-10-20, or ISO 8601."

INSTRUCTIONS = """\
Origin is this user's archive of coding-agent sessions (Claude Code, Codex and others) and a memory \
of entries: decisions, facts and preferences, each citing the events it comes from.

- Before answering a question about past work (what was decided, why, what failed, what the user \
prefers), use `search` and read what it finds with `get` or `timeline`. Cite entry ids (ent_…) and \
event ids (<source>:…) in your answer so the user can check them; `sources` shows the original \
log lines.
- Use `remember` for decisions together with their reasons, for stable facts about the project, \
and for the user's preferences, methods, goals and boundaries. One self-contained statement per \
entry, citing the events it comes from: an event id, an exact quote, or both. To cite something \
said a moment ago in this conversation, quote it; Origin reads the newest log lines first.
- Entries marked imported mirror an agent's own memory files (CLAUDE.md, AGENTS.md, MEMORY.md): \
treat them as copies of those files, not as independent evidence.
- When an entry is wrong or out of date, `correct` it (its current version) instead of adding a \
contradicting one.
- Use `forget` only when the user asks for something to be forgotten, and pass the user's reason.
- If Origin cannot read your session log (you run in the cloud, or reach Origin over HTTP), \
record what you did with `ingest` as you go: decisions and why, commands and their outcome, \
commits, files changed, each with the workspace path, so that it can be searched and cited later. \
Agents whose local session logs Origin reads (Claude Code, Codex, Cursor and others on this \
machine) need not.
- When the user has paused recording, `ingest` answers that the event was suppressed and \
`remember` and `correct` refuse: tell the user instead of retrying.
"""

#: Source names the filters take besides the agents': those recorded with `ingest`.
SOURCE_FILTER = (
    "An agent whose logs Origin reads ({agents}), or a source recorded with ingest (its name as "
    "given there: case, spaces and punctuation do not matter)."
)


@dataclass(frozen=True, slots=True)
class StringList(Param):
    """A list of short strings (`ingest`'s tags): none blank, at most `max_items`."""

    max_items: int = 50

    def schema(self) -> dict[str, Any]:
        return {
            "type": "array",
            "description": self.description,
            "maxItems": self.max_items,
            "items": {"type": "string", "minLength": 1, "maxLength": self.max_length},
        }

    def check(self, value: Any) -> list[str] | None:
        if value is None:
            return None
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise invalid(f"{self.name} must be a list of strings.")
        if len(value) > self.max_items:
            raise invalid(f"{self.name} takes at most {self.max_items} items; got {len(value)}.")
        for item in value:
            if not item.strip():
                raise invalid(f"{self.name} must not hold an empty string.")
            if self.max_length is not None and len(item) > self.max_length:
                raise invalid(
                    f"{self.name} items have at most {self.max_length} characters; "
                    f"{item[:40]!r}… has {len(item):,}."
                )
            if "\x00" in item:
                raise invalid(f"{self.name} must not contain NUL characters.")
        return value


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    title: str
    description: str
    params: tuple[Param, ...]
    read_only: bool
    destructive: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    def input_schema(self) -> dict[str, Any]:
        return input_schema(self.params)

    def validate(self, args: Any) -> ToolArgs:
        """Arguments checked against the parameters, defaults filled in, as the tool's shape
        (`args.ARGS`: every parameter a key); lists of strings (`StringList`) are checked here,
        the rest by `params.validate`."""
        lists = [p for p in self.params if isinstance(p, StringList)]
        if not lists or not isinstance(args, dict):
            return cast("ToolArgs", validate(self.name, self.params, args))
        rest = {k: v for k, v in args.items() if k not in {p.name for p in lists}}
        checked = validate(self.name, self.params, rest)
        for p in lists:
            checked[p.name] = p.check(args.get(p.name))
        return cast("ToolArgs", checked)

    def annotations(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.read_only,
            "openWorldHint": False,
        }

    def as_mcp(self) -> dict[str, Any]:
        tool = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema(),
            "annotations": self.annotations(),
        }
        if self.meta:
            tool["_meta"] = dict(self.meta)
        return tool


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "search",
        "Search the archive",
        "Full-text search over entries and session events, best match first; every word must occur, "
        "in any language (Chinese and Japanese too), and punctuation is just text. Without a query, "
        "lists the most recent entries. Returns {entries, events}; event texts are cut to 400 "
        "characters, with a snippet around the first match and every match in [brackets].",
        (
            Param(
                "query",
                "string",
                "Words or phrases; every word must occur. A blank query is no query.",
                max_length=10_000,
                blank_is_absent=True,
            ),
            Param(
                "scope",
                "string",
                "What to search.",
                default="all",
                enum=("all", "entries", "events"),
            ),
            Param("kind", "string", "Entries of this kind only.", enum=ENTRY_KINDS),
            Param(
                "since",
                "time",
                "Entries written and events that happened since then. " + TIME,
                min_length=1,
                max_length=100,
            ),
            Param(
                "until",
                "time",
                "Entries written and events that happened before then. " + TIME,
                min_length=1,
                max_length=100,
            ),
            Param(
                "source",
                "string",
                "Events of this source only. " + SOURCE_FILTER.format(agents=", ".join(AGENTS)),
                min_length=1,
                max_length=100,
            ),
            Param(
                "project",
                "string",
                "Entries and events of this project only.",
                min_length=1,
                max_length=500,
            ),
            Param(
                "include_tools",
                "boolean",
                "Also search tool calls and tool results, not only messages.",
                default=False,
            ),
            Param(
                "limit",
                "integer",
                "At most this many entries, and this many events.",
                default=20,
                minimum=1,
                maximum=100,
            ),
        ),
        read_only=True,
    ),
    ToolSpec(
        "timeline",
        "Sessions and their events",
        "Sessions active in a time range, newest activity first; or, with session, that session's "
        "events oldest first (texts cut to 1,000 characters). A longer session needs a larger limit.",
        (
            Param(
                "since",
                "time",
                "Sessions active since then (default 7d). " + TIME,
                default="7d",
                min_length=1,
                max_length=100,
            ),
            Param(
                "until",
                "time",
                "Sessions started before then. " + TIME,
                min_length=1,
                max_length=100,
            ),
            Param(
                "source",
                "string",
                "Sessions of this source only; with session, the source of that session. "
                + SOURCE_FILTER.format(agents=", ".join(AGENTS)),
                min_length=1,
                max_length=100,
            ),
            Param(
                "project", "string", "Sessions of this project only.", min_length=1, max_length=500
            ),
            Param(
                "session",
                "string",
                "A session id: list its events instead.",
                min_length=1,
                max_length=500,
            ),
            Param(
                "include_tools",
                "boolean",
                "With session: also list tool calls and results, injected context and system events.",
                default=False,
            ),
            Param(
                "limit",
                "integer",
                "At most this many sessions, or events.",
                default=50,
                minimum=1,
                maximum=500,
            ),
        ),
        read_only=True,
    ),
    ToolSpec(
        "get",
        "Read an entry or an event",
        "An entry with its sources (the cited events, each with its quote) and its history (every "
        "version oldest first, forks included); or an event with its full text (up to 20,000 "
        "characters), cwd, git branch and agent version.",
        (
            Param(
                "id",
                "string",
                "An entry id (ent_…) or an event id (<source>:…).",
                required=True,
                min_length=1,
                max_length=500,
            ),
        ),
        read_only=True,
    ),
    ToolSpec(
        "sources",
        "Original log lines",
        "The original log lines behind an entry or an event: one item per cited event with its "
        "original file, Origin's mirror of it, the line number and the raw line (cut to 4,000 "
        "characters).",
        (
            Param(
                "id",
                "string",
                "An entry id or an event id.",
                required=True,
                min_length=1,
                max_length=500,
            ),
        ),
        read_only=True,
    ),
    ToolSpec(
        "remember",
        "Save an entry",
        "Save a new entry: one self-contained statement citing at least one event (an event id, an "
        "exact quote, or both). A quote alone cites the most recent message containing it. New log "
        "lines are read first, so a line just written can be cited by quoting it.",
        (
            Param(
                "kind",
                "string",
                "memory: what happened (a decision and why); knowledge: a stable fact;"
                " cognition: the user's preferences, methods, goals or boundaries.",
                required=True,
                enum=ENTRY_KINDS,
            ),
            Param(
                "text",
                "string",
                "One self-contained statement.",
                required=True,
                min_length=1,
                max_length=20_000,
            ),
            Param(
                "sources",
                "sources",
                "At least one {event_id, quote}: an event id, an exact quote, or both.",
                required=True,
            ),
            Param(
                "confidence",
                "number",
                "How sure you are, from 0 to 1.",
                required=True,
                minimum=0,
                maximum=1,
            ),
            Param(
                "project",
                "string",
                "The project it belongs to, if any.",
                min_length=1,
                max_length=500,
            ),
            Param(
                "valid_from",
                "time",
                "When it starts to hold, if known. " + TIME,
                min_length=1,
                max_length=100,
            ),
            Param(
                "valid_to",
                "time",
                "When it stops holding, if known. " + TIME,
                min_length=1,
                max_length=100,
            ),
        ),
        read_only=False,
    ),
    ToolSpec(
        "correct",
        "Correct an entry",
        "Replace an entry's current version with a corrected one; the old version stays in the "
        "history. Kind, confidence and validity default to the old ones; sources carry over and "
        "more can be added.",
        (
            Param(
                "id",
                "string",
                "The entry's current version.",
                required=True,
                min_length=1,
                max_length=500,
            ),
            Param(
                "text",
                "string",
                "The corrected statement.",
                required=True,
                min_length=1,
                max_length=20_000,
            ),
            Param("kind", "string", "A new kind; the old one by default.", enum=ENTRY_KINDS),
            Param(
                "confidence",
                "number",
                "A new confidence from 0 to 1; the old one by default.",
                minimum=0,
                maximum=1,
            ),
            Param("sources", "sources", "More sources, added to those that carry over."),
            Param(
                "valid_from",
                "time",
                "New validity start; the old one by default. " + TIME,
                min_length=1,
                max_length=100,
            ),
            Param(
                "valid_to",
                "time",
                "New validity end; the old one by default. " + TIME,
                min_length=1,
                max_length=100,
            ),
        ),
        read_only=False,
    ),
    ToolSpec(
        "forget",
        "Forget an entry or an event",
        "Hide an entry (every version of it and the events it cites) or an event (and every entry "
        "citing it) from every query; it can no longer be cited. Only when the user asks, with the "
        "user's reason. Only the user can undo it (origin restore).",
        (
            Param(
                "id",
                "string",
                "An entry id or an event id.",
                required=True,
                min_length=1,
                max_length=500,
            ),
            Param(
                "reason",
                "string",
                "Why the user wants it forgotten; kept with the record.",
                required=True,
                min_length=1,
                max_length=2000,
            ),
        ),
        read_only=False,
        destructive=True,
        meta={"origin/requiresConfirmation": True},
    ),
    ToolSpec(
        "ingest",
        "Record an event",
        "Record one event of your own work (a decision, a command and its outcome, a commit, a "
        "file changed, a conversation) when Origin cannot read your session log: it is stored "
        "like the events of agents' logs, found by search and citable by remember at once. "
        "Answers `Recorded [<source>]: <title or the first 60 characters>`, with the event's id "
        "in the structured result; while the user has paused recording, `(ephemeral mode: event "
        "suppressed)` and nothing is stored.",
        (
            Param(
                "content",
                "string",
                "What happened, in a few self-contained sentences.",
                required=True,
                min_length=1,
                max_length=100_000,
            ),
            Param(
                "workspace",
                "string",
                "The absolute path of the repository or workspace it belongs to; its git root's "
                "last component (or its own) is the project.",
                required=True,
                min_length=1,
                max_length=4_096,
            ),
            Param(
                "source",
                "string",
                "Who records: your agent's name, such as claude or copilot. Folded to a-z, 0-9 and "
                "-, at most 40 characters; an agent whose logs Origin reads gets -recorded.",
                default="mcp",
                min_length=1,
                max_length=100,
            ),
            Param(
                "kind",
                "string",
                "conversation, agent, command, commit, file or decision; another word is kept as "
                "given.",
                default="conversation",
                min_length=1,
                max_length=100,
            ),
            Param("title", "string", "A short title.", min_length=1, max_length=500),
            StringList("tags", "strings", "Free-form tags, such as architecture.", max_length=100),
            Param(
                "session",
                "string",
                "Your session's id; by default one session per source, workspace and day.",
                min_length=1,
                max_length=500,
            ),
        ),
        read_only=False,
    ),
)

BY_NAME = {tool.name: tool for tool in TOOLS}
READ_ONLY = frozenset(tool.name for tool in TOOLS if tool.read_only)
