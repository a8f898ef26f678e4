"""What a check finds, as data: the CLI renders it, and an admin page can show the same list."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

#: How a finding stands: fine, worth knowing, or something to do (`origin doctor` exits 1).
Level = Literal["ok", "note", "attention"]
LEVELS: tuple[Level, ...] = ("ok", "note", "attention")


@dataclass(frozen=True, slots=True)
class Finding:
    area: str  # agents, archive, index, hub, clients
    subject: str  # what in that area: an agent, the store, a client's entry
    level: Level
    summary: str  # one sentence for a person, with the command that fixes it if any
    details: dict[str, Any] = field(default_factory=dict)  # the figures, for --json and the UI


@dataclass(frozen=True, slots=True)
class Diagnosis:
    home: str
    #: Every environment variable the checks read, with its value (None: not set).
    environment: dict[str, str | None]
    findings: list[Finding]

    @property
    def healthy(self) -> bool:
        return all(finding.level != "attention" for finding in self.findings)

    def as_dict(self) -> dict[str, Any]:
        return {
            "healthy": self.healthy,
            "home": self.home,
            "environment": self.environment,
            "findings": [asdict(finding) for finding in self.findings],
        }


class Watched(Mapping[str, str]):
    """An environment that remembers which variables were asked for: the ones that decide where
    each agent's files are, read from the agents' own `roots` rather than from a list here that
    could drift from them."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self.environ = environ
        self.read: dict[str, None] = {}

    def __getitem__(self, key: str) -> str:
        self.read[key] = None
        return self.environ[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.environ)

    def __len__(self) -> int:
        return len(self.environ)
