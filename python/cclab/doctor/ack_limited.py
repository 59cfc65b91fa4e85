"""ACK-limited forward rate / return-path saturation (seed 003): the ACKs, not the data path, set the rate.

When the return link cannot carry the ACKs, they queue, the RTT grows until the flow-control credit or cwnd is
the flight, and the forward rate settles at C_return / (8·A) · d · 8·X (RFC 3449 §3.1; A = ACK size in bytes,
d = data packets per ACK, X = data packet size in bytes, C_return in bit/s).

Rule with a run summary's links:
- a reverse-direction link is busy: utilisation ≥ `RETURN_BUSY`, and
- no forward-direction link is: every forward utilisation ≤ `FORWARD_IDLE`.
Evidence adds the RFC 3449 cap computed from the summary (return capacity = its bytes·8 / (utilisation ×
run time)) next to the forward rate, which it should match.

Rule from the sender's trace alone (no links; `cclab.doctor.ack_clock` explains why sizes decide):
- at least `MIN_ACKS` ACKs that acknowledge data, over at least `MIN_RTTS` min RTTs;
- the ACK stream is saturated: ≥ `MIN_BACK_TO_BACK` of the gaps between ACKs sit at their median (a busy
  link releases them back to back);
- the return link sets those gaps: they are proportional to the ACK's own size (elasticity within `TOLERANCE`
  of 1: byte-congestive) and not to the packets each ACK acknowledges, or they ignore both (elasticity within
  `TOLERANCE` of 0 for the packets acknowledged, which vary: packet-congestive). A forward bottleneck makes
  them proportional to the packets acknowledged instead;
- forward losses are rare (≤ `MAX_LOSS` of the packets sent): the window is not what a loss cut it to.
"""

from __future__ import annotations

import numpy as np

from cclab.doctor import ack_clock, signals
from cclab.doctor.finding import Finding, Series, fmt_bps, fmt_s, spans_where
from cclab.traces.rundir import FlowView

NAME = "ack-limited-forward-rate"
SEED = "seed-003"
FIX = (
    "ACK less often (ACK frequency / a higher ACK ratio, e.g. 1:10 for QUIC; RFC 3449 §5.2 ACK thinning), or "
    "make ACKs smaller."
)
#: Reverse utilisation at or above this counts as saturated (a link this busy queues its ACKs).
RETURN_BUSY = 0.85
#: Forward utilisation at or below this leaves capacity unused.
FORWARD_IDLE = 0.85
#: ACKs (that acknowledge data) before a trace's ACK clock is judged: 200 gaps give size classes of ≥ 10.
MIN_ACKS = 200
#: The ACK stream is judged over at least this many min RTTs ("for long": past slow start's first rounds).
MIN_RTTS = 8
#: Share of back-to-back gaps: the return link is busy most of the time, not in passing bursts.
MIN_BACK_TO_BACK = 0.5
#: How far from 1 (the gap proportional to a size: serialisation at a fixed rate) or 0 (independent of it) an
#: elasticity may be. Gaps are medians of ≥ 10 back-to-back ACKs, so serialisation gives 1.00 (seed 003's 1:2
#: run); a coupling that is not serialisation, like a later ACK carrying a longer ack_delay varint and one more
#: byte, gives a partial value (0.48 in seed 003's 1:10 fix) and stays out of both bands.
TOLERANCE = 0.2
#: Lost packets / sent packets above this: forward losses, not ACKs, may be what holds the rate.
MAX_LOSS = 0.01
#: ACKs per point of the forward-rate series in the figure.
RATE_WINDOW = 50


def detect(view: FlowView) -> Finding | None:
    """The finding, or None when a condition fails; from the summary's links, else from the sender's trace."""
    fwd = [lk for lk in view.links if lk.get("direction") == "forward"]
    rev = [lk for lk in view.links if lk.get("direction") == "reverse"]
    if not fwd or not rev:
        return _from_trace(view) if not view.links else None
    busy = max(rev, key=lambda lk: _num(lk, "utilisation"))
    ur = _num(busy, "utilisation")
    uf = max(_num(lk, "utilisation") for lk in fwd)
    if ur < RETURN_BUSY or uf > FORWARD_IDLE:
        return None
    ack_bytes = signals.flow_value(view, "ack_bytes") or 0.0
    acks = signals.flow_value(view, "acks_sent") or 0.0
    sent = signals.flow_value(view, "data_packets_sent") or 0.0
    evidence = [
        (f"{busy.get('name')} (reverse) utilisation", f"{ur:.1%}", f"≥ {RETURN_BUSY:.0%}"),
        ("largest forward utilisation", f"{uf:.1%}", f"≤ {FORWARD_IDLE:.0%}"),
    ]
    if acks and sent and view.duration_s:
        a, d = ack_bytes / acks, sent / acks
        fwd_link = max(fwd, key=lambda lk: _num(lk, "bytes"))
        x = _num(fwd_link, "bytes") / max(_num(fwd_link, "packets"), 1.0)
        c_return = _num(busy, "bytes") * 8 / (ur * view.duration_s)
        cap = c_return / (8 * a) * d * 8 * x
        rate = _num(fwd_link, "bytes") * 8 / view.duration_s
        evidence += [
            ("mean ACK size A, data packets per ACK d", f"{a:.1f} B, {d:.2f}", "—"),
            ("RFC 3449 cap C_return/(8·A)·d·8·X", fmt_bps(cap), "—"),
            ("forward rate (whole run)", fmt_bps(rate), "≤ cap"),
        ]
    return Finding(
        NAME,
        (
            f"the return link is {ur:.0%} busy with ACKs while the forward path is at most {uf:.0%} used: ACKs "
            "cap the rate"
        ),
        evidence,
        SEED,
        FIX,
    )


