"""Clock-granularity stall (seed 001): cwnd flat over whole clock ticks of ACKs in congestion avoidance.

A controller that reads time in coarse ticks (FreeBSD's 1 ms ``ticks``) sees the same time for every ACK of a
tick, so a time-based increase (RFC 8312 §4.2's W_est, RFC 9438 §4.2's W_cubic) changes cwnd only at tick
boundaries. Reno-style growth (RFC 5681 §3.1: +1 MSS per cwnd of ACKed data) would have raised it meanwhile.

Rule, over congestion-avoidance stretches between two cwnd changes (the sender's qlog trace; a stretch a loss
interrupts does not count):
- the ACK-weighted median stretch is at least `MIN_ACKS` ACKs long, and
- NewReno would have grown over it: ACKs in the stretch ≥ `RENO_GROWTH` × cwnd/MSS (one ACK per segment
  grows Reno by ~1 MSS per cwnd/MSS ACKs), and
- it lasts at least `MIN_RTTS` × srtt: the clock, not the ACK clock, decides when cwnd moves.
"""

from __future__ import annotations

import itertools

import numpy as np

from cclab.doctor import signals
from cclab.doctor.finding import Finding, Series, fmt_s
from cclab.traces.rundir import FlowView

NAME = "clock-granularity-stall"
SEED = "seed-001"
FIX = (
    "Read time and RTT in µs for the window update (FreeBSD a3aa6f6 and later), or grow W_est per ACK (RFC 9438 §4.3)."
)
#: ACK-weighted median flat stretch at least this many ACKs.
MIN_ACKS = 8
#: The stretch holds at least this many cwnd/MSS worth of ACKs (Reno would have grown ≥ 1 MSS).
RENO_GROWTH = 1.0
#: The stretch lasts at least this many smoothed RTTs.
MIN_RTTS = 4.0


def flat_stretches(view: FlowView) -> list[tuple[float, float, int, float]]:
    """(start_s, end_s, ACKs, cwnd bytes) of each complete flat stretch in congestion avoidance."""
    tr = view.sender
    if tr is None or not len(tr.metrics["time_s"]):
        return []
    acks = tr.received["time_s"][tr.received["ack_only"] > 0]
    mt, cw = tr.metrics["time_s"], tr.metrics["cwnd_bytes"]
    ok = ~np.isnan(cw)
    mt, cw = mt[ok], cw[ok]
    change = np.concatenate(([False], np.diff(cw) != 0))
    change_t = mt[change]
    state_t = np.asarray([s[0] for s in tr.states])
    state_ca = np.asarray([s[1] == "congestion_avoidance" for s in tr.states])
    lost_t = tr.lost["time_s"]
    out = []
    for a, b in itertools.pairwise(change_t):
        k = np.searchsorted(state_t, a, side="right") - 1
        if k < 0 or not state_ca[k] or (k + 1 < len(state_t) and state_t[k + 1] <= b):
            continue
        if np.searchsorted(lost_t, a, side="right") != np.searchsorted(lost_t, b, side="right"):
            continue
        n = int(np.searchsorted(acks, b, side="right") - np.searchsorted(acks, a, side="right"))
        i = np.searchsorted(mt, a, side="right") - 1
        out.append((float(a), float(b), n, float(cw[i])))
    return out


def detect(view: FlowView) -> Finding | None:
    """The finding, or None when a condition fails or the sender trace is missing."""
    runs = flat_stretches(view)
    mss = signals.max_datagram_bytes(view)
    _, srtt = signals.metric(view, "srtt_s")
    srtt = srtt[srtt > 0]
    if len(runs) < 3 or mss is None or not len(srtt):
        return None
    counts = np.asarray([r[2] for r in runs], dtype=float)
    if counts.sum() == 0:
        return None
    weighted = np.repeat(np.arange(len(runs)), counts.astype(int))
    mid = runs[int(weighted[len(weighted) // 2])]
    n, dur, cwnd = mid[2], mid[1] - mid[0], mid[3]
    rtt = float(np.median(srtt))
    reno_acks = RENO_GROWTH * cwnd / mss
    if n < MIN_ACKS or n < reno_acks or dur < MIN_RTTS * rtt:
        return None
    long_runs = [r for r in runs if r[2] >= MIN_ACKS and r[1] - r[0] >= MIN_RTTS * rtt]
    durs = np.asarray([r[1] - r[0] for r in long_runs])
    tr = view.sender
    assert tr is not None
    evidence = [
        ("ACK-weighted median flat stretch in CA", f"{n} ACKs", f"≥ {MIN_ACKS}"),
        ("ACKs Reno needs to grow 1 MSS there", f"{reno_acks:.1f} (cwnd {cwnd:.0f} B / MSS {mss:.0f} B)", "< stretch"),
        (
            "median stretch duration",
            f"{fmt_s(float(np.median(durs)))} = {np.median(durs) / rtt:.0f} × srtt",
            f"≥ {MIN_RTTS:g} × srtt ({fmt_s(rtt)})",
        ),
        ("flat stretches of that kind", f"{len(long_runs)} of {len(runs)}", "—"),
    ]
    return Finding(
        NAME,
        (
            f"cwnd stays flat for {n} ACKs (~{fmt_s(float(np.median(durs)))}) at a time: the window only moves on "
            "clock ticks"
        ),
        evidence,
        SEED,
        FIX,
        [(r[0], r[1]) for r in long_runs[:200]],
        [Series("cwnd", tr.metrics["time_s"], tr.metrics["cwnd_bytes"], "bytes")],
    )
