"""``cclab plot``: figures from a run directory, or a metric against a swept key from a sweep directory."""

from pathlib import Path
from typing import Annotated

import typer

from cclab.cli._common import user_errors
from cclab.cli._render import error, say


def plot(
    run_dir: Annotated[
        Path, typer.Argument(help="A directory written by `cclab run` or `cclab sweep`.", metavar="DIR")
    ],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Where to write the figures (default DIR/plots).")
    ] = None,
    x: Annotated[str | None, typer.Option("--x", help="Sweep directory: the swept key on the x axis.")] = None,
    y: Annotated[
        str | None, typer.Option("--y", help="Sweep directory: the metric, e.g. goodput_bps or flows.0.srtt_s.")
    ] = None,
) -> None:
    """Plot a run, or a metric of a sweep against a swept key.

    A run: (cwnd, bytes in flight, srtt, pacing rate, throughput, and queue/capacity when recorded), or for
    a sweep METRIC against KEY with the mean and 95 % interval across seeds (PNG + SVG).
    """
    from cclab.sweep import SWEEP_PARQUET

    with user_errors():
        if (run_dir / SWEEP_PARQUET).is_file():
            from cclab.sweep_plot import plot_sweep, swept_keys

            if y is None:
                error("a sweep directory needs --y METRIC (and --x KEY when more than one key is swept)")
                raise typer.Exit(2)
            if x is None:
                import polars as pl

                keys = swept_keys(pl.read_parquet(run_dir / SWEEP_PARQUET))
                if len(keys) != 1:
                    error(f"--x KEY is needed: swept keys are {', '.join(keys) or 'none'}")
                    raise typer.Exit(2)
                x = keys[0]
            written = plot_sweep(run_dir, x, y, out)
        else:
            from cclab.plot import plot_dir

            written = plot_dir(run_dir, out)
    for path in written:
        say(str(path))
