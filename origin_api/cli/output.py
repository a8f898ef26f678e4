"""How the CLI speaks: readable, coloured output for people; `--json` for scripts; errors once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import orjson
import typer
from rich.console import Console

from origin_search import SearchError
from origin_store import StoreError

from ..errors import OriginError

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)
T = TypeVar("T")


def print_json(value: Any) -> None:
    typer.echo(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())


@contextmanager
def edge() -> Iterator[None]:
    """Turn the layers' errors into a message and exit code 2, the CLI's one translation."""
    try:
        yield
    except (OriginError, StoreError, SearchError) as error:
        err_console.print(f"[red]error:[/red] {getattr(error, 'message', None) or error}")
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
