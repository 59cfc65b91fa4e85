"""``cclab scenarios``: the catalog with one-line descriptions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from cclab.catalog import scan
from cclab.cli._common import console, user_errors


def scenarios(
    root: Annotated[Path, typer.Argument(help="Catalog directory, searched recursively.", metavar="DIR")] = Path(
        "scenarios"
    ),
) -> None:
    """List the scenarios under DIR (default ./scenarios); exit 1 if any of them is invalid."""
    with user_errors():
        entries = scan(root)
    table = Table(box=None, pad_edge=False)
    table.add_column("scenario", no_wrap=True)
    table.add_column("description")
    for e in entries:
        label = str(e.path.relative_to(root))
        desc = Text(e.description) if e.valid else Text(f"invalid: {e.description}", style="red")
        table.add_row(label, desc)
    console.print(table)
    if not entries:
        console.print(f"no *.toml under {root}", style="yellow", highlight=False)
    if not all(e.valid for e in entries):
        raise typer.Exit(1)
