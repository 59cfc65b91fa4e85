"""A sweep's figure: one metric against one swept key, the mean across seeds with its 95 % interval.

Reads ``sweep.parquet`` of a sweep directory. The x axis uses the numeric column of a key with units
(``path.forward.rate_bps`` for ``--x path.forward.rate``); other swept keys give one line each. A metric named
without its ``flows.N.`` prefix (``goodput_bps``) draws one line per flow.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

from cclab.stats import mean_ci
from cclab.sweep import SWEEP_PARQUET, SweepError

if TYPE_CHECKING:
    import polars as pl

#: Display scale and unit for a column's unit suffix.
_DISPLAY = {"_bps": (1e-6, "Mbit/s"), "_s": (1e3, "ms"), "_bytes": (1e-3, "kB")}
#: Columns of a sweep table that are not results.
_NOT_PARAMS = {"run", "seed", "status", "error", "run_hash"}


def _display(column: str) -> tuple[float, str]:
    for suffix, (scale, unit) in _DISPLAY.items():
        if column.endswith(suffix):
            return scale, unit
    return 1.0, ""


def _metric_columns(df: pl.DataFrame, metric: str) -> list[str]:
    if metric in df.columns:
        return [metric]
    found = sorted(c for c in df.columns if c.endswith(f".{metric}") and c.startswith("flows."))
    if not found:
        raise SweepError(f"--y {metric}: no such column in {SWEEP_PARQUET} (e.g. goodput_bps, flows.0.srtt_s)")
    return found


def swept_keys(df: pl.DataFrame) -> list[str]:
    """The swept keys of a sweep table: the columns before ``seed`` other than the run index."""
    cols = df.columns
    head = cols[: cols.index("seed")] if "seed" in cols else []
    return [c for c in head if c not in _NOT_PARAMS]


def plot_sweep(sweep_dir: str | PathLike[str], x: str, y: str, out: str | PathLike[str] | None = None) -> list[Path]:
    """Draw ``y`` against ``x`` (mean and 95 % interval across seeds) into ``out`` (default ``DIR/plots``).

    Raises
    ------
    FileNotFoundError
        No ``sweep.parquet`` in the directory.
    SweepError
        ``x`` is not a swept key or ``y`` is not a column.
    """
    import polars as pl
    from matplotlib.figure import Figure

    src = Path(sweep_dir) / SWEEP_PARQUET
    if not src.is_file():
        raise FileNotFoundError(f"{src}: no such file (run `cclab sweep ... --out {sweep_dir}` first)")
    df = pl.read_parquet(src)
    if "status" in df.columns:
        df = df.filter(pl.col("status") == "ok")
    keys = swept_keys(df)
    if x not in keys:
        raise SweepError(f"--x {x}: not a swept key of this sweep (swept: {', '.join(keys) or 'none'})")
    x_col = next((f"{x}{u}" for u in _DISPLAY if f"{x}{u}" in df.columns), x)
    x_scale, x_unit = _display(x_col) if x_col != x else (1.0, "")
    others = [k for k in keys if k != x]
    fig = Figure(figsize=(7, 4.5))
    ax = fig.add_subplot()
    for col in _metric_columns(df, y):
        y_scale, y_unit = _display(col)
        groups = df.partition_by(others, maintain_order=True, as_dict=False) if others else [df]
        for part in groups:
            xs, means, lows, highs = [], [], [], []
            for xv in part[x_col].unique(maintain_order=True).to_list():
                mean, half, _ = mean_ci(part.filter(pl.col(x_col) == xv)[col].to_list())
                if mean is None:
                    continue
                xs.append(float(xv) * x_scale if x_col != x else xv)
                means.append(mean * y_scale)
                lows.append((mean - (half or 0.0)) * y_scale)
                highs.append((mean + (half or 0.0)) * y_scale)
            tag = ", ".join(f"{k}={part[k][0]}" for k in others)
            label = col if not tag else f"{col} ({tag})"
            (line,) = ax.plot(xs, means, marker="o", linewidth=1.2, label=label)
            ax.fill_between(xs, lows, highs, alpha=0.2, color=line.get_color())
    ax.set_xlabel(f"{x} ({x_unit})" if x_unit else x)
    _, y_unit = _display(y)
    ax.set_ylabel(f"{y} ({y_unit})" if y_unit else y)
    ax.set_title(f"{y} vs {x}: mean and 95 % interval across seeds")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    dest = Path(out) if out is not None else Path(sweep_dir) / "plots"
    dest.mkdir(parents=True, exist_ok=True)
    stem = f"sweep-{y}-vs-{x}".replace("/", "_")
    written = []
    for fmt in ("png", "svg"):
        path = dest / f"{stem}.{fmt}"
        fig.savefig(path, dpi=150)
        written.append(path)
    return written
