"""``cclab compare``: runs side by side — a table, a difference table and overlaid figures."""

from pathlib import Path
from typing import Annotated, Any

import typer

from cclab.cli._common import EXIT_INVALID, user_errors
from cclab.cli._render import Table, error, show
from cclab.cli._tables import MISSING, fmt_bytes, fmt_pct, fmt_rate, fmt_secs

_FORMAT = {"rate": fmt_rate, "secs": fmt_secs, "bytes": fmt_bytes, "pct": fmt_pct, "count": lambda v: f"{v:.4g}"}


def cell(value: tuple[float | None, float | None, int], kind: str) -> str:
    """``mean`` or ``mean ± half-width`` (95 % interval across seeds) in the column's unit; ``—`` when missing."""
    mean, half, _ = value
    if mean is None:
        return MISSING
    fmt = _FORMAT[kind]
    return fmt(mean) if half is None else f"{fmt(mean)} ± {fmt(half)}"


def tables(rows: list[dict[str, Any]], diffs: list[dict[str, Any]]) -> tuple[Table, Table]:
    """The side-by-side table and the difference table."""
    from cclab.compare import COLUMNS

    side = Table("Runs (± = 95 % interval across seeds)")
    diff = Table("Difference to the first run of the same flow")
    for table in (side, diff):
        for col in ("run", "flow", *(h for h, _, _ in COLUMNS)):
            table.add_column(col, right=col not in ("run", "flow"))
    for r in rows:
        side.add_row(r["entry"], r["flow"], *(cell(r[h], kind) for h, _, kind in COLUMNS))
    for d in diffs:
        diff.add_row(d["entry"], d["flow"], *(MISSING if d[h] is None else f"{d[h]:+.1f} %" for h, _, _ in COLUMNS))
    return side, diff


def compare(
    dirs: Annotated[list[Path], typer.Argument(help="Run directories and/or sweep directories.", metavar="RUN_DIR...")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Where to write the figures.", metavar="DIR")] = Path(
        "out/compare"
    ),
) -> None:
    """Compare runs (simulated, real, kernel) or sweeps side by side.

    Goodput, completion, retransmissions, cwnd and srtt
    (mean, p99), ACK interval and loss side by side, the differences, and overlaid cwnd, srtt, throughput and
    ACK-interval figures in DIR.
    """
    from cclab import compare as cmp

    with user_errors():
        try:
            entries = cmp.load_entries(dirs)
        except cmp.RunDirError as e:
            error(str(e))
            raise typer.Exit(EXIT_INVALID) from None
        rows = cmp.rows(entries)
        written = cmp.plot(entries, out)
    side, diff = tables(rows, cmp.differences(rows))
    show(side, *([diff] if len(entries) > 1 else []), *(str(path) for path in written))
