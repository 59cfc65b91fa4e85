"""Figures from a run's ``timeseries.parquet``: cwnd, bytes in flight, srtt and pacing rate over time.

Uses matplotlib's object API (no pyplot, no global backend state), so it works headless and in worker processes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

from cclab.api import TIMESERIES_PARQUET

if TYPE_CHECKING:
    import polars as pl
    from matplotlib.axes import Axes

#: Image formats written for every figure.
FORMATS = ("png", "svg")


@dataclass(frozen=True)
class Metric:
    """One plotted column and how it is displayed."""

    stem: str
    """Output file name without extension."""
    column: str
    """Time-series column (unit in its name)."""
    title: str
    ylabel: str
    """Axis label, with the display unit."""
    scale: float
    """Display value = column value × scale."""
    zero_is_missing: bool = False
    """The column reads 0 until it has a value (e.g. srtt before the first RTT sample)."""


METRICS = (
    Metric("cwnd", "cwnd_bytes", "Congestion window", "cwnd (kB)", 1e-3),
    Metric("bytes_in_flight", "bytes_in_flight", "Bytes in flight", "bytes in flight (kB)", 1e-3),
    Metric("srtt", "srtt_s", "Smoothed RTT", "srtt (ms)", 1e3, zero_is_missing=True),
    Metric("pacing_rate", "pacing_rate_bps", "Pacing rate", "pacing rate (Mbit/s)", 1e-6),
)


def _draw(ax: Axes, df: pl.DataFrame, metric: Metric) -> None:
    import polars as pl

    flows = df["flow"].drop_nulls().unique().sort().to_list()
    for flow in flows:
        part = df.filter(pl.col("flow") == flow)
        y = part[metric.column].cast(pl.Float64) * metric.scale
        if metric.zero_is_missing:
            y = y.replace(0.0, None)
        ax.plot(part["time_s"].to_numpy(), y.to_numpy(), linewidth=1.0, label=f"flow {flow}")
    ax.set_ylabel(metric.ylabel)
    ax.grid(True, alpha=0.3)
    if len(flows) > 1:
        ax.legend(loc="best", fontsize="small")


def _run_label(run_dir: Path) -> str | None:
    """``scenario (seed N)`` from the run's summary.json, when there is one."""
    try:
        summary = json.loads((run_dir / "summary.json").read_text())
        return f"{summary['scenario']} (seed {summary['seed']})"
    except (OSError, ValueError, KeyError):
        return None


def plot_dir(run_dir: str | PathLike[str], out: str | PathLike[str] | None = None) -> list[Path]:
    """Plot ``run_dir/timeseries.parquet`` into ``out`` (default ``run_dir/plots``).

    Writes one figure per metric plus ``overview`` (all four stacked on one time axis), each as PNG and SVG,
    and returns the written paths.

    Raises
    ------
    FileNotFoundError
        ``run_dir`` has no ``timeseries.parquet``.
    """
    import polars as pl
    from matplotlib.figure import Figure

    src = Path(run_dir) / TIMESERIES_PARQUET
    if not src.is_file():
        raise FileNotFoundError(f"{src}: no such file (run `cclab run SCENARIO --out {run_dir}` first)")
    df = pl.read_parquet(src)
    label = _run_label(Path(run_dir))
    dest = Path(out) if out is not None else Path(run_dir) / "plots"
    dest.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(fig: Figure, stem: str) -> None:
        fig.tight_layout()
        for fmt in FORMATS:
            path = dest / f"{stem}.{fmt}"
            fig.savefig(path, dpi=150)
            written.append(path)

    for metric in METRICS:
        fig = Figure(figsize=(8, 3.5))
        ax = fig.add_subplot()
        _draw(ax, df, metric)
        ax.set_title(f"{metric.title}, {label}" if label else metric.title)
        ax.set_xlabel("time (s)")
        save(fig, metric.stem)

    fig = Figure(figsize=(8, 10))
    axes = fig.subplots(len(METRICS), 1, sharex=True)
    for ax, metric in zip(axes, METRICS, strict=True):
        _draw(ax, df, metric)
    axes[-1].set_xlabel("time (s)")
    if label:
        fig.suptitle(label)
    save(fig, "overview")
    return written
