"""Figures from a run's time series (``timeseries.parquet``, else ``timeseries.csv``).

Cwnd, bytes in flight, srtt, pacing rate and throughput over
time, plus queue, capacity and utilisation panels when the time series has link rows (``link`` column). With more
than `MANY_FLOWS` flows a flow panel draws the first `SHOWN_FLOWS` of them and the spread over all (median and
min–max band at each sample), as ``cclab run``'s table does: a line and a legend entry for each of a thousand
flows took over a minute per figure and could not be read.

Uses matplotlib's object API (no pyplot, no global backend state), so it works headless and in worker processes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cclab.api import read_timeseries
from cclab.many_flows import MANY_FLOWS, SHOWN_FLOWS

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


#: Derived column: bytes acknowledged per sampling interval times 8 over the interval, per flow.
THROUGHPUT = "throughput_bps"

METRICS = (
    Metric("cwnd", "cwnd_bytes", "Congestion window", "cwnd (kB)", 1e-3),
    Metric("bytes_in_flight", "bytes_in_flight", "Bytes in flight", "bytes in flight (kB)", 1e-3),
    Metric("srtt", "srtt_s", "Smoothed RTT", "srtt (ms)", 1e3, zero_is_missing=True),
    Metric("pacing_rate", "pacing_rate_bps", "Pacing rate", "pacing rate (Mbit/s)", 1e-6, zero_is_missing=True),
    Metric("throughput", THROUGHPUT, "Throughput (bytes acknowledged per interval)", "throughput (Mbit/s)", 1e-6),
)


#: Link columns drawn when the time series has link rows (a ``link`` column; ``flow`` is null there).
LINK_METRICS = (
    Metric("queue", "queue_bytes", "Queue", "queue (kB)", 1e-3),
    Metric("capacity", "capacity_bps", "Capacity", "capacity (Mbit/s)", 1e-6),
    Metric("utilisation", "utilisation", "Link utilisation", "utilisation (0..1)", 1.0),
)


def link_metrics(columns: list[str]) -> list[Metric]:
    """The link panels this time series can fill: none unless it has link rows and the column."""
    return [m for m in LINK_METRICS if "link" in columns and m.column in columns]


def flow_labels(summary: Mapping[str, Any] | None) -> dict[int, str]:
    """``{flow id: "name (cc, ACK policy)"}`` from a summary; flows it does not name get ``flow N``."""
    labels = {}
    for f in (summary or {}).get("flows", []):
        parts = [p for p in (f.get("cc"), f.get("ack_policy")) if p]
        name = f.get("name") or f"flow {f.get('flow')}"
        labels[int(f.get("flow", 0))] = f"{name} ({', '.join(parts)})" if parts else name
    return labels


def with_throughput(df: pl.DataFrame) -> pl.DataFrame:
    """Add `THROUGHPUT`: per flow, the growth of ``bytes_acked`` between samples × 8 / the time between them."""
    import polars as pl

    if "bytes_acked" not in df.columns:
        return df
    rate = (pl.col("bytes_acked").diff() * 8 / pl.col("time_s").diff()).over("flow")
    df = df.sort("flow", "time_s", maintain_order=True, nulls_last=True)
    return df.with_columns(pl.when(pl.col("flow").is_not_null()).then(rate.fill_null(0.0)).alias(THROUGHPUT))


def draw(ax: Axes, df: pl.DataFrame, metric: Metric, labels: Mapping[int, str], prefix: str = "") -> None:
    """Draw ``metric`` on ``ax``: one line per flow, or per link for a link metric.

    With more than `MANY_FLOWS` flows: the first `SHOWN_FLOWS`, and the spread over all of them.
    """
    import polars as pl

    by = "link" if metric in LINK_METRICS else "flow"
    rows = df.filter(pl.col(by).is_not_null()) if by in df.columns else df
    value = pl.col(metric.column).cast(pl.Float64) * metric.scale
    if metric.zero_is_missing:
        value = pl.when(value == 0.0).then(None).otherwise(value)
    rows = rows.with_columns(value.alias("_y"))
    # One pass splits the rows by key (a filter per key read every row once per flow).
    parts = rows.partition_by(by, maintain_order=True, as_dict=True) if by in rows.columns else {(None,): rows}
    keys = sorted(parts, key=lambda k: (k[0] is None, k[0]))
    many = by == "flow" and len(keys) > MANY_FLOWS
    for (key,) in keys[:SHOWN_FLOWS] if many else keys:
        part = parts[(key,)]
        if by == "link":
            label = str(key)
        else:
            label = labels.get(int(key), f"flow {int(key)}") if key is not None else metric.column
        ax.plot(part["time_s"].to_numpy(), part["_y"].to_numpy(), linewidth=1.0, label=f"{prefix}{label}")
    if many:
        spread = (
            rows.group_by("time_s")
            .agg(pl.col("_y").min().alias("lo"), pl.col("_y").median().alias("mid"), pl.col("_y").max().alias("hi"))
            .sort("time_s")
        )
        t = spread["time_s"].to_numpy()
        ax.fill_between(
            t,
            spread["lo"].to_numpy(),
            spread["hi"].to_numpy(),
            alpha=0.25,
            color="grey",
            label=f"{prefix}min–max over all {len(keys)} flows",
        )
        ax.plot(
            t,
            spread["mid"].to_numpy(),
            color="black",
            linewidth=1.2,
            label=f"{prefix}median over all {len(keys)} flows",
        )
    ax.set_ylabel(metric.ylabel)
    ax.grid(True, alpha=0.3)


def _read_summary(run_dir: Path) -> dict[str, Any] | None:
    try:
        summary: dict[str, Any] = json.loads((run_dir / "summary.json").read_text())
        return summary
    except (OSError, ValueError):
        return None


def plot_dir(run_dir: str | PathLike[str], out: str | PathLike[str] | None = None) -> list[Path]:
    """Plot ``run_dir``'s time series into ``out`` (default ``run_dir/plots``).

    Reads ``timeseries.parquet``, else ``timeseries.csv`` (`cclab.api.read_timeseries`). Writes one figure per
    metric plus ``overview`` (all stacked on one time axis), each as PNG and SVG, and returns the written paths.

    Raises
    ------
    FileNotFoundError
        ``run_dir`` has neither ``timeseries.parquet`` nor ``timeseries.csv``.
    """
    df = read_timeseries(run_dir)
    if df is None:
        raise FileNotFoundError(
            f"{run_dir}: no timeseries.parquet or timeseries.csv (run `cclab run SCENARIO --out {run_dir}` first)"
        )
    dest = Path(out) if out is not None else Path(run_dir) / "plots"
    return plot_frame(df, dest, _read_summary(Path(run_dir)))


def plot_frame(df: pl.DataFrame, dest: Path, summary: Mapping[str, Any] | None = None) -> list[Path]:
    """Plot a run's time series into ``dest``; `plot_dir` without the file reading."""
    from matplotlib.figure import Figure

    df = with_throughput(df)
    labels = flow_labels(summary)
    label = f"{summary['scenario']} (seed {summary['seed']})" if summary and "scenario" in summary else None
    metrics = [m for m in METRICS if m.column in df.columns] + link_metrics(df.columns)
    dest.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(fig: Figure, stem: str) -> None:
        fig.tight_layout()
        for fmt in FORMATS:
            path = dest / f"{stem}.{fmt}"
            fig.savefig(path, dpi=150)
            written.append(path)

    flows = df["flow"].drop_nulls().n_unique() if "flow" in df.columns else 0
    for metric in metrics:
        fig = Figure(figsize=(8, 3.5))
        ax = fig.add_subplot()
        draw(ax, df, metric, labels)
        ax.set_title(f"{metric.title}, {label}" if label else metric.title)
        ax.set_xlabel("time (s)")
        ax.legend(loc="best", fontsize="small")
        save(fig, metric.stem)

    fig = Figure(figsize=(8, 2.2 * len(metrics) + 1))
    axes = fig.subplots(len(metrics), 1, sharex=True, squeeze=False)[:, 0]
    for ax, metric in zip(axes, metrics, strict=True):
        draw(ax, df, metric, labels)
        # Several flows: a legend on each panel; many: on the first (the same entries) and the link panels.
        if 1 < flows <= MANY_FLOWS or metric in LINK_METRICS:
            ax.legend(loc="best", fontsize="small")
    axes[0].legend(loc="best", fontsize="small")
    axes[-1].set_xlabel("time (s)")
    if label:
        fig.suptitle(label)
    save(fig, "overview")
    return written
