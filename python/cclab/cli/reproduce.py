"""``cclab reproduce``: run a seed case (or all five), print its verdict table and figure paths."""

from pathlib import Path
from typing import Annotated

import typer

from cclab.cli._common import DelayedProgress, user_errors
from cclab.cli._render import Table, error, show


def verdict_table(report) -> Table:
    """The verdict table of one case: quantity, report, ours, tolerance, pass/fail."""
    t = Table(f"{report.case}: {report.title}")
    for col in ("quantity", "report", "ours", "tolerance", "verdict"):
        t.add_column(col)
    for v in report.verdicts:
        # In capitals where the verdict goes against the report (the output has no colour to mark it).
        mark = v.status.upper() if v.status in ("fail", "unexpected pass") else v.status
        t.add_row(v.quantity, v.report, v.ours, v.tolerance, mark)
    return t


def reproduce(
    case: Annotated[str, typer.Argument(help="seed-000 … seed-004, or all.", metavar="SEED")],
    full: Annotated[bool, typer.Option("--full", help="The report's real sizes and repetitions.", metavar="")] = False,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Output directory (default out/reproduce).", metavar="DIR")
    ] = None,
    workers: Annotated[int | None, typer.Option(min=1, help="Local worker processes (default: cores).")] = None,
    dask: Annotated[str | None, typer.Option(help="Run on this Dask scheduler address instead.")] = None,
    real: Annotated[
        bool,
        typer.Option("--real", help="Run on this machine's loopback with real sockets (cases: seed-000)."),
    ] = False,
) -> None:
    """Reproduce a seed report: run the pathology and its fix, judge against the report, draw figures."""
    from cclab.reproduce import CASES, REAL_CASES
    from cclab.reproduce import reproduce as run_case

    known = REAL_CASES if real else CASES
    cases = list(known) if case == "all" else [case]
    if any(c not in known for c in cases):
        kind = "real-mode cases" if real else "cases"
        error(f"no {kind} named {case!r}: expected one of {', '.join(known)} or 'all'")
        raise typer.Exit(2)
    base = out or Path("out") / ("reproduce-real" if real else "reproduce")
    failed = []
    with user_errors():
        for c in cases:
            with DelayedProgress(f"{c}: runs") as progress:
                report = run_case(
                    c,
                    full=full,
                    out_dir=base / c,
                    workers=workers,
                    dask=dask,
                    on_run=lambda _r, done, total: progress(done, total),
                    real=real,
                )
            n_pass = sum(v.status == "pass" for v in report.verdicts)
            n_exc = sum(v.status == "explained exception" for v in report.verdicts)
            show(
                verdict_table(report),
                *([report.text] if report.text else []),
                f"{c}: {n_pass}/{len(report.verdicts)} verdicts pass "
                f"({n_exc} explained exceptions, see docs/seeds/{c}.md) "
                f"in {report.wall_s:.1f} s; "
                f"figures and verdicts.json in {report.out_dir}",
                *(f"  {'figure' if Path(f).suffix in ('.png', '.svg') else 'table'}: {f}" for f in report.figures),
            )
            if not report.passed:
                failed.append(c)
    if failed:
        error(f"verdicts failed: {', '.join(failed)}")
        raise typer.Exit(1)
