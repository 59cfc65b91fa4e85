"""``cclab scenarios``: the catalog with one-line descriptions."""

from pathlib import Path
from typing import Annotated

import typer

from cclab.catalog import scan
from cclab.cli._common import user_errors
from cclab.cli._render import Table, say, show


def scenarios(
    root: Annotated[Path, typer.Argument(help="Catalog directory, searched recursively.", metavar="DIR")] = Path(
        "scenarios"
    ),
) -> None:
    """List the scenarios under DIR (default ./scenarios); exit 1 if any of them is invalid."""
    with user_errors():
        entries = scan(root)
    table = Table(boxed=False)
    table.add_column("scenario")
    table.add_column("description")
    for e in entries:
        table.add_row(str(e.path.relative_to(root)), e.description if e.valid else f"invalid: {e.description}")
    show(table)
    if not entries:
        say(f"no *.toml under {root}")
    if not all(e.valid for e in entries):
        raise typer.Exit(1)
