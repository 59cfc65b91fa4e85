"""PTO storm: probe timeouts fire back to back, each doubling the next (RFC 9002 §6.2.1).

One PTO now and then is a tail loss; several in a row without an ACK between them mean the path or the peer
went silent (a black hole, a dead return path, an MTU problem) and the sender is backing off exponentially.

Rule (sender trace): at least `MIN_PTOS` PTO expiries (``loss_timer_updated`` expired with timer ``pto``, or
losses with trigger ``pto_expired``) in a row with no ACK received between them.
"""

from __future__ import annotations

import numpy as np

from cclab.doctor.finding import Finding, Series, fmt_s
from cclab.traces.rundir import FlowView

NAME = "pto-storm"
SEED = "—"
FIX = (
    "Find why ACKs stop (return-path loss, black-holed packet size, stalled peer); check max_ack_delay vs the "
    "peer's real ACK delay."
)
MIN_PTOS = 3


def detect(view: FlowView) -> Finding | None:
    """The finding, or None without a sender trace or when a condition fails."""
    tr = view.sender
    if tr is None or len(tr.pto_expired_s) < MIN_PTOS:
        return None
    pto = np.unique(tr.pto_expired_s)
    acks = tr.received["time_s"]
    best = run = (0, 0)
    for i in range(1, len(pto) + 1):
        start = run[0] if i > 1 and np.searchsorted(acks, pto[i - 2]) == np.searchsorted(acks, pto[i - 1]) else i - 1
        run = (start, i)
        if run[1] - run[0] > best[1] - best[0]:
            best = run
    n = best[1] - best[0]
    if n < MIN_PTOS:
        return None
    t0, t1 = float(pto[best[0]]), float(pto[best[1] - 1])
    return Finding(
        NAME,
        f"{n} probe timeouts in a row without an ACK ({fmt_s(t0)} … {fmt_s(t1)})",
        [("consecutive PTOs without an ACK", f"{n}", f"≥ {MIN_PTOS}"), ("PTOs in the trace", f"{len(pto)}", "—")],
        SEED,
        FIX,
        [(t0, t1)],
        [Series("PTO expiry", pto, np.arange(1, len(pto) + 1, dtype=float), "count", points=True)],
    )
