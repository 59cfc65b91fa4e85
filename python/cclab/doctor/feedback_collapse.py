"""Feedback collapse (seed 004): the receiver stops sending feedback and the nofeedback timer halves the rate.

TFRC (RFC 5348 §4.4) halves the allowed rate X each time the nofeedback timer expires; a run of halvings with
nothing acknowledged in between means the feedback loop is dead, not that the path is congested. In seed 004
the RTT estimate fell below what the window counter can resolve (R/4 < 1 µs, RFC 4342 §8.1), the counter froze,
and the receiver had no reason to send feedback (§10.3).

Rule from the sender's qlog when it records the nofeedback timer (``loss_timer_updated`` ``expired``, timer
``nofeedback``: cclab's CCID-3 sender writes it): at least `MIN_HALVINGS` expiries in a row with no packet
received (no feedback) between the first and the last.

Otherwise, from the time series (``pacing_rate_bps`` is the sender's allowed rate, ``bytes_acked`` the feedback),
where the expiries are inferred from their effect:
- at least `MIN_HALVINGS` consecutive drops of the rate by a factor in `HALVING` (nofeedback expiries), with
- no increase of ``bytes_acked`` between the first and the last of them (no feedback in between).
Evidence adds the RTT estimate at the collapse; below `TINY_RTT_S` it is reported as the likely cause.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from cclab.doctor import signals
from cclab.doctor.finding import Finding, Series, fmt_bps, fmt_s
from cclab.traces.qlog import QlogTrace
from cclab.traces.rundir import FlowView

NAME = "feedback-collapse"
SEED = "seed-004"
FIX = (
    "Keep feedback flowing: clamp RTT samples to a sane minimum (Linux DCCP_SANE_RTT_MIN, 100 µs) so the window "
    "counter advances; check the receiver's feedback trigger."
)
#: Consecutive halvings without feedback that make a collapse (one could be a real nofeedback after a burst).
MIN_HALVINGS = 3
#: new / old rate of one nofeedback expiry (RFC 5348 §4.4 step 2: X / 2, allowing for the s/t_mbi floor steps).
HALVING = (0.4, 0.6)
#: An RTT estimate below this (s) is below what a µs window counter can divide by 4.
TINY_RTT_S = 4e-6


def detect(view: FlowView) -> Finding | None:
    """The finding, or None without nofeedback records or a time series, or when a condition fails."""
    if view.sender is not None and len(view.sender.nofeedback_expired_s):
        return _from_expiries(view)
    t, x = signals.ts_column(view, "pacing_rate_bps")
    _, acked = signals.ts_column(view, "bytes_acked")
    if len(t) < MIN_HALVINGS + 1 or len(acked) != len(t):
        return None
    change = np.nonzero(np.diff(x) != 0)[0] + 1
    best: list[int] = []
    run: list[int] = []
    for i in change:
        prev = x[i - 1]
        halved = prev > 0 and HALVING[0] <= x[i] / prev <= HALVING[1]
        if halved and (not run or acked[i] == acked[run[0]]):
            run.append(int(i))
        else:
            run = [int(i)] if halved else []
        if len(run) > len(best):
            best = list(run)
    if len(best) < MIN_HALVINGS:
        return None
    t0, t1 = float(t[best[0]]), float(t[best[-1]])
    _, srtt = signals.ts_column(view, "srtt_s")
    r = float(srtt[best[0] - 1]) if len(srtt) == len(t) else float("nan")
    evidence = [
        ("consecutive rate halvings without feedback", f"{len(best)} ({fmt_s(t0)} … {fmt_s(t1)})", f"≥ {MIN_HALVINGS}"),
        ("rate before → after", f"{fmt_bps(float(x[best[0] - 1]))} → {fmt_bps(float(x[best[-1]]))}", "—"),
        ("bytes acknowledged during the halvings", "0 more", "none"),
        (
            "RTT estimate at the collapse",
            fmt_s(r),
            f"< {fmt_s(TINY_RTT_S)}: below the window counter's resolution" if r < TINY_RTT_S else "—",
        ),
    ]
    cause = " with an RTT estimate of " + fmt_s(r) if r < TINY_RTT_S else ""
    return Finding(
        NAME,
        f"the rate halved {len(best)} times in a row with no feedback{cause}: the feedback loop is dead",
        evidence,
        SEED,
        FIX,
        [(t0, t1)],
        [Series("allowed rate X", t, x, "bit/s")],
    )


def _from_expiries(view: FlowView) -> Finding | None:
    tr = view.sender
    assert tr is not None
    expired = tr.nofeedback_expired_s
    fed = tr.received.get("time_s", np.zeros(0))
    # Feedback received up to each expiry: two expiries with the same count had none between them.
    counts = np.searchsorted(fed, expired, side="right")
    best = (0, 0)
    start = 0
    for i in range(1, len(expired) + 1):
        if i == len(expired) or counts[i] != counts[start]:
            if i - start > best[1] - best[0]:
                best = (start, i)
            start = i
    n = best[1] - best[0]
    if n < MIN_HALVINGS:
        return None
    t0, t1 = float(expired[best[0]]), float(expired[best[1] - 1])
    # The trace's own metrics, at the expiries' times (a time series samples them later).
    t_x, x = _trace_metric(tr, "pacing_rate_bps")
    t_r, srtt = _trace_metric(tr, "srtt_s")
    r = float(srtt[np.searchsorted(t_r, t0, side="right") - 1]) if len(t_r) and t_r[0] <= t0 else float("nan")
    evidence = [
        ("nofeedback expiries in a row, no feedback between", f"{n} ({fmt_s(t0)} … {fmt_s(t1)})", f"≥ {MIN_HALVINGS}"),
        ("packets received during them", "0", "none"),
        (
            "RTT estimate at the collapse",
            fmt_s(r),
            f"< {fmt_s(TINY_RTT_S)}: below the window counter's resolution" if r < TINY_RTT_S else "—",
        ),
    ]
    if len(t_x) and t_x[0] <= t0:
        before = float(x[np.searchsorted(t_x, t0, side="left") - 1]) if t_x[0] < t0 else float(x[0])
        after = float(x[np.searchsorted(t_x, t1, side="right") - 1])
        evidence.insert(2, ("allowed rate before → after", f"{fmt_bps(before)} → {fmt_bps(after)}", "—"))
    cause = " with an RTT estimate of " + fmt_s(r) if r < TINY_RTT_S else ""
    series = [Series("nofeedback expiry", expired, np.ones_like(expired), "expiries", points=True)]
    if len(t_x):
        series.insert(0, Series("allowed rate X", t_x, x, "bit/s"))
    return Finding(
        NAME,
        f"the nofeedback timer expired {n} times in a row with no feedback{cause}: the feedback loop is dead",
        evidence,
        SEED,
        FIX,
        [(t0, t1)],
        series,
    )


def _trace_metric(tr: QlogTrace, col: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    t, v = tr.metrics.get("time_s", np.zeros(0)), tr.metrics.get(col, np.zeros(0))
    ok = ~np.isnan(v)
    return t[ok], v[ok]
