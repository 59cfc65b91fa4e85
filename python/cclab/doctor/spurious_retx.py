"""Spurious retransmissions: packets declared lost that the peer acknowledges afterwards.

RFC 9002 §6.1 declares loss by reordering and time thresholds; packets reordered or delayed beyond them were
never lost, and their retransmission and the cwnd reduction were for nothing (RFC 9002 §6.1.2 suggests
raising the thresholds when this is observed).

Rule (sender trace): packets ACKed after their loss ≥ `MIN_SPURIOUS` and ≥ `MIN_SHARE` of declared losses.
"""

from __future__ import annotations

from cclab.doctor.finding import Finding, Series
from cclab.traces.rundir import FlowView

NAME = "spurious-retransmissions"
SEED = "—"
FIX = (
    "Raise the reordering/time thresholds adaptively (RFC 9002 §6.1; RACK-TLP's reordering window, RFC 8985 "
    "§6.2), or undo the cwnd reduction on a spurious loss."
)
MIN_SPURIOUS = 5
MIN_SHARE = 0.1


def detect(view: FlowView) -> Finding | None:
    """The finding, or None without a sender trace or when a condition fails."""
    tr = view.sender
    if tr is None:
        return None
    n_lost = len(tr.lost["time_s"])
    sp = tr.acked_after_loss["time_s"]
    if len(sp) < MIN_SPURIOUS or len(sp) < MIN_SHARE * n_lost:
        return None
    triggers = {k: tr.lost_triggers.count(k) for k in sorted(set(tr.lost_triggers))}
    return Finding(
        NAME,
        f"{len(sp)} of {n_lost} packets declared lost were acknowledged later",
        [
            (
                "lost then acknowledged",
                f"{len(sp)} ({len(sp) / max(n_lost, 1):.0%} of losses)",
                f"≥ {MIN_SPURIOUS} and ≥ {MIN_SHARE:.0%}",
            ),
            ("loss triggers", ", ".join(f"{k or '?'}: {v}" for k, v in triggers.items()), "—"),
        ],
        SEED,
        FIX,
        [(float(a), float(a)) for a in sp[:200]],
        [
            Series("spurious loss (packet number)", sp, tr.acked_after_loss["pn"], "pn", points=True),
            Series("declared loss", tr.lost["time_s"], tr.lost["pn"], "pn", points=True),
        ],
    )
