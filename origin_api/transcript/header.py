"""The facts an export opens with, the same in every format."""

from __future__ import annotations

from .read import Header

#: The longest title an export shows (a session without one is titled by its prompt).
TITLE_CHARS = 100


def title_of(header: Header) -> str:
    """The session's title, else its first prompt on one line, cut; else its id."""
    title = " ".join((header["title"] or header["prompt"] or "").split())
    if len(title) > TITLE_CHARS:
        title = title[: TITLE_CHARS - 1] + "…"
    return title or f"Session {header['session']}"


def facts(header: Header) -> list[tuple[str, str]]:
    """The header's facts as (label, value) rows, in the order a reader looks for them."""
    agent = header["source"] + (f" {header['agent_version']}" if header["agent_version"] else "")
    times = " – ".join(t for t in (header["first"], header["last"]) if t) or "—"
    shown = f"{header['exported']:,} of {header['events']:,}"
    what = "" if header["include_tools"] else " (messages; tool calls and results left out)"
    return [
        ("Agent", agent),
        ("Session", header["session"]),
        ("Project", header["project"] or "—"),
        ("Directory", header["cwd"] or "—"),
        ("Branch", header["git_branch"] or "—"),
        ("Model", header["model"] or "—"),
        ("Time", times),
        ("Events", shown + what),
    ]


def left_out(count: int) -> str:
    """The line standing for events an export without tool calls leaves out."""
    events = "event" if count == 1 else "events"
    return f"{count:,} {events} left out (tool calls and results, the harness's notes)"
