"""``cclab sweep``: run a parameter grid and write one table row per run."""

from pathlib import Path
from typing import Annotated, Any

import typer

from cclab import sweep as sw
from cclab.cli._common import DelayedProgress, SetOption, user_errors
from cclab.cli._render import Table, error, show
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
    table = Table(boxed=False)
    for col in ["run", *keys, "seed", "status", *(f"goodput flow {g.split('.')[1]}" for g in goodputs)]:
        table.add_column(col, right=True)
    for r in rows:
        cells = [
            str(r["run"]),
            *(str(r[k]) for k in keys),
            str(r["seed"]),
            str(r.get("status", "ok")),
            *(fmt_rate(r.get(g)) for g in goodputs),
        ]
        table.add_row(*cells)
    return table


def sweep(
    source: Annotated[
        Path,
        typer.Argument(
            help='A scenario file, or a sweep file (scenario = "file.toml", seeds, set, [grid]).',
            metavar="SCENARIO.toml|SWEEP.toml",
        ),
    ],
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="Results store: sweep.parquet and runs/<hash>/ per run.", metavar="DIR"),
    ],
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            metavar="KEY=V1,V2,...",
            help="A swept key and its values (repeatable; the grid is the cartesian product; adds to a sweep file's).",
            callback=parse_params,
        ),
    ] = None,
    set_: SetOption = None,
    seeds: Annotated[
        int | None,
        typer.Option(min=1, max=sw.MAX_RUNS, help="Run every combination with seeds 1..N (instead of the file's)."),
    ] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="Worker processes (default: CPU count).")] = None,
    dask: Annotated[
        str | None,
        typer.Option(help="Run on a Dask cluster at ADDRESS (or 'local').", metavar="ADDRESS"),
    ] = None,
) -> None:
    """Run the grid × seeds into the results store DIR; a rerun skips finished runs.

    Writes DIR/sweep.parquet
    (params + summary scalars, one row per run, failed runs with their error); exit 1 if a run failed.
    """
    params = dict(sw.parse_param(p) for p in param or [])
    if len(params) != len(param or []):
        raise typer.BadParameter("each key may be swept by one --param only", param_hint="--param")
    with user_errors():
        if sw.is_sweep_file(source):
            plan = sw.load_sweep_file(source)
        else:
            plan = sw.SweepPlan(source, {}, [None], [])
        for key, values in params.items():
            plan.params[key] = values
        if seeds:
            plan = sw.SweepPlan(plan.scenario, plan.params, list(range(1, seeds + 1)), plan.overrides)
        plan.overrides.extend(set_ or [])
        specs = plan.specs()
        with DelayedProgress(f"sweep of {len(specs)} runs") as progress:
            rows = sw.run_all(specs, workers=workers, dask=dask, progress=progress, store=out)
        path = sw.write_parquet(rows, out / sw.SWEEP_PARQUET, plan.params)
    keys = list(plan.params)
    failed = [r for r in rows if r.get("status") == "failed"]
    show(_table(rows, keys), f"wrote {path} ({len(rows)} runs)")
    if failed:
        for r in failed:
            error(f"run {r['run']} ({', '.join(f'{k}={r[k]}' for k in keys)}, seed {r['seed']}): {r['error']}")
        raise typer.Exit(1)
