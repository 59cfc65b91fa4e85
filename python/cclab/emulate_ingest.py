"""What `cclab emulate` makes of the programs' qlog: the simulator's time series and summary.

The data sender's trace (the one that sent more stream data, `QlogTrace.is_data_sender`) is sampled at the
scenario's interval into ``timeseries.csv`` and ``timeseries.parquet`` with the simulator's flow columns
(carried forward from the last ``metrics_updated``; cumulative bytes from its ``packet_sent`` events), and a
``summary.json`` with ``"mode": "emulate"`` holds what the traces and the emulator can say of flow 0. So
`cclab compare`, `cclab plot` and `cclab doctor` read an emulated third-party run like a simulated one. What the
traces do not carry stays null; nothing is made up.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

#: The flow columns of the simulator's time series that a qlog trace can fill.
FLOW_COLUMNS = (
    "time_s",
    "flow",
    "cwnd_bytes",
    "bytes_in_flight",
    "srtt_s",
    "min_rtt_s",
    "pacing_rate_bps",
    "bytes_sent",
)


def sender_trace(run_dir: Path, files: list[str]) -> Any:
    """The data sender's trace among ``files`` (paths relative to `run_dir`), or None."""
    from cclab.traces.qlog import QlogError, read_qlog

    traces = []
    for name in files:
        try:
            traces.append(read_qlog(run_dir / name))
        except QlogError:
            continue
    senders = [t for t in traces if t.is_data_sender]
    return max(senders, key=lambda t: t.stream_bytes_sent, default=None)


def sample(trace: Any, interval_s: float) -> dict[str, np.ndarray]:
    """The trace's metrics and cumulative sent bytes at every multiple of `interval_s` it spans."""
    m, sent = trace.metrics, trace.sent
    end = max(
        float(m["time_s"][-1]) if len(m.get("time_s", ())) else 0.0,
        float(sent["time_s"][-1]) if len(sent.get("time_s", ())) else 0.0,
    )
    t = np.arange(0.0, end + interval_s / 2, interval_s)
    cols: dict[str, np.ndarray] = {"time_s": t, "flow": np.zeros(len(t))}
    if len(m.get("time_s", ())):
        # The last update at or before each sample time; NaN before the first.
        i = np.searchsorted(m["time_s"], t, side="right") - 1
        for c in ("cwnd_bytes", "bytes_in_flight", "srtt_s", "min_rtt_s", "pacing_rate_bps"):
            v = m.get(c)
            cols[c] = np.where(i >= 0, v[np.clip(i, 0, None)], np.nan) if v is not None else np.full(len(t), np.nan)
    else:
        for c in ("cwnd_bytes", "bytes_in_flight", "srtt_s", "min_rtt_s", "pacing_rate_bps"):
            cols[c] = np.full(len(t), np.nan)
    if len(sent.get("time_s", ())):
        cum = np.cumsum(sent["size"])
        j = np.searchsorted(sent["time_s"], t, side="right")
        cols["bytes_sent"] = np.where(j > 0, cum[np.clip(j - 1, 0, None)], 0.0)
    else:
        cols["bytes_sent"] = np.zeros(len(t))
    return cols


def summary(report: dict[str, Any], trace: Any, scenario: str) -> dict[str, Any]:
    """Build summary.json of an emulated run: flow 0 from the client's report and the sender's trace."""
    client = report.get("client_report") or {}
    emu = report.get("emulator", {})

    def last(column: str) -> float | None:
        v = trace.metrics.get(column) if trace is not None else None
        if v is None or not (~np.isnan(v)).any():
            return None
        return float(v[~np.isnan(v)][-1])

    sent = len(trace.sent.get("time_s", ())) if trace is not None else 0
    lost = len(trace.lost.get("time_s", ())) if trace is not None else 0
    seconds = client.get("seconds")
    flow = {
        "flow": 0,
        "name": "emulated",
        "cc": client.get("cc", ""),
        "ack_policy": "",
        "goodput_bps": client.get("goodput_bps", 0.0),
        "completion_time_s": seconds if report.get("client_exit") == 0 else None,
        "bytes_delivered": client.get("bytes", 0),
        "data_packets_sent": sent,
        "retransmitted_packets": None,
        "lost_packets": lost,
        "min_rtt_s": last("min_rtt_s"),
        "srtt_s": last("srtt_s"),
        "loss_rate": lost / sent if sent else 0.0,
    }
    links = [
        {
            "name": f"path.{d if d == 'forward' else 'return'}",
            "direction": "forward" if d == "forward" else "reverse",
            "drops": emu.get(d, {}).get("drops"),
            "packets": emu.get(d, {}).get("packets_out"),
            "ecn_marks": emu.get(d, {}).get("ecn_marks"),
        }
        for d in ("forward", "return")
    ]
    return {
        "scenario": scenario,
        "seed": None,
        "mode": "emulate",
        "sim": {"wall_s": report.get("wall_s")},
        "flows": [flow],
        "links": links,
        "emulator": {k: v for k, v in emu.items() if k not in ("forward", "return")},
    }


def ingest(run_dir: Path, report: dict[str, Any], interval_s: float) -> list[str]:
    """Write the time series and summary of an emulated run; return the names written."""
    import polars as pl

    trace = sender_trace(run_dir, report.get("qlog_files", []))
    written = []
    if trace is not None:
        df = pl.DataFrame(sample(trace, interval_s)).with_columns(pl.col("flow").cast(pl.UInt32))
        df.write_csv(run_dir / "timeseries.csv")
        df.write_parquet(run_dir / "timeseries.parquet")
        written += ["timeseries.csv", "timeseries.parquet"]
    (run_dir / "summary.json").write_text(
        json.dumps(summary(report, trace, report.get("scenario", "")), indent=2) + "\n"
    )
    return [*written, "summary.json"]
