"""What spaces the ACKs a sender receives: the data on the forward path, or the ACKs themselves on the return.

A saturated link releases packets back to back, each after its own serialisation time (size · 8 / rate; a
packet-congestive link, a fixed time per packet). A sender's trace sees the ACKs after the whole loop, and a
single bottleneck anywhere in it gives the same picture of rates and RTTs: forward rate = ACK rate × bytes per
ACK holds in every transfer. What differs is *which* size sets the gap between two back-to-back ACKs:

- forward bottleneck: the gap before an ACK is the serialisation (or, at a CPU, the processing) of the data
  it newly acknowledges, so it grows with the packets acknowledged and ignores the ACK's own size;
- byte-congestive return (RFC 3449 §3.1): the gap is the ACK's own serialisation, so it grows with the ACK's
  size and ignores the packets acknowledged;
- packet-congestive return (RFC 3449 §3.2): one gap per ACK, whatever either size.

`measure` reads this from the elasticity of the gap to each size, d log gap / d log size, between the
smallest and the largest size class that both occur often among back-to-back ACKs and differ by at least
`MIN_CLASS_RATIO` (1: the gap follows that size; 0: it ignores it). A trace whose sizes never vary (TCP's fixed
52-byte ACKs at a fixed ACK ratio) cannot tell: the elasticity is then unknown (None).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Arr = npt.NDArray[np.float64]

#: A gap within this fraction of the median gap is "back to back": the ACKs left a busy link one after the
#: other. 10 % admits the size-driven variation (66 vs 72 B is 9 %) and rejects idle gaps.
BACK_TO_BACK = 0.10
#: Gaps in a size class before its median gap is trusted (a median of 10 is off by one outlier at most).
MIN_CLASS = 10
#: Size classes closer than this ratio are one class: a one-byte step in a 66-byte ACK (1.5 %) counts, a
#: 2,999- vs 3,000-byte acknowledgement does not (its gap ratio would be lost in timing noise).
MIN_CLASS_RATIO = 1.01


@dataclass(frozen=True)
class AckClock:
    """The ACK stream of a sender's trace, over the ACKs that newly acknowledged data."""

    #: ACKs and the time they span, s.
    acks: int
    span_s: float
    #: Median gap between ACKs, s, and the share of gaps back to back (within `BACK_TO_BACK` of it).
    gap_s: float
    back_to_back: float
    #: d log gap / d log ACK size, and d log gap / d log packets newly acknowledged (None: it never varies).
    size_elasticity: float | None
    acked_elasticity: float | None
    #: The classes each elasticity came from: (bytes or packets, median gap s) for the smallest and largest.
    size_classes: tuple[tuple[float, float], tuple[float, float]] | None
    acked_classes: tuple[tuple[float, float], tuple[float, float]] | None
    #: Over the back-to-back ACKs (the saturated stream): ACKs/s, packets newly acknowledged per ACK, and the
    #: forward rate they clock, bit/s.
    ack_rate: float
    ack_ratio: float
    forward_bps: float


def measure(acks: dict[str, Arr]) -> AckClock | None:
    """The ACK clock of a `QlogTrace.acks` table; None with fewer than three ACKs that acknowledged data."""
    new = acks.get("newly_acked", np.zeros(0)) > 0
    t = acks["time_s"][new] if len(new) else np.zeros(0)
    if len(t) < 3 or t[-1] <= t[0]:
        return None
    size, acked, count = acks["size"][new], acks["newly_acked_bytes"][new], acks["newly_acked"][new]
    gap = np.diff(t)
    med = float(np.median(gap))
    b2b = np.abs(gap - med) <= BACK_TO_BACK * med if med > 0 else np.zeros(len(gap), dtype=bool)
    span = float(t[-1] - t[0])
    busy = float(gap[b2b].sum())
    # The gap before ACK i is ACK i's (or its data's) serialisation: pair it with ACK i's sizes.
    e_size, c_size = _elasticity(gap[b2b], size[1:][b2b])
    e_acked, c_acked = _elasticity(gap[b2b], count[1:][b2b])
    return AckClock(
        acks=len(t),
        span_s=span,
        gap_s=med,
        back_to_back=float(b2b.mean()),
        size_elasticity=e_size,
        acked_elasticity=e_acked,
        size_classes=c_size,
        acked_classes=c_acked,
        ack_rate=_per_s(float(b2b.sum()), busy),
        ack_ratio=float(count[1:][b2b].mean()) if b2b.any() else 0.0,
        forward_bps=_per_s(float(acked[1:][b2b].sum()) * 8, busy),
    )


def _elasticity(gap: Arr, size: Arr) -> tuple[float | None, tuple[tuple[float, float], tuple[float, float]] | None]:
    """log(gap ratio) / log(size ratio) between the smallest and largest size class with `MIN_CLASS` gaps."""
    if not len(gap):
        return None, None
    values, counts = np.unique(size, return_counts=True)
    classes = [
        (float(v), float(np.median(gap[size == v]))) for v, c in zip(values, counts, strict=True) if c >= MIN_CLASS
    ]
    classes = [(v, g) for v, g in classes if v > 0 and g > 0]
    if len(classes) < 2:
        return None, None
    (s0, g0), (s1, g1) = classes[0], classes[-1]
    if s1 < MIN_CLASS_RATIO * s0:
        return None, None
    return float(np.log(g1 / g0) / np.log(s1 / s0)), ((s0, g0), (s1, g1))


def _per_s(amount: float, seconds: float) -> float:
    return amount / seconds if seconds > 0 else 0.0
