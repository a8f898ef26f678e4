"""How the CLI speaks: readable, coloured output for people; `--json` for scripts; errors once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import orjson
import typer
from rich.console import Console, ConsoleDimensions
from rich.markup import escape

from origin_search import SearchError
from origin_store import StoreError

from ..errors import OriginError

#: The width given to output that is not a terminal: wide enough that no line is ever cut.
PIPE_WIDTH = 1_000_000


class _Console(Console):
    """Rich wraps at the terminal's width, or at 80 columns (or at stderr's terminal) when the
    output is a pipe or a file, which breaks ids and commands in two for whoever reads them
    there: only a terminal is wrapped."""

    @property
    def size(self) -> ConsoleDimensions:
        found = super().size
        return found if self.is_terminal else ConsoleDimensions(PIPE_WIDTH, found.height)

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self._width, self._height = new_size


# emoji=False: a log's ":smile:" is text, not a picture.
console = _Console(highlight=False, emoji=False)
err_console = _Console(stderr=True, highlight=False, emoji=False)
T = TypeVar("T")


def print_json(value: Any) -> None:
    typer.echo(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())


def text(value: object) -> str:
    """A value from the archive as rich prints it literally (a log's "[bold]" stays text)."""
    return escape(str(value))


def indented(body: str, prefix: str = "  ") -> str:
    """A multi-line text under the line it belongs to, each of its lines indented."""
    return "\n".join(prefix + line if line else line for line in body.splitlines() or [""])


@contextmanager
def edge() -> Iterator[None]:
    """Turn the layers' errors into a message and exit code 2, the CLI's one translation."""
    try:
        yield
    except (OriginError, StoreError, SearchError) as error:
        message = getattr(error, "message", None) or error
        err_console.print(f"[red]error:[/red] {text(message)}")
        raise typer.Exit(2) from None


def human_bytes(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:,.1f} {unit}" if unit != "B" else f"{int(value)} B"
        value /= 1024
    return f"{value:.1f} TB"


def run_with_progress(label: str, total: int, work: Callable[[Callable[[int], None]], T]) -> T:
    """A progress bar for long work; short work (under ~20 MB) runs without one."""
    if total < 20 * 1024 * 1024 or not console.is_terminal:
        return work(lambda _n: None)
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=err_console,
    ) as progress:
        task = progress.add_task(label, total=total)
        return work(lambda n: progress.advance(task, n))
