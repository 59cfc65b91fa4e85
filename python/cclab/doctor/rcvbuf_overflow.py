"""Receive-buffer overflow losses: packets lost at the receiving host, not in a queue on the path.

A queue that overflows first grows, and the RTT with it; a socket buffer overflows when the receiving
application or CPU stalls, whatever the path's queue does. Only the receiving host can tell the two apart:
the rule reads the run summary's ``socket_drops`` (present when the run models a socket buffer). From a
sender's trace alone they cannot be separated: a stall also delays the ACKs, so the RTT around such losses grows
as it does before a queue overflow (tried on model runs with receiver stalls; see docs/doctor.md).

Rule: lost packets ≥ `MIN_LOSSES`, and socket-buffer drops ≥ `SOCKET_SHARE` of them.
"""

from __future__ import annotations

from cclab.doctor import signals
from cclab.doctor.finding import Finding, fmt_s
from cclab.traces.rundir import FlowView

NAME = "rcvbuf-overflow"
SEED = "seed-000"
FIX = (
    "Enlarge the receive socket buffer (SO_RCVBUF), read faster (batching, GRO), or pace below the receiver's "
    "drain rate."
)
#: Fewer losses than this are noise.
MIN_LOSSES = 10
#: Socket drops / lost packets at or above this: the receiver's buffer, not the path, lost most packets.
SOCKET_SHARE = 0.5


def detect(view: FlowView) -> Finding | None:
    """The finding, or None without a summary or when a condition fails."""
    lost = signals.flow_value(view, "lost_packets")
    drops = signals.flow_value(view, "socket_drops")
    if lost is None or drops is None or lost < MIN_LOSSES or drops < SOCKET_SHARE * lost:
        return None
    rtt = signals.min_rtt_s(view)
    srtt = signals.flow_value(view, "srtt_s")
    evidence = [
        ("socket-buffer drops", f"{drops:.0f} ({drops / lost:.0%} of losses)", f"≥ {SOCKET_SHARE:.0%} of losses"),
        ("lost packets", f"{lost:.0f}", f"≥ {MIN_LOSSES}"),
    ]
    if rtt is not None and srtt is not None:
        evidence.append(("srtt / min RTT at the end", f"{fmt_s(srtt)} / {fmt_s(rtt)}", "—"))
    return Finding(
        NAME,
        f"{drops:.0f} packets dropped by the receiver's full socket buffer ({lost:.0f} declared lost)",
        evidence,
        SEED,
        FIX,
    )
