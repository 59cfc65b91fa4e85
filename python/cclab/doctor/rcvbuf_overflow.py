"""Receive-buffer overflow losses: packets lost at the receiving host, not in a queue on the path.

A queue that overflows first grows, and the RTT with it; a socket buffer overflows when the receiving
application or CPU stalls, whatever the path's queue does.

Rule with a run summary: lost packets ≥ `MIN_LOSSES`, and socket-buffer drops ≥ `SOCKET_SHARE` of them.

Rule from the sender's trace alone, for the overflow a receiver stall causes: while the receiver does not run,
the packets that reach it wait in its buffer unacknowledged and the ones after them that do not fit are dropped;
when it runs again it drains the buffer at CPU speed. The sender sees, for the packets it sent just before each
loss burst, an ACK silence and then ACKs packed far closer than any path queue releases them (a queue serves
at its link's rate, so the ACKs of the data in it are never closer than that link spaces them). Conditions:
- lost packets ≥ `MIN_LOSSES`; loss episodes are losses whose send times are within a min RTT of each other;
- episodes holding ≥ `SOCKET_SHARE` of the losses are stalled: among the ACKs of the data sent in the half
  min RTT before the episode's first loss, one gap ≥ `SILENCE` × the run's median ACK gap and ≥ `PACKED`
  gaps ≤ `PACKED_GAP` × it;
- packed gaps are rare elsewhere (≤ `PACKED_SHARE` of all gaps): receive batching (GRO) or ACK aggregation
  packs ACKs everywhere, and then proves nothing.
A receiver that is slow but never stops is a short drop-tail queue at its CPU's rate: a trace cannot tell it
from a short queue on the path (docs/doctor.md gives the measurements).
"""

from __future__ import annotations

import numpy as np

from cclab.doctor import signals
from cclab.doctor.finding import Finding, Series, fmt_s
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
#: An ACK gap this many median gaps long: the ACK clock stopped (a path queue overflowing keeps it running:
#: at most 3.7 in this window in the short-queue model runs, 7.2 in the round trip after a loss, when the
#: window cut pauses the sender; a stalled receiver's episodes measured 13-72).
SILENCE = 8.0
#: A gap at most this share of the median: ACKs arriving four times faster than the flow's own bottleneck delivers.
PACKED_GAP = 0.25
#: Packed gaps an episode needs (a drained buffer of a few packets gives a handful; one is chance).
PACKED = 3
#: Packed gaps over the whole run above this share: ACKs come in batches anyway.
PACKED_SHARE = 0.1


def detect(view: FlowView) -> Finding | None:
    """The finding, or None when a condition fails; from the summary, else from the sender's trace."""
    if view.flow is None:
        return _from_trace(view)
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


def _from_trace(view: FlowView) -> Finding | None:
    tr = view.sender
    if tr is None or len(tr.lost.get("pn", ())) < MIN_LOSSES or not len(tr.acks.get("time_s", ())):
        return None
    new = tr.acks["newly_acked"] > 0
    at, sent_at = tr.acks["time_s"][new], tr.acks["largest_sent_s"][new]
    rtt = signals.min_rtt_s(view)
    if len(at) < 3 or rtt is None:
        return None
    gaps = np.diff(at)
    med = float(np.median(gaps))
    packed = gaps <= PACKED_GAP * med
    if med <= 0 or packed.mean() > PACKED_SHARE:
        return None
    send_time = dict(zip(tr.sent["pn"].tolist(), tr.sent["time_s"].tolist(), strict=True))
    lost_t = np.sort([send_time[p] for p in tr.lost["pn"].tolist() if p in send_time])
    if len(lost_t) < MIN_LOSSES:
        return None
    episodes = np.split(lost_t, np.flatnonzero(np.diff(lost_t) > rtt) + 1)
    stalled, spans = 0, []
    for ep in episodes:
        # Gaps before the ACKs of the data sent in the half RTT before the first loss (ACK i's gap is i-1).
        i0, i1 = np.searchsorted(sent_at, [ep[0] - rtt / 2, ep[0]])
        g = gaps[max(i0 - 1, 0) : max(i1 - 1, 0)]
        if len(g) and g.max() >= SILENCE * med and (g <= PACKED_GAP * med).sum() >= PACKED:
            stalled += len(ep)
            spans.append((float(ep[0]), float(ep[-1])))
    if stalled < SOCKET_SHARE * len(lost_t):
        return None
    return Finding(
        NAME,
        (
            f"{stalled} of {len(lost_t)} lost packets went in bursts right after packets the receiver acknowledged "
            "late and all at once: a stalled receiver's buffer overflowed"
        ),
        [
            ("lost packets", f"{len(lost_t)} in {len(episodes)} episodes", f"≥ {MIN_LOSSES}"),
            (
                "losses in stalled episodes",
                f"{stalled} ({stalled / len(lost_t):.0%}, {len(spans)} episodes)",
                f"≥ {SOCKET_SHARE:.0%}: a gap ≥ {SILENCE:g} × and ≥ {PACKED} gaps ≤ {PACKED_GAP:g} × the median",
            ),
            ("median ACK gap", fmt_s(med), "—"),
            ("packed ACK gaps in the whole run", f"{packed.mean():.1%}", f"≤ {PACKED_SHARE:.0%}"),
        ],
        SEED,
        FIX,
        spans,
        [Series("gap before each ACK", at[1:], gaps, "s", points=True)],
    )