def _from_trace(view: FlowView) -> Finding | None:
    tr = view.sender
    if tr is None or not len(tr.acks.get("time_s", ())):
        return None
    clock = ack_clock.measure(tr.acks)
    rtt = signals.min_rtt_s(view)
    if clock is None or rtt is None or clock.acks < MIN_ACKS or clock.span_s < MIN_RTTS * rtt:
        return None
    sent = len(tr.sent.get("time_s", ()))
    lost = len(tr.lost.get("time_s", ()))
    e_size, e_acked = clock.size_elasticity, clock.acked_elasticity
    byte_return = _near(e_size, 1.0) and not _near(e_acked, 1.0)
    packet_return = _near(e_acked, 0.0) and (e_size is None or _near(e_size, 0.0))
    if clock.back_to_back < MIN_BACK_TO_BACK or not (byte_return or packet_return):
        return None
    if not sent or lost > MAX_LOSS * sent:
        return None
    classes = clock.size_classes if byte_return else clock.acked_classes
    assert classes is not None  # set with its elasticity
    (s0, g0), (s1, g1) = classes
    unit = "B" if byte_return else "packets"
    what = "ACK size" if byte_return else "packets acknowledged per ACK"
    elasticity = e_size if byte_return else e_acked
    how = (
        "each spaced by its own size, not by the data it acknowledges"
        if byte_return
        else "evenly spaced whatever data each acknowledges"
    )
    evidence = [
        (
            "ACKs (acknowledging data) / span",
            f"{clock.acks} / {fmt_s(clock.span_s)}",
            f"≥ {MIN_ACKS} / ≥ {MIN_RTTS} min RTT",
        ),
        (
            "back-to-back ACK gaps (median gap)",
            f"{clock.back_to_back:.0%} ({fmt_s(clock.gap_s)})",
            f"≥ {MIN_BACK_TO_BACK:.0%}",
        ),
        (
            f"gap vs {what}",
            f"{fmt_s(g0)} at {s0:.0f} {unit}, {fmt_s(g1)} at {s1:.0f} {unit}: elasticity {elasticity:.2f}",
            f"1 ± {TOLERANCE}" if byte_return else f"0 ± {TOLERANCE} (packet-congestive)",
        ),
        (
            "ACK rate × packets per ACK → forward rate",
            f"{clock.ack_rate:.1f}/s × {clock.ack_ratio:.2f} → {fmt_bps(clock.forward_bps)}",
            "—",
        ),
        (
            "return capacity implied by the back-to-back gaps",
            f"{fmt_bps(s1 * 8 / g1)} ({s1:.0f} B ACKs)" if byte_return else f"{1 / clock.gap_s:.0f} ACK packets/s",
            "—",
        ),
        ("lost / sent packets", f"{lost} / {sent}", f"≤ {MAX_LOSS:.0%}"),
    ]
    _, lat = signals.metric(view, "latest_rtt_s")
    if len(lat):
        evidence.append(("latest RTT at the end / min RTT", f"{fmt_s(float(lat[-1]))} / {fmt_s(rtt)}", "—"))
    t = tr.acks["time_s"][tr.acks["newly_acked"] > 0]
    gap = np.diff(t)
    b2b = np.abs(gap - clock.gap_s) <= ack_clock.BACK_TO_BACK * clock.gap_s
    spans = spans_where(t[1:], b2b, MIN_RTTS * rtt)
    acked = tr.acks["newly_acked_bytes"][tr.acks["newly_acked"] > 0]
    ends = np.arange(RATE_WINDOW, len(t), RATE_WINDOW)
    starts = ends - RATE_WINDOW
    csum = np.concatenate(([0.0], np.cumsum(acked)))
    rate = (csum[ends + 1] - csum[starts + 1]) * 8 / np.maximum(t[ends] - t[starts], 1e-12)
    return Finding(
        NAME,
        (
            f"the ACKs arrive back to back, {how}: a saturated return path clocks the sender at "
            f"{clock.ack_rate:.0f} ACKs/s × {clock.ack_ratio:.2g} packets = {fmt_bps(clock.forward_bps)}"
        ),
        evidence,
        SEED,
        FIX,
        spans,
        [Series("gap before each ACK", t[1:], gap, "s", points=True), Series("forward rate", t[ends], rate, "bit/s")],
    )


def _near(elasticity: float | None, target: float) -> bool:
    return elasticity is not None and abs(elasticity - target) <= TOLERANCE


def _num(link: dict, key: str) -> float:
    """A numeric link field, 0 when absent or not a number."""
    v = link.get(key)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0.0
