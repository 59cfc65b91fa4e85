"""Bufferbloat: a standing queue that keeps the smoothed RTT far above the path's minimum for long.

Rule: over the measured samples, srtt ≥ `BLOAT_RATIO` × min RTT and srtt − min RTT ≥ `MIN_EXCESS_S` for at
least `MIN_SHARE` of the run, in stretches of at least `MIN_SPAN_S` (RFC 8290's CoDel target/interval logic:
a queue that does not drain within 100 ms intervals is standing; 2 × min RTT is a BDP of queue).
"""

from __future__ import annotations

import numpy as np

from cclab.doctor import signals
from cclab.doctor.finding import Finding, Series, fmt_s, spans_where
from cclab.traces.rundir import FlowView

NAME = "bufferbloat"
SEED = "—"
FIX = (
    "Shrink the bottleneck buffer or run AQM there (CoDel/FQ-CoDel, RFC 8290; PIE, RFC 8033), or use a "
    "delay-aware controller (BBR)."
)
BLOAT_RATIO = 2.0
#: Ignore inflation smaller than this (s): a few ms of queue is no one's problem.
MIN_EXCESS_S = 5e-3
MIN_SHARE = 0.5
MIN_SPAN_S = 0.1


def detect(view: FlowView) -> Finding | None:
    """The finding, or None when a condition fails."""
    rtt = signals.min_rtt_s(view)
    t, srtt = signals.measured(view, *signals.metric(view, "srtt_s"))
    if rtt is None or len(t) < 3:
        return None
    ok = srtt > 0
    t, srtt = t[ok], srtt[ok]
    bloated = (srtt >= BLOAT_RATIO * rtt) & (srtt - rtt >= MIN_EXCESS_S)
    spans = spans_where(t, bloated, MIN_SPAN_S)
    covered = sum(b - a for a, b in spans)
    total = float(t[-1] - t[0]) if len(t) > 1 else 0.0
    if total <= 0 or covered < MIN_SHARE * total:
        return None
    return Finding(
        NAME,
        (
            f"srtt stayed ≥ {BLOAT_RATIO:g}× min RTT for {covered / total:.0%} of the run (median "
            f"{fmt_s(float(np.median(srtt)))} vs {fmt_s(rtt)})"
        ),
        [
            ("min RTT", fmt_s(rtt), "—"),
            ("median srtt", fmt_s(float(np.median(srtt))), f"≥ {BLOAT_RATIO:g} × min RTT and +{fmt_s(MIN_EXCESS_S)}"),
            ("time bloated", f"{covered:.3g} s of {total:.3g} s ({covered / total:.0%})", f"≥ {MIN_SHARE:.0%}"),
        ],
        SEED,
        FIX,
        spans,
        [Series("srtt", t, srtt, "s"), Series("min RTT", t, np.full_like(t, rtt), "s")],
    )
