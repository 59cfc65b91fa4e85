"""``cclab sweep``: run a parameter grid and write one table row per run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from cclab import sweep as sw
from cclab.cli._common import DelayedProgress, SetOption, console, user_errors
from cclab.cli._tables import fmt_rate


def parse_params(values: list[str] | None) -> list[str]:
    """Check every ``--param`` early so a typo is a usage error (exit 2)."""
    for value in values or []:
        try:
            sw.parse_param(value)
        except sw.SweepError as e:
            raise typer.BadParameter(str(e)) from None
    return values or []


def _table(rows: list[dict[str, Any]], keys: list[str]) -> Table:
    goodputs = sorted({k for r in rows for k in r if k.startswith("flows.") and k.endswith(".goodput_bps")})
    table = Table(box=None, pad_edge=False)
    for col in ["run", *keys, "seed", *(f"goodput flow {g.split('.')[1]}" for g in goodputs)]:
        table.add_column(col, justify="right")
    for r in rows:
        cells = [str(r["run"]), *(str(r[k]) for k in keys), str(r["seed"]), *(fmt_rate(r.get(g)) for g in goodputs)]
        table.add_row(*cells)
    return table


def sweep(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.", metavar="SCENARIO.toml")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory for sweep.parquet.", metavar="DIR")],
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            metavar="KEY=V1,V2,...",
            help="A swept key and its values (repeatable; the grid is the cartesian product).",
            callback=parse_params,
        ),
    ] = None,
    set_: SetOption = None,
    seeds: Annotated[int | None, typer.Option(min=1, help="Run every combination with seeds 1..N.")] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="Worker processes (default: CPU count).")] = None,
    dask: Annotated[
        str | None,
        typer.Option(help="Run on a Dask cluster at ADDRESS (or 'local'); needs the dask extra.", metavar="ADDRESS"),
    ] = None,
) -> None:
    """Run the cartesian product of --param values × seeds; write DIR/sweep.parquet (params + summary scalars)."""
    params = dict(sw.parse_param(p) for p in param or [])
    if len(params) != len(param or []):
        raise typer.BadParameter("each key may be swept by one --param only", param_hint="--param")
    seed_list: list[int | None] = list(range(1, seeds + 1)) if seeds else [None]
    specs = sw.grid(scenario, params, seeds=seed_list, overrides=set_ or [])
    with user_errors():
        with DelayedProgress(f"sweep of {len(specs)} runs") as progress:
            rows = sw.run_all(specs, workers=workers, dask=dask, progress=progress)
        path = sw.write_parquet(rows, out / sw.SWEEP_PARQUET, params)
    console.print(_table(rows, list(params)))
    console.print(f"[dim]wrote[/] {path} [dim]({len(rows)} runs)[/]", highlight=False)
