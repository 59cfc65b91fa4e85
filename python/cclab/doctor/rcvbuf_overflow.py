"""Receive-buffer overflow losses: packets lost at the receiving host, not in a queue on the path.

A queue that overflows first grows, and the RTT with it; a socket buffer that overflows because the receiving
application or CPU stalls drops packets while the path's RTT stays at its minimum.

Rule: losses ≥ `MIN_LOSSES`, and either
- with a run summary: it counts socket drops (``socket_drops``, present when the run modelled a socket buffer)
  for at least `SOCKET_SHARE` of the lost packets; or
- with traces only: at ≥ `FLAT_SHARE` of the loss events the latest RTT (else srtt) was ≤ `NO_QUEUE` × min RTT,
  and at least `BURST_SHARE` of the lost packets have another lost packet within `BURST_PN` packet numbers (an
  overflowing buffer drops runs of packets; random wire loss, which also leaves the RTT flat, drops isolated ones).
"""

from __future__ import annotations

import numpy as np

from cclab.doctor import signals
from cclab.doctor.finding import Finding, Series
from cclab.traces.rundir import FlowView

NAME = "rcvbuf-overflow"
SEED = "seed-000"
FIX = "Enlarge the receive socket buffer (SO_RCVBUF), read faster (batching, GRO), or pace below the receiver's drain rate."
MIN_LOSSES = 10
SOCKET_SHARE = 0.5
FLAT_SHARE = 0.8
#: RTT within this factor of the min RTT means no standing queue.
NO_QUEUE = 1.25
BURST_SHARE = 0.5
BURST_PN = 2


def detect(view: FlowView) -> Finding | None:
    """The finding, or None when a condition fails."""
    lost = signals.flow_value(view, "lost_packets")
    drops = signals.flow_value(view, "socket_drops")
    if view.flow is not None:
        if lost is None or drops is None or lost < MIN_LOSSES or drops < SOCKET_SHARE * lost:
            return None
        return Finding(
            NAME,
            f"{drops:.0f} packets dropped by the receiver's full socket buffer ({lost:.0f} declared lost)",
            [
                ("socket-buffer drops", f"{drops:.0f}", f"≥ {SOCKET_SHARE:.0%} of losses"),
                ("lost packets", f"{lost:.0f}", f"≥ {MIN_LOSSES}"),
            ],
            SEED,
            FIX,
        )
    if view.sender is None or len(view.sender.lost["time_s"]) < MIN_LOSSES:
        return None
    rtt = signals.min_rtt_s(view)
    t, lat = signals.metric(view, "latest_rtt_s")
    if not len(t):
        t, lat = signals.metric(view, "srtt_s")
    if rtt is None or not len(t):
        return None
    lt = view.sender.lost["time_s"]
    idx = np.clip(np.searchsorted(t, lt, side="right") - 1, 0, len(t) - 1)
    flat = lat[idx] <= NO_QUEUE * rtt
    pn = np.sort(view.sender.lost["pn"])
    gaps = np.diff(pn)
    near = np.zeros(len(pn), dtype=bool)
    near[1:] |= gaps <= BURST_PN
    near[:-1] |= gaps <= BURST_PN
    if flat.mean() < FLAT_SHARE or near.mean() < BURST_SHARE:
        return None
    return Finding(
        NAME,
        f"{len(lt)} losses while the RTT stayed at its minimum: drops at an end host, not in a path queue",
        [
            (f"losses with RTT ≤ {NO_QUEUE:g} × min RTT", f"{flat.mean():.0%} of {len(lt)}", f"≥ {FLAT_SHARE:.0%}"),
            (f"lost packets within {BURST_PN} of another", f"{near.mean():.0%}", f"≥ {BURST_SHARE:.0%}"),
        ],
        SEED,
        FIX,
        [(float(a), float(a)) for a in lt[:200]],
        [Series("RTT", t, lat, "s"), Series("loss", lt, lat[idx], "s", points=True)],
    )
