"""ACK-limited forward rate / return-path saturation (seed 003): the ACKs, not the data path, set the rate.

When the return link cannot carry the ACKs, they queue, the RTT grows until the flow-control credit or cwnd is
the flight, and the forward rate settles at C_return / (8·A) · d · 8·X (RFC 3449 §3.1; A = ACK size in bytes,
d = data packets per ACK, X = data packet size in bytes, C_return in bit/s).

Rule (needs the run summary's links: a third-party trace does not say the return capacity):
- a reverse-direction link is busy: utilisation ≥ `RETURN_BUSY`, and
- no forward-direction link is: every forward utilisation ≤ `FORWARD_IDLE`.
Evidence adds the RFC 3449 cap computed from the summary (return capacity = its bytes·8 / (utilisation ×
run time)) next to the forward rate, which it should match.
"""

from __future__ import annotations

from cclab.doctor import signals
from cclab.doctor.finding import Finding, fmt_bps
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


def detect(view: FlowView) -> Finding | None:
    """The finding, or None without links or when a condition fails."""
    fwd = [lk for lk in view.links if lk.get("direction") == "forward"]
    rev = [lk for lk in view.links if lk.get("direction") == "reverse"]
    if not fwd or not rev:
        return None
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


def _num(link: dict, key: str) -> float:
    """A numeric link field, 0 when absent or not a number."""
    v = link.get(key)
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else 0.0
