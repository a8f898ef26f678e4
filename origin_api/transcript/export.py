"""A session exported as a file a person reads: Markdown, a standalone HTML page, or JSON.

Each keeps the session's facts first (agent, project, directory, branch, model, times) and each
event's id beside it, so a file passed on still points at the archive's provenance (`origin get
ID`, `origin sources ID`). Without `include_tools` only the conversation is written (messages,
memory files), with a line where tool calls and results were left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import orjson

from ..runtime import Origin
from .calls import read_call
from .header import facts, left_out, title_of
from .html_export import html_document
from .outputs import read_output
from .read import ExportEvent, Header, Transcript, read_transcript

#: The formats, by the name `--format` takes, with the file name extension and media type.
FORMATS: dict[str, tuple[str, str]] = {
    "md": ("md", "text/markdown; charset=utf-8"),
    "html": ("html", "text/html; charset=utf-8"),
    "json": ("json", "application/json"),
}
_UNSAFE_NAME = re.compile(r"[^\w.\-]+", re.ASCII)


def export(
    origin: Origin,
    session: str,
    source: str | None = None,
    *,
    fmt: str = "md",
    include_tools: bool = False,
) -> str:
    """The session (its id, or one of its events' ids) in `fmt`; `OriginError` (not found)
    for a session this archive does not have."""
    if fmt not in FORMATS:
        raise ValueError(f"no export format {fmt}")
    return write(read_transcript(origin, session, source, include_tools=include_tools), fmt)


def write(transcript: Transcript, fmt: str) -> str:
    """A session read by `read_transcript`, in `fmt` (one of FORMATS)."""
    return WRITERS[fmt](transcript)


def file_name(header: Header, fmt: str) -> str:
    """A file name for the export: the agent and the session, nothing a path could abuse."""
    stem = _UNSAFE_NAME.sub("-", f"{header['source']}-{header['session']}").strip("-.")
    return f"{stem[:120] or 'session'}.{FORMATS[fmt][0]}"


def json_document(transcript: Transcript) -> str:
    return orjson.dumps(transcript, option=orjson.OPT_INDENT_2).decode() + "\n"


# -- Markdown ------------------------------------------------------------------------------------


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _inline(text: str) -> str:
    """Inline code no backtick inside it can end."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    tick = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{tick}{pad}{text}{pad}{tick}"


def _md_field(key: str, value: str) -> str:
    if "\n" not in value and len(value) <= 200:
        return f"- {_inline(key)}: {_inline(value)}"
    return f"- {_inline(key)}:\n\n{_fenced(value)}\n"


def _fenced(text: str, language: str = "") -> str:
    """A fenced block whose fence no backtick run inside it can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def markdown_document(transcript: Transcript) -> str:
    header = transcript["header"]
    out = [f"# {_cell(title_of(header))}", "", "| | |", "| --- | --- |"]
    out += [f"| {label} | {_cell(value)} |" for label, value in facts(header)]
    for number, event in enumerate(transcript["events"], 1):
        if event.get("left_out"):
            out += ["", f"*{left_out(event.get('left_out', 0))}*"]
        out += ["", _event_heading(number, event), f"`{event['id']}`", "", _md_body(event)]
    if transcript["left_out_at_end"]:
        out += ["", f"*{left_out(transcript['left_out_at_end'])}*"]
    return "\n".join(out) + "\n"


def _event_heading(number: int, event: ExportEvent) -> str:
    what = event["role"] + ("" if event["kind"] == "message" else f" · {event['kind']}")
    when = f" · {event['time'][:19].replace('T', ' ')}" if event["time"] else ""
    return f"## {number}. {what}{when}"


def _md_body(event: ExportEvent) -> str:
    kind, text = event["kind"], event["text"] or ""
    if kind in ("message", "memory"):
        return text
    if kind == "tool_use":
        call = read_call(text)
        if call.kind == "command":
            where = f" in {_inline(call.workdir)}" if call.workdir else ""
            said = (call.args or {}).get("description")
            where += f" — {said}" if isinstance(said, str) and said else ""
            return f"**{call.name}**{where}\n\n{_fenced(call.command or '', 'sh')}"
        if call.kind == "edit":
            path = _inline(call.path) if call.path else ""
            return f"**{call.name}** {path}\n\n{_fenced(call.diff or '', 'diff')}"
        if call.fields:
            items = [_md_field(key, value) for key, value in call.fields]
            return f"**{call.name}**\n\n" + "\n".join(items)
        return f"**{call.name}**" + (f"\n\n{_fenced(call.rest)}" if call.rest else "")
    if kind == "tool_result":
        output = read_output(text)
        lead = " ".join([output.mark, *output.facts]).strip()
        about = f"Output ({output.size})" + (f": {lead}" if lead else "")
        return f"*{about}*\n\n{_fenced(output.body, 'text')}"
    return _fenced(text, "text")


WRITERS: dict[str, Callable[[Transcript], str]] = {
    "md": markdown_document,
    "html": html_document,
    "json": json_document,
}
