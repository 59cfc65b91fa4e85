"""Pacing rate ≫ delivery rate: the pacer allows far more than the path delivers, so it does not pace.

A pacer set well above the delivery rate sends in bursts the bottleneck must queue (RFC 9002 §7.7 recommends
a pacing rate of about cwnd/srtt × 1.25; BBR paces at the estimated bandwidth × gain ≤ 2.89 only in startup).

Rule (time series): after slow start (from cwnd's first reduction; in slow start the delivery rate lags the
doubling window by an RTT) and before completion, with both rates positive, pacing rate ≥ `EXCESS` × delivery
rate for at least `MIN_SHARE` of that time, in stretches ≥ `MIN_SPAN_S`.
"""

from __future__ import annotations

import numpy as np

from cclab.doctor import signals
from cclab.doctor.finding import Finding, Series, fmt_bps, spans_where
from cclab.traces.rundir import FlowView

NAME = "pacing-exceeds-delivery"
SEED = "—"
FIX = (
    "Derive the pacing rate from the delivery rate (BBR) or cwnd/srtt with a small gain (RFC 9002 §7.7); check "
    "that pacing is not left at its initial value."
)
#: Pacing / delivery above this (BBR's startup gain 2.89 rounded up: even startup stays under it).
EXCESS = 3.0
MIN_SHARE = 0.5
MIN_SPAN_S = 0.1


def detect(view: FlowView) -> Finding | None:
    """The finding, or None without the two rate columns or when a condition fails."""
    t, pacing = signals.ts_column(view, "pacing_rate_bps")
    _, rate = signals.ts_column(view, "delivery_rate_bps")
    if len(t) < 3 or len(rate) != len(t):
        return None
    _, cwnd = signals.ts_column(view, "cwnd_bytes")
    cut = np.nonzero(np.diff(cwnd) < 0)[0]
    if not len(cut):
        return None
    done = signals.flow_value(view, "completion_time_s")
    ok = (t > t[cut[0]]) & (t <= (done if done is not None else t[-1])) & (pacing > 0) & (rate > 0)
    if ok.sum() < 3:
        return None
    excess = ok & (pacing >= EXCESS * rate)
    spans = spans_where(t, excess, MIN_SPAN_S)
    covered = sum(b - a for a, b in spans)
    total = float(t[ok][-1] - t[ok][0])
    if total <= 0 or covered < MIN_SHARE * total:
        return None
    ratio = float(np.median(pacing[excess] / rate[excess]))
    return Finding(
        NAME,
        f"the pacing rate was {ratio:.1f}× the delivery rate for {covered / total:.0%} of the run",
        [
            ("median pacing / delivery where excessive", f"{ratio:.1f}×", f"≥ {EXCESS:g}×"),
            ("time excessive", f"{covered:.3g} s of {total:.3g} s", f"≥ {MIN_SHARE:.0%}"),
            (
                "median pacing, delivery",
                f"{fmt_bps(float(np.median(pacing[ok])))}, {fmt_bps(float(np.median(rate[ok])))}",
                "—",
            ),
        ],
        SEED,
        FIX,
        spans,
        [Series("pacing rate", t, pacing, "bit/s"), Series("delivery rate", t, rate, "bit/s")],
    )
