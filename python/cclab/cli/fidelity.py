"""``cclab fidelity``: each scenario simulated and run for real (kernel TCP or real QUIC), side by side."""

from pathlib import Path
from typing import Annotated

import typer

from cclab.cli._common import MAX_SEED, SetOption, user_errors
from cclab.cli._render import Table, show


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "bit/s":
        return f"{value / 1e6:.1f} Mbit/s"
    if unit == "s":
        return f"{value * 1e3:.1f} ms" if value < 1 else f"{value:.3f} s"
    if unit == "bytes":
        return f"{value / 1e3:.0f} kB"
    return f"{value:.0f}"


def fidelity(
    scenarios: Annotated[list[Path], typer.Argument(help="Scenario TOML files.", metavar="SCENARIO.toml...")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory (created if missing).", metavar="DIR")],
    set_: SetOption = None,
    seed: Annotated[int | None, typer.Option(min=0, max=MAX_SEED, help="Override the scenarios' RNG seed.")] = None,
) -> None:
    """Simulate each scenario and run it on kernel TCP (TCP flows) or real sockets (QUIC); compare the results."""
    # Loaded here, not at import: it brings numpy, which `cclab run` and `validate` must not pay for.
    from cclab.fidelity import METRICS
    from cclab.fidelity import fidelity as run_fidelity

    with user_errors():
        rows = run_fidelity(scenarios, out=out, set=set_ or [], seed=seed)
    table = Table()
    for col in ("scenario", "mode", "metric", "model", "real", "difference"):
        table.add_column(col)
    for row in rows:
        for i, (key, label, unit) in enumerate(METRICS):
            rel = row["relative"][key]
            table.add_row(
                row["scenario"] if i == 0 else "",
                row["mode"] if i == 0 else "",
                label,
                _fmt(row["sim"][key], unit),
                _fmt(row["other"][key], unit),
                "—" if rel is None else f"{rel:+.1%}",
            )
    show(table, f"wrote {out}/fidelity.json")
