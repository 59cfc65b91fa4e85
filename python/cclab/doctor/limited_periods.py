"""Application- or flow-control-limited periods: the sender had window to spare but nothing (allowed) to send.

Rate tests read as "the controller is slow" when the flight is capped by the application or by the peer's
flow-control credit (RFC 9000 §4; RFC 7661 on cwnd validation when application-limited).

Rule: after the first RTT sample, bytes in flight ≤ `IDLE_SHARE` × cwnd for at least `MIN_SHARE` of the
samples, in stretches ≥ `MIN_SPAN_RTTS` min RTTs, before the transfer completes.
"""

from __future__ import annotations

import numpy as np

from cclab.doctor import signals
from cclab.doctor.finding import Finding, Series, spans_where
from cclab.traces.rundir import FlowView

NAME = "app-or-flow-control-limited"
SEED = "seed-003"
FIX = (
    "Check the application's write rate and the peer's flow-control windows (initial_max_data / stream data, "
    "SO_SNDBUF/SO_RCVBUF); raise them to at least the BDP."
)
IDLE_SHARE = 0.5
MIN_SHARE = 0.3
MIN_SPAN_RTTS = 4.0


def detect(view: FlowView) -> Finding | None:
    """The finding, or None when a condition fails or a signal is missing."""
    rtt = signals.min_rtt_s(view)
    t, cwnd = signals.metric(view, "cwnd_bytes")
    tf, flight = signals.metric(view, "bytes_in_flight")
    if rtt is None or len(t) < 3 or not len(tf):
        return None
    flight = np.interp(t, tf, flight)
    keep = signals.measured_mask(view, t) & (t <= _active_end(view, t))
    t, cwnd, flight = t[keep], cwnd[keep], flight[keep]
    limited = (flight <= IDLE_SHARE * cwnd) & (cwnd > 0)
    spans = spans_where(t, limited, MIN_SPAN_RTTS * rtt)
    total = float(t[-1] - t[0]) if len(t) > 1 else 0.0
    covered = sum(b - a for a, b in spans)
    if len(t) < 3 or total <= 0 or covered < MIN_SHARE * total:
        return None
    return Finding(
        NAME,
        (
            f"bytes in flight stayed below half of cwnd for {covered / total:.0%} of the transfer: the sender "
            "(application, host or flow control), not cwnd, limited it"
        ),
        [
            (
                "time with flight ≤ ½ cwnd",
                f"{covered:.3g} s of {total:.3g} s ({covered / total:.0%})",
                f"≥ {MIN_SHARE:.0%}",
            ),
            (
                "median flight / cwnd there",
                f"{float(np.median(flight[limited] / cwnd[limited])):.2f}",
                f"≤ {IDLE_SHARE}",
            ),
        ],
        SEED,
        FIX,
        spans,
        [Series("cwnd", t, cwnd, "bytes"), Series("bytes in flight", t, flight, "bytes")],
    )


def _active_end(view: FlowView, t: np.ndarray) -> float:
    """End of the transfer: its completion time when known (the idle tail after it is not a limit)."""
    done = signals.flow_value(view, "completion_time_s")
    return done if done is not None else float(t[-1])
