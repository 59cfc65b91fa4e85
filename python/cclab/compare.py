"""Comparing runs: a side-by-side table and overlaid figures.

For any run directories — simulated, real or
kernel runs of one scenario (``summary.json`` with ``"mode"``), or sweep directories, whose seeds give a mean
and a 95 % interval.

Every entry is labelled by its directory name and mode (``bulk-sim [sim]``; a sweep adds its swept values).
Fields a run does not have show as ``—``; figures skip the runs without the column.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cclab.many_flows import MANY_FLOWS, SHOWN_FLOWS
from cclab.stats import mean_ci

if TYPE_CHECKING:
    import polars as pl

#: Table columns: (header, how to get the value per run and flow, display kind).
COLUMNS = (
    ("goodput", "goodput_bps", "rate"),
    ("completion", "completion_time_s", "secs"),
    ("retransmissions", "retransmitted_packets", "count"),
    ("cwnd mean", "ts:cwnd_bytes:mean", "bytes"),
    ("cwnd p99", "ts:cwnd_bytes:p99", "bytes"),
    ("srtt mean", "ts:srtt_s:mean", "secs"),
    ("srtt p99", "ts:srtt_s:p99", "secs"),
    ("ACK interval", "ack_interval_mean_s", "secs"),
    ("loss", "loss_rate", "pct"),
)

#: Figures: (file stem, title, y label, display scale, time-series column).
FIGURES = (
    ("cwnd", "Congestion window", "cwnd (kB)", 1e-3, "cwnd_bytes"),
    ("srtt", "Smoothed RTT", "srtt (ms)", 1e3, "srtt_s"),
    ("goodput", "Throughput (bytes acknowledged per interval)", "throughput (Mbit/s)", 1e-6, "throughput_bps"),
    ("ack_interval", "ACK interval (mean per sample interval)", "ACK interval (ms)", 1e3, "ack_interval_s"),
)


@dataclass
class Entry:
    """One compared item: a run, or one parameter combination of a sweep (several seeds)."""

    label: str
    summaries: list[dict[str, Any]]
    """One summary per seed (one for a plain run)."""
    series: list[pl.DataFrame] = field(default_factory=list)
    """Time series per seed that has one, with derived ``throughput_bps`` and ``ack_interval_s`` when known."""


class RunDirError(ValueError):
    """A run directory's files are unreadable, not a run's, or cut short; the message names the file."""


#: Modes whose time series the simulator's writer streams up to the summary's ``sim_time_s`` (an emulate run's
#: series comes from its programs' qlog and may end earlier).
_FULL_SERIES_MODES = ("sim", "real")


def _read_summary(path: Path) -> dict[str, Any]:
    """A run's summary.json: a JSON object with a ``flows`` list, else `RunDirError` naming the file."""
    try:
        summary = json.loads(path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RunDirError(f"{path}: not JSON ({e}); a cut or damaged summary") from None
    if not isinstance(summary, dict) or not isinstance(summary.get("flows"), list):
        raise RunDirError(f"{path}: not a run's summary (no flows list; see docs/outputs.md)")
    return summary


def _check_coverage(series: pl.DataFrame, summary: dict[str, Any], path: Path) -> None:
    """Refuse a series that stops more than two sampling intervals before the run ended.

    Such a file was cut short (a copy, a disk that filled): its means would describe only the start of the run.
    """
    end = summary.get("sim", {}).get("sim_time_s")
    if summary.get("mode", "sim") not in _FULL_SERIES_MODES or not isinstance(end, int | float):
        return
    times = series["time_s"].drop_nulls().unique().sort() if "time_s" in series.columns else None
    if times is None or len(times) < 2:
        return
    interval = float(times[1] - times[0])
    last = float(times[-1])
    if last < end - 2 * interval - 1e-9:
        raise RunDirError(
            f"{path}: its time series ends at {last:g} s but the run at {end:g} s (samples every {interval:g} s): "
            "the file was cut short"
        )


def _read_series(run_dir: Path) -> pl.DataFrame | None:
    from cclab.api import read_timeseries
    from cclab.plot import with_throughput

    df = read_timeseries(run_dir)
    if df is None:
        return None
    df = with_throughput(df)
    return df if "ack_interval_s" in df.columns else _with_ack_intervals(df, run_dir)


def _ack_times(trace: Path) -> list[float]:
    """Times (s) of the ACK packets in a receiver's qlog trace (JSON-SEQ, ms)."""
    import gzip

    times = []
    with trace.open("rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":  # `[output] qlog_compression = "gzip"`
        data = gzip.decompress(data)
    for rec in data.split(b"\x1e"):
        if b"packet_sent" not in rec or b'"ack"' not in rec:
            continue
        try:
            ev = json.loads(rec)
        except ValueError:
            continue
        times.append(float(ev["time"]) / 1e3)
    return times


def _with_ack_intervals(df: pl.DataFrame, run_dir: Path) -> pl.DataFrame:
    """Add ``ack_interval_s`` (mean gap between ACKs sent in each sample interval) from the receiver traces."""
    import numpy as np
    import polars as pl

    parts = []
    for flow in df["flow"].drop_nulls().unique().sort().to_list() if "flow" in df.columns else []:
        names = ("trace-receiver.sqlog", f"trace-receiver-flow{int(flow)}.sqlog")
        traces = [run_dir / (n + gz) for n in names for gz in ("", ".gz")]
        trace = next((t for t in traces if t.is_file()), None)
        part = df.filter(pl.col("flow") == flow)
        if trace is None:
            return df
        acks = np.array(_ack_times(trace))
        edges = part["time_s"].to_numpy()
        gaps = np.diff(acks)
        idx = np.searchsorted(edges, acks[1:], side="left") if len(acks) > 1 else np.array([], dtype=int)
        means = [float(gaps[idx == i].mean()) if np.any(idx == i) else None for i in range(len(edges))]
        parts.append(part.with_columns(pl.Series("ack_interval_s", means, dtype=pl.Float64)))
    return pl.concat(parts) if parts else df


def load_entries(dirs: Sequence[str | PathLike[str]]) -> list[Entry]:
    """One entry per run directory, and one per swept combination of each sweep directory.

    Raises
    ------
    FileNotFoundError
        A directory has neither ``summary.json`` nor ``sweep.parquet``.
    RunDirError
        A run's summary is not a run's summary, or its time series was cut short.
    """
    import polars as pl

    from cclab.sweep import SWEEP_PARQUET
    from cclab.sweep_plot import swept_keys
    from cclab.sweep_store import RUNS

    entries = []
    for d in map(Path, dirs):
        if (d / "summary.json").is_file():
            summary = _read_summary(d / "summary.json")
            series = _read_series(d)
            if series is not None:
                _check_coverage(series, summary, d)
            label = f"{d.name} [{summary.get('mode', 'sim')}]"
            entries.append(Entry(label, [summary], [series] if series is not None else []))
        elif (d / SWEEP_PARQUET).is_file():
            table = pl.read_parquet(d / SWEEP_PARQUET)
            if "status" in table.columns:
                table = table.filter(pl.col("status") == "ok")
            keys = swept_keys(table)
            groups = table.partition_by(keys, maintain_order=True, as_dict=False) if keys else [table]
            for g in groups:
                tag = ", ".join(f"{k}={g[k][0]}" for k in keys)
                summaries, series = [], []
                for h in g["run_hash"].to_list() if "run_hash" in g.columns else []:
                    rd = d / RUNS / h
                    if (rd / "summary.json").is_file():
                        summaries.append(_read_summary(rd / "summary.json"))
                        s = _read_series(rd)
                        if s is not None:
                            series.append(s)
                label = f"{d.name} [sweep{': ' + tag if tag else ''}, {len(summaries)} seeds]"
                entries.append(Entry(label, summaries, series))
        else:
            raise FileNotFoundError(f"{d}: neither summary.json (a run) nor {SWEEP_PARQUET} (a sweep)")
    return entries


def _ts_values(series: pl.DataFrame | None, source: str) -> dict[int, float]:
    """``{flow: value}`` of a ``ts:column:stat`` source over one time series, all flows in one pass."""
    import polars as pl

    _, column, stat = source.split(":")
    if series is None or column not in series.columns:
        return {}
    col = pl.col(column).cast(pl.Float64)
    rows = series.filter(pl.col("flow").is_not_null() & col.is_not_null())
    if column == "srtt_s":
        rows = rows.filter(col > 0)  # 0 = no RTT sample yet
    agg = col.mean() if stat == "mean" else col.quantile(0.99, "nearest")
    per_flow = rows.group_by("flow").agg(agg.alias("v"))
    return {int(f): float(v) for f, v in zip(per_flow["flow"], per_flow["v"], strict=True) if v is not None}


def _summary_values(summary: dict[str, Any], source: str) -> dict[int, float]:
    """``{flow: value}`` of a summary field, for the flows that have a number there."""
    out = {}
    for f in summary.get("flows", []):
        value = f.get(source)
        if isinstance(value, int | float) and not isinstance(value, bool):
            out[int(f.get("flow", 0))] = float(value)
    return out


def rows(entries: Sequence[Entry]) -> list[dict[str, Any]]:
    """Table rows: one per entry and flow, each column ``(mean, half-width of the 95 % interval or None, n)``.

    An entry of more than `MANY_FLOWS` flows gets rows for its first `SHOWN_FLOWS` and one for the median over
    all of its flows (per seed, then averaged), as ``cclab run``'s table shows many flows.
    """
    import statistics

    out = []
    for e in entries:
        flows = sorted({int(f["flow"]) for s in e.summaries for f in s.get("flows", [])})
        names = {}
        for s in e.summaries:
            for f in s.get("flows", []):
                names.setdefault(int(f["flow"]), f.get("name"))
        # Per column and seed: every flow's value, read once.
        values = {
            header: [
                _ts_values(e.series[i] if i < len(e.series) else None, source)
                if source.startswith("ts:")
                else _summary_values(s, source)
                for i, s in enumerate(e.summaries)
            ]
            for header, source, _ in COLUMNS
        }
        many = len(flows) > MANY_FLOWS
        for flow in flows[:SHOWN_FLOWS] if many else flows:
            row: dict[str, Any] = {"entry": e.label, "flow": names.get(flow) or f"flow{flow}"}
            for header, _, _ in COLUMNS:
                row[header] = mean_ci([per_seed.get(flow) for per_seed in values[header]])
            out.append(row)
        if many:
            row = {"entry": e.label, "flow": f"median of {len(flows)} flows"}
            for header, _, _ in COLUMNS:
                medians = [statistics.median(v.values()) if v else None for v in values[header]]
                row[header] = mean_ci(medians)
            out.append(row)
    return out


def differences(table: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each row against the first one of the same flow name: the relative change of every mean, in %."""
    base_by_flow: dict[str, dict[str, Any]] = {}
    out = []
    for row in table:
        base = base_by_flow.setdefault(row["flow"], row)
        if base is row:
            continue
        diff: dict[str, Any] = {"entry": row["entry"], "flow": row["flow"], "against": base["entry"]}
        for header, _, _ in COLUMNS:
            a, b = base[header][0], row[header][0]
            diff[header] = None if a in (None, 0) or b is None else 100.0 * (b - a) / abs(a)
        out.append(diff)
    return out


def plot(entries: Sequence[Entry], dest: Path) -> list[Path]:
    """Overlaid figures (PNG + SVG).

    One line per entry and flow, the mean across seeds with a 95 % band for
    sweeps. A figure nobody has data for is not written.
    """
    import polars as pl
    from matplotlib.figure import Figure

    dest.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, title, ylabel, scale, column in FIGURES:
        fig = Figure(figsize=(8, 4))
        ax = fig.add_subplot()
        drawn = False
        for e in entries:
            frames = [s for s in e.series if column in s.columns]
            if not frames:
                continue
            flows = sorted({int(f) for s in frames for f in s["flow"].drop_nulls().unique().to_list()})
            # Many flows: one line per entry, the median over its flows at each sample (per seed).
            many = len(flows) > MANY_FLOWS
            for flow in [None] if many else flows:
                value = pl.col(column).cast(pl.Float64)
                if column == "srtt_s":
                    value = pl.when(value > 0).then(value)
                if many:
                    per_seed = [
                        s.filter(pl.col("flow").is_not_null()).group_by("time_s").agg(value.median().alias(column))
                        for s in frames
                    ]
                else:
                    per_seed = [s.filter(pl.col("flow") == flow).select("time_s", value.alias(column)) for s in frames]
                agg = pl.concat(per_seed).group_by("time_s").agg(pl.col(column)).sort("time_s")
                stats = [mean_ci(v) for v in agg[column].to_list()]
                t = agg["time_s"].to_numpy()
                mean = [m * scale if m is not None else math.nan for m, _, _ in stats]
                if many:
                    label = f"{e.label} median of {len(flows)} flows"
                else:
                    label = e.label if len(flows) == 1 else f"{e.label} flow {flow}"
                (line,) = ax.plot(t, mean, linewidth=1.0, label=label)
                if len(frames) > 1:
                    lo = [(m - (h or 0)) * scale if m is not None else math.nan for m, h, _ in stats]
                    hi = [(m + (h or 0)) * scale if m is not None else math.nan for m, h, _ in stats]
                    ax.fill_between(t, lo, hi, alpha=0.2, color=line.get_color())
                drawn = True
        if not drawn:
            continue
        ax.set_title(title)
        ax.set_xlabel("time (s)")
        ax.set_ylabel(ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="small")
        fig.tight_layout()
        for fmt in ("png", "svg"):
            path = dest / f"compare-{stem}.{fmt}"
            fig.savefig(path, dpi=150)
            written.append(path)
    return written
