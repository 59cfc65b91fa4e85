"""``cclab plot``: figures from a run directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cclab.cli._common import console, user_errors


def plot(
    run_dir: Annotated[Path, typer.Argument(help="A directory written by `cclab run`.", metavar="DIR")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Where to write the figures (default DIR/plots).")
    ] = None,
) -> None:
    """Plot cwnd, bytes in flight, srtt and pacing rate over time (PNG + SVG) from DIR/timeseries.parquet."""
    from cclab.plot import plot_dir

    with user_errors():
        written = plot_dir(run_dir, out)
    for path in written:
        console.print(str(path), highlight=False)
