"""Signals the detectors share, each read from the best source a `FlowView` has.

Order of preference: the summary (exact counters), then the time series (sampled), then the qlog traces
(per event). Every function returns None (or empty arrays) when no source has the signal, so a detector
can say "not enough data" instead of guessing.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from cclab.traces.rundir import FlowView

Arr = npt.NDArray[np.float64]
EMPTY: Arr = np.zeros(0)


def flow_value(view: FlowView, key: str) -> float | None:
    """A numeric field of the flow's summary entry, or None."""
    v = (view.flow or {}).get(key)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None


def ts_column(view: FlowView, col: str) -> tuple[Arr, Arr]:
    """(time_s, column) from the time series, or empty arrays."""
    if view.ts is None or col not in view.ts or "time_s" not in view.ts:
        return EMPTY, EMPTY
    return view.ts["time_s"], view.ts[col]


def metric(view: FlowView, col: str) -> tuple[Arr, Arr]:
    """(time_s, values) of a sender metric (`cclab.traces.qlog.METRIC_COLUMNS` names), NaN rows dropped.

    The time series when it has the column (``srtt_s``, ``min_rtt_s``, ``cwnd_bytes``, ``bytes_in_flight``,
    ``pacing_rate_bps``), else the sender's qlog ``metrics_updated`` events.
    """
    t, v = ts_column(view, col)
    if len(t):
        return t, v
    if view.sender is not None and col in view.sender.metrics:
        t, v = view.sender.metrics["time_s"], view.sender.metrics[col]
        ok = ~np.isnan(v)
        return t[ok], v[ok]
    return EMPTY, EMPTY


def measured_mask(view: FlowView, t: Arr) -> npt.NDArray[np.bool_]:
    """True for rows from the first RTT sample on; time-series rows before it carry initial values.

    `t` must be the time series' own ``time_s`` array (as `ts_column` or `metric` return it) to be filtered.
    """
    ts_t, srtt = ts_column(view, "srtt_s")
    if t is ts_t:  # a time-series column, not a qlog one
        return srtt > 0
    return np.ones(len(t), dtype=bool)


def measured(view: FlowView, t: Arr, v: Arr) -> tuple[Arr, Arr]:
    """(t, v) restricted to `measured_mask`."""
    ok = measured_mask(view, t)
    return t[ok], v[ok]


def min_rtt_s(view: FlowView) -> float | None:
    """The flow's minimum RTT: summary, else the smallest positive sample of a series."""
    v = flow_value(view, "min_rtt_s")
    if v is not None and v > 0:
        return v
    for col in ("min_rtt_s", "latest_rtt_s", "srtt_s"):
        _, x = metric(view, col)
        x = x[x > 0]
        if len(x):
            return float(x.min())
    return None


def ack_times_s(view: FlowView) -> Arr:
    """Times of the ACK-only packets of the flow: sent by the receiver (its trace) or received by the sender."""
    if view.receiver is not None and len(view.receiver.sent.get("time_s", ())):
        s = view.receiver.sent
        return s["time_s"][s["ack_only"] > 0]
    if view.sender is not None and len(view.sender.received.get("time_s", ())):
        r = view.sender.received
        return r["time_s"][r["ack_only"] > 0]
    return EMPTY


def ack_interval_p50_s(view: FlowView) -> float | None:
    """Median time between ACKs: the summary's, else from the traces."""
    v = flow_value(view, "ack_interval_p50_s")
    if v is not None:
        return v
    t = ack_times_s(view)
    return float(np.median(np.diff(t))) if len(t) > 2 else None


def max_datagram_bytes(view: FlowView) -> float | None:
    """The sender's packet size: recovery parameters, else the largest data packet it sent."""
    if view.sender is not None:
        v = view.sender.params.get("max_datagram_size")
        if isinstance(v, int | float) and v > 0:
            return float(v)
        sizes = view.sender.sent.get("size", EMPTY)
        if len(sizes) and sizes.max() > 0:
            return float(sizes.max())
    return None


def goodput_bps(view: FlowView) -> float | None:
    """The flow's goodput: the summary's, else stream bytes over the sender trace's duration."""
    v = flow_value(view, "goodput_bps")
    if v is not None:
        return v
    tr = view.sender or view.receiver
    if tr is None:
        return None
    table = tr.sent if tr is view.sender else tr.received
    t = table.get("time_s", EMPTY)
    if len(t) < 2 or t[-1] <= t[0]:
        return None
    return float(table["stream_bytes"].sum() * 8 / (t[-1] - t[0]))
