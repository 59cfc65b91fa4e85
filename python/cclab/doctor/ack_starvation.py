"""ACK starvation (seed 000): ACKs so rare on a low-RTT path that the window, not the path, sets the rate.

Rule (all must hold):
- low-RTT path: min RTT ≤ `LOW_RTT_S` (1 ms: loopback and LAN, where an ACK timer of 1 ms is many RTTs);
- ACK interval ≫ min RTT: median ACK interval ≥ `INTERVAL_RTTS` × min RTT;
- the sender asked for a gap above `MAX_GAP` packets (ACK_FREQUENCY's ack_eliciting_threshold, when the trace
  has the frames; draft-ietf-quic-ack-frequency §4; picoquic PR #1764 caps it at 32), or, with no trace, the
  median ACK interval is at least `TIMER_INTERVAL_S` (the peer ACKs on its delay timer, not on a count);
- rate ≈ cwnd / ACK interval: over `WINDOW_BOUND_SHARE` of the measured samples, the delivery rate is at least
  `WINDOW_BOUND_RATIO` × cwnd·8 / ACK interval (the window drains within one ACK interval, so the sender waits
  for the next ACK: the rate is the window per ACK interval).
"""

from __future__ import annotations

import numpy as np

from cclab.doctor import signals
from cclab.doctor.finding import Finding, Series, fmt_bps, fmt_s, spans_where
from cclab.traces.rundir import FlowView

NAME = "ack-starvation"
SEED = "seed-000"
FIX = (
    "Cap the ACK-frequency gap (e.g. 32 packets when min RTT < 4 × ACK delay, picoquic PR #1764) or lower the "
    "peer's max ACK delay."
)
#: A path whose min RTT is at most this is "low-RTT" (s).
LOW_RTT_S = 1e-3
#: ACK interval / min RTT above which ACKs are starved.
INTERVAL_RTTS = 10.0
#: The largest ACK gap (packets) that is not a starvation by itself (picoquic's cap after PR #1764).
MAX_GAP = 32
#: Without ACK_FREQUENCY frames: an ACK interval this long means the peer ACKs on its timer (s).
TIMER_INTERVAL_S = 0.5e-3
#: delivery rate ≥ this times cwnd·8 / ACK interval counts as window-bound.
WINDOW_BOUND_RATIO = 0.5
#: Share of the measured samples that must be window-bound.
WINDOW_BOUND_SHARE = 0.25


def detect(view: FlowView) -> Finding | None:
    """The finding, or None when a condition fails or a signal is missing."""
    rtt = signals.min_rtt_s(view)
    interval = signals.ack_interval_p50_s(view)
    if rtt is None or interval is None or rtt > LOW_RTT_S or interval < INTERVAL_RTTS * rtt:
        return None
    gap = None
    if view.sender is not None and len(view.sender.ack_frequency["threshold"]):
        gap = float(view.sender.ack_frequency["threshold"].max())
        if gap <= MAX_GAP:
            return None
    elif interval < TIMER_INTERVAL_S:
        return None
    t, cwnd = signals.metric(view, "cwnd_bytes")
    _, rate = signals.ts_column(view, "delivery_rate_bps")
    if not len(t) or len(rate) != len(t):
        return None
    ok = signals.measured_mask(view, t)
    t, cwnd, rate = t[ok], cwnd[ok], rate[ok]
    if not len(t):
        return None
    bound = cwnd * 8 / interval
    window_bound = (rate >= WINDOW_BOUND_RATIO * bound) & (rate > 0)
    share = float(window_bound.mean())
    if share < WINDOW_BOUND_SHARE:
        return None
    ratio = float(np.median(rate[window_bound] / bound[window_bound]))
    evidence = [
        ("min RTT", fmt_s(rtt), f"≤ {fmt_s(LOW_RTT_S)}"),
        (
            "median ACK interval",
            f"{fmt_s(interval)} ({interval / rtt:.0f} × min RTT)",
            f"≥ {INTERVAL_RTTS:g} × min RTT",
        ),
        (
            "largest ACK gap requested",
            f"{gap:.0f} packets" if gap is not None else "no ACK_FREQUENCY in trace",
            f"> {MAX_GAP}" if gap is not None else f"interval ≥ {fmt_s(TIMER_INTERVAL_S)}",
        ),
        (
            "samples with rate ≈ cwnd / ACK interval",
            f"{share:.0%} (median ratio {ratio:.2f})",
            f"≥ {WINDOW_BOUND_SHARE:.0%} at ≥ {WINDOW_BOUND_RATIO}",
        ),
        ("goodput", fmt_bps(signals.goodput_bps(view) or 0.0), "—"),
    ]
    return Finding(
        NAME,
        f"ACKs every {fmt_s(interval)} on a {fmt_s(rtt)} path: the rate is cwnd per ACK interval, not the path's",
        evidence,
        SEED,
        FIX,
        spans_where(t, window_bound, min_len_s=5 * interval),
        [
            Series("delivery rate", t, rate, "bit/s"),
            Series("cwnd·8 / ACK interval", t, bound, "bit/s"),
        ],
    )
