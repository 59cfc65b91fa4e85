"""Slow start without a bandwidth jump (seed 002): on a long-RTT path, paced slow start only doubles per RTT.

A packet-train or bandwidth-estimating slow start (picoquic's, HyStart-style probes) should raise cwnd to
about the path's BDP once it measures the bottleneck; when the pacer smooths the sending, ACKs only show the
pacer's own rate and the estimate never jumps: slow start takes log2(BDP / IW) RTTs (seed-002's page).

Rule (time series, or the sender trace's metrics):
- long RTT: min RTT ≥ `LONG_RTT_S`;
- paced: a non-zero pacing rate during slow start (the smoothing that hides the trains);
- no jump: over slow start (up to cwnd's first reduction), cwnd never grows more than `MAX_GROWTH_PER_RTT` × in
  one min RTT to at least `JUMP_BDP` of the BDP (peak delivery rate × min RTT; doubling is 2×, an estimate-driven
  jump lands near the BDP; a large first step that stays far below it, like a long-RTT initial window, is not
  an estimate), and slow start lasts ≥ `MIN_SS_RTTS` RTTs;
- far from ideal: the summary's completion time ≥ `SLOW_COMPLETION` × ideal, ideal = bytes·8 / peak delivery
  rate + 2 × min RTT (handshake and last ACK). A transfer without a completion time (unfinished, or a trace
  without a summary) is not judged: plain doubling is what a slow start without an estimator does anyway, and
  only the cost tells a failed estimate from a slow start that never had one.
"""

from __future__ import annotations

import numpy as np

from cclab.doctor import signals
from cclab.doctor.finding import Finding, Series, fmt_s
from cclab.traces.rundir import FlowView

NAME = "slow-start-no-bandwidth-jump"
SEED = "seed-002"
FIX = (
    "Let the bandwidth estimator see packet trains: pause pacing until a train's worth of credit is due "
    "(picoquic), or send the first RTTs unpaced."
)
#: Paths with a min RTT at least this long (s) are where slow start's RTT count costs seconds.
LONG_RTT_S = 0.1
#: Largest per-RTT growth of cwnd that is still plain doubling (2 per RTT, with some rounding).
MAX_GROWTH_PER_RTT = 3.0
#: A jump must reach this share of the BDP to count as a bandwidth estimate (seed 002's fix reaches 0.5).
JUMP_BDP = 0.1
#: Slow start at least this many RTTs long.
MIN_SS_RTTS = 5
#: completion / ideal at least this.
SLOW_COMPLETION = 1.5


def detect(view: FlowView) -> Finding | None:
    """The finding, or None when a condition fails or a signal is missing."""
    rtt = signals.min_rtt_s(view)
    t, cwnd = signals.metric(view, "cwnd_bytes")
    tp, pacing = signals.metric(view, "pacing_rate_bps")
    if rtt is None or rtt < LONG_RTT_S or len(t) < 3:
        return None
    drop = np.nonzero(np.diff(cwnd) < 0)[0]
    end = int(drop[0]) + 1 if len(drop) else int(np.argmax(cwnd)) + 1
    t_ss, c_ss = t[:end], cwnd[:end]
    if not len(t_ss) or t_ss[-1] - t_ss[0] < MIN_SS_RTTS * rtt:
        return None
    in_ss = (tp >= t_ss[0]) & (tp <= t_ss[-1])
    if not np.any(pacing[in_ss] > 0):
        return None
    _, rate = signals.ts_column(view, "delivery_rate_bps")
    bdp = float(rate.max()) * rtt / 8 if len(rate) else 0.0
    later = np.interp(t_ss + rtt, t_ss, c_ss, right=np.nan)
    ok = ~np.isnan(later) & (c_ss > 0)
    growth = later[ok] / c_ss[ok]
    jumps = (growth > MAX_GROWTH_PER_RTT) & (later[ok] >= JUMP_BDP * bdp)
    if np.any(jumps):
        return None
    peak_growth = float(growth[later[ok] >= JUMP_BDP * bdp].max(initial=0.0))
    ss_rtts = (t_ss[-1] - t_ss[0]) / rtt
    evidence = [
        ("min RTT", fmt_s(rtt), f"≥ {fmt_s(LONG_RTT_S)}"),
        ("pacing during slow start", "yes", "pacing rate > 0"),
        (
            f"largest cwnd growth in one RTT to ≥ {JUMP_BDP:.0%} BDP",
            f"{peak_growth:.2f}×" + (f" (BDP {bdp / 1e6:.3g} MB)" if bdp else ""),
            f"≤ {MAX_GROWTH_PER_RTT:g}× (no jump)",
        ),
        ("slow start length", f"{ss_rtts:.1f} RTTs ({fmt_s(float(t_ss[-1] - t_ss[0]))})", f"≥ {MIN_SS_RTTS} RTTs"),
    ]
    completion = signals.flow_value(view, "completion_time_s")
    size = signals.flow_value(view, "bytes_delivered")
    if completion is None or not size or not bdp:
        return None
    ideal = size * 8 / float(rate.max()) + 2 * rtt
    if completion < SLOW_COMPLETION * ideal:
        return None
    evidence.append(
        (
            "completion / ideal",
            f"{completion:.2f} s / {ideal:.2f} s = {completion / ideal:.2f}",
            f"≥ {SLOW_COMPLETION:g}",
        )
    )
    return Finding(
        NAME,
        (
            f"paced slow start on a {fmt_s(rtt)} path only doubled per RTT for {ss_rtts:.0f} RTTs: no bandwidth "
            "estimate raised cwnd"
        ),
        evidence,
        SEED,
        FIX,
        [(float(t_ss[0]), float(t_ss[-1]))],
        [Series("cwnd", t, cwnd, "bytes")],
    )
