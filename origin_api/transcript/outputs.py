"""A tool's output as a person reads it: Origin's marks of a failure apart, Codex's preamble
(`Process exited with code 0`, `Wall time`, …) as a line of facts, and its size, by which a
long output is folded."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: An output is folded past this many lines or characters.
FOLD_LINES = 20
FOLD_CHARS = 2_000
#: Origin's marks at the start of a failed output's text (its label), and the cut's note.
_MARK = re.compile(r"^\[error(?:: [^\]\n]{1,80})?\] ")
_CUT = re.compile(r"… \[([\d,]+) characters cut\]$")
#: The lines Codex puts before a command's output.
_PREAMBLE = re.compile(
    r"^(Chunk ID|Wall time|Process exited with code|Exit code|Original token count)\b.*$"
)


@dataclass(frozen=True)
class Output:
    """An output split for showing: `mark` (`[error: exit code 1]`), `facts` (Codex's
    preamble lines), `body` (the output itself, without the cut's note), and its size."""

    mark: str
    facts: list[str]
    body: str
    lines: int
    chars: int
    cut: bool

    @property
    def long(self) -> bool:
        return self.cut or self.lines > FOLD_LINES or self.chars > FOLD_CHARS

    @property
    def size(self) -> str:
        """`412 lines, 38 KB` (of the whole output; `at least` lines when it was cut)."""
        lines = f"{self.lines:,}{'+' if self.cut else ''} line{'' if self.lines == 1 else 's'}"
        return f"{lines}, {byte_size(self.chars)}"


def byte_size(count: int) -> str:
    if count < 1_000:
        return f"{count} B"
    if count < 1_000_000:
        return f"{count / 1_000:.0f} KB" if count >= 10_000 else f"{count / 1_000:.1f} KB"
    return f"{count / 1_000_000:.1f} MB"


def read_output(text: str) -> Output:
    mark = ""
    found = _MARK.match(text)
    if found:
        mark, text = found.group(0).strip(), text[found.end() :]
    cut_chars = 0
    note = _CUT.search(text)
    if note:
        cut_chars = int(note.group(1).replace(",", ""))
        text = text[: note.start()]
    facts: list[str] = []
    head, sep, rest = text.partition("Output:\n")
    if sep and head and all(_PREAMBLE.match(line) for line in head.splitlines() if line):
        facts = [line for line in head.splitlines() if line]
        text = rest
    body = text.rstrip("\n")
    size = len(body.encode("utf-8", "surrogatepass")) + cut_chars
    lines = body.count("\n") + 1 if body else 0
    return Output(mark, facts, body, lines, size, bool(cut_chars))
