"""`origin doctor`: the checks of `origin_api.doctor`, for a person or (`--json`) a script."""

from __future__ import annotations

import typer

from .. import admin
from ..doctor import Diagnosis, Finding, diagnose
from ..settings import Settings
from .output import console, print_json, text

#: How each level is marked, for a reader scanning down the left edge.
MARKS = {"ok": "[green]ok[/green]  ", "note": "[cyan]note[/cyan]", "attention": "[red]fix[/red] "}
#: The areas in the order they are shown, with their headings.
AREAS = {
    "agents": "Agents' logs",
    "archive": "Archive",
    "index": "Search index",
    "hub": "Hub",
    "clients": "Clients registered with Origin",
}


def register(app: typer.Typer) -> None:
    app.command()(doctor)


def doctor(
    json: bool = typer.Option(False, "--json", help="Print the findings as JSON."),
) -> None:
    """What Origin looks at on this machine and what it found: agents' logs, the archive and its
    index, a hub, registered clients. Exits 1 when something needs attention."""
    settings = Settings.from_env()
    demo = admin.demo_of(settings)
    found = diagnose(settings, demo=demo.home if demo.exists else None)
    if json:
        print_json(found.as_dict())
    else:
        show(found)
    if not found.healthy:
        raise typer.Exit(1)


def show(found: Diagnosis) -> None:
    console.print(f"[bold]Origin doctor[/bold]: the archive at {text(found.home)}")
    console.print("\n[bold]Environment read[/bold]")
    for name, value in found.environment.items():
        console.print(f"  {name}={text(value) if value is not None else '(unset)'}")
    for area, heading in AREAS.items():
        findings = [f for f in found.findings if f.area == area]
        if findings:
            console.print(f"\n[bold]{heading}[/bold]")
            width = max(len(f.subject) for f in findings)
            for finding in findings:
                _line(finding, width)
    fixes = sum(f.level == "attention" for f in found.findings)
    console.print(
        "\n[green]Nothing needs attention.[/green]"
        if not fixes
        else f"\n[red]{fixes} thing{'s' if fixes > 1 else ''} to fix[/red] (marked fix)."
    )


def _line(finding: Finding, width: int) -> None:
    console.print(f"  {MARKS[finding.level]} {finding.subject:{width}}  {text(finding.summary)}")
    if finding.area == "agents" and finding.details.get("files"):
        for root in finding.details.get("roots", []):
            state = "found" if root["exists"] else "absent"
            console.print(f"{'':{width + 9}}{text(root['path'])} ({state})")
