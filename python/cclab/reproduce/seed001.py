"""Seed 001: FreeBSD CUBIC's TCP-friendly window stuck on 1 ms ticks on a 50 µs back-to-back path.

The report (B. Pardeshi, freebsd-transport, 27 Apr 2023): with RTT = 0.05 ms and a congested link, CUBIC
is 100–150 % slower than NewReno because its time-based TCP-friendly window W_est(t) = W_max·β + α·t/RTT
reads `ticks` (1 ms at kern.hz = 1000), so cwnd stays flat for the ~20 ACKs of each tick. The family
(scenarios/seeds/seed-001-*.toml) runs NewReno, tick-driven CUBIC, the two fixes from the thread (µs clock;
RFC 9438 per-ACK W_est) and FreeBSD's interim commit a3aa6f6 (µs RTT, t still in ticks) on one path.
Goodputs come from the run summaries; the per-ACK window behaviour from the sender's qlog trace of a short
run of each variant (`recovery:metrics_updated`, `recovery:congestion_state_updated`,
`transport:packet_received`).
"""

from __future__ import annotations

import json
import statistics
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from cclab.reproduce.harness import RunResult, RunSpec, Verdict, by_label, save_figure, within

TITLE = "Seed 001: FreeBSD CUBIC grows cwnd once per 1 ms tick on a 0.05 ms RTT path"

#: Variant label → scenario file; the first is the reference, the second the pathology.
VARIANTS: dict[str, str] = {
    "newreno": "seed-001-newreno.toml",
    "cubic-ticks": "seed-001-cubic-ticks.toml",
    "cubic-usclock": "seed-001-cubic-usclock.toml",
    "cubic-perack": "seed-001-cubic-perack.toml",
    "cubic-usrtt": "seed-001-cubic-usrtt.toml",
}
NAMES = {
    "newreno": "NewReno",
    "cubic-ticks": "CUBIC, t and RTT in 1 ms ticks (FreeBSD before a3aa6f6)",
    "cubic-usclock": "CUBIC, µs clock (fix a)",
    "cubic-perack": "CUBIC, RFC 9438 per-ACK W_est (fix b)",
    "cubic-usrtt": "CUBIC, µs RTT, t in ticks (FreeBSD a3aa6f6)",
}
TRACE = "-trace"
#: Simulated time of the traced runs: ~170 losses of tick-CUBIC, a few MB of qlog each.
TRACE_DURATION = "0.3s"
#: The sender's tick (`[flow.sender] clock.tick` in the scenario files), s.
TICK_S = 1e-3
#: Runs before this are slow start; analyses start here, s.
SETTLED_S = 0.05
#: MSS of the scenario files (`[flow.tcp] mss`), bytes: cwnd is plotted in segments.
SEGMENT = 1448


def plan(full: bool) -> list[RunSpec]:
    """Goodput runs (3 s, seed 1; full: 20 s, seeds 1–5) and one traced 0.3 s run per variant."""
    seeds = range(1, 6) if full else range(1, 2)
    longer = ('scenario.duration="20s"',) if full else ()
    specs = [RunSpec(label, file, longer, seed) for label, file in VARIANTS.items() for seed in seeds]
    short = (f'scenario.duration="{TRACE_DURATION}"',)
    specs += [RunSpec(label + TRACE, file, short, 1, trace=True) for label, file in VARIANTS.items()]
    return specs


def _goodput(groups: dict[str, list[RunResult]], label: str) -> float:
    """Mean goodput of `label` over its seeds, bit/s."""
    return statistics.fmean(r.summary["flows"][0]["goodput_bps"] for r in groups[label])


class Ack(NamedTuple):
    """One ACK the sender received, with the controller's state after processing it."""

    time_s: float
    state: str | None
    #: The ACK changed the congestion window.
    changed: bool
    cwnd_bytes: int


@lru_cache(maxsize=8)
def sender_acks(trace_dir: Path) -> tuple[Ack, ...]:
    """Every ACK in the sender's qlog trace (`trace.sqlog` in `trace_dir`).

    The sender logs an ACK's metric and state updates just before its `packet_received` record.
    """
    acks, state, cwnd, changed = [], None, 0, False
    for rec in (trace_dir / "trace.sqlog").read_bytes().split(b"\x1e"):
        if b"packet_sent" in rec or not rec.strip():
            continue
        e = json.loads(rec)
        name = e.get("name")
        if name == "recovery:congestion_state_updated":
            state = e["data"]["new"]
        elif name == "recovery:metrics_updated" and "congestion_window" in e["data"]:
            changed |= cwnd != 0 and e["data"]["congestion_window"] != cwnd
            cwnd = e["data"]["congestion_window"]
        elif name == "transport:packet_received":
            acks.append(Ack(e["time"] / 1e3, state, changed, cwnd))
            changed = False
    return tuple(acks)


def ca_runs(acks: tuple[Ack, ...]) -> list[int]:
    """Runs of ACKs in congestion avoidance between two ACKs that changed cwnd (the second included).

    A run that a loss interrupts is dropped: only complete flat stretches count.
    """
    runs, run = [], None
    for t, state, changed, _ in acks:
        if state != "congestion_avoidance" or t < SETTLED_S:
            run = None
            continue
        if run is not None:
            run += 1
        if changed:
            if run is not None:
                runs.append(run)
            run = 0
    return runs


def ack_weighted_median(runs: list[int]) -> float:
    """The length of the run the median ACK belongs to (long runs hold most ACKs)."""
    return statistics.median(n for n in runs for _ in range(n)) if runs else 0.0


def acks_per_tick(acks: tuple[Ack, ...]) -> float:
    """Median number of ACKs the sender received per whole tick after slow start."""
    counts: dict[int, int] = {}
    for t, *_ in acks:
        if t >= SETTLED_S:
            counts[int(t / TICK_S)] = counts.get(int(t / TICK_S), 0) + 1
    last = max(counts, default=0)
    return statistics.median(counts.get(k, 0) for k in range(int(SETTLED_S / TICK_S), last)) if counts else 0.0


def judge(results: list[RunResult]) -> list[Verdict]:
    """NewReno ≥ 2× tick-CUBIC; cwnd flat for a whole tick of ACKs; both fixes within 10 % of NewReno."""
    g = by_label(results)
    nr, ticks = _goodput(g, "newreno"), _goodput(g, "cubic-ticks")
    n = len(g["newreno"])
    verdicts = [
        Verdict(
            "goodput NewReno / CUBIC (ticks)",
            "100–150 % degradation: NewReno ≈ 2–2.5× CUBIC",
            f"{nr / ticks:.2f}× ({nr / 1e6:.0f} vs {ticks / 1e6:.0f} Mbit/s, {n} seed(s))",
            "≥ 2×",
            nr >= 2 * ticks,
        )
    ]
    tr = g["cubic-ticks" + TRACE][0]
    acks = sender_acks(tr.out_dir)
    run, per_tick = ack_weighted_median(ca_runs(acks)), acks_per_tick(acks)
    per_rtt = per_tick * tr.summary["flows"][0]["srtt_s"] / TICK_S
    verdicts.append(
        Verdict(
            "CUBIC (ticks): ACKs with unchanged cwnd in CA (ACK-weighted median run)",
            "~20 ACKs: one 1 ms tick at 1 ACK per 0.05 ms RTT",
            f"{run:.0f} ACKs = {run / per_tick:.2f} tick ({per_tick:.0f} ACKs/tick, {per_rtt:.1f} per RTT)",
            "1 tick ± 25 %, and ≥ 10 ACKs",
            within(run, per_tick, 0.25) and run >= 10,
        )
    )
    for label, fix in (("cubic-usclock", "(a) µs RTT granularity"), ("cubic-perack", "(b) per-ACK W_est (rfc8312bis)")):
        fixed = _goodput(g, label)
        verdicts.append(
            Verdict(
                f"goodput {NAMES[label]} vs NewReno",
                f"fix {fix}: as NewReno",
                f"{fixed / nr - 1:+.1%} ({fixed / 1e6:.0f} Mbit/s)",
                "within ±10 %",
                within(fixed, nr, 0.10),
            )
        )
    usrtt = _goodput(g, "cubic-usrtt")
    verdicts.append(
        Verdict(
            "goodput gain of FreeBSD a3aa6f6 (µs RTT, t in ticks) over CUBIC (ticks)",
            "+42 % at 1 Gbit/s (commit message; loss rate and RTT not given)",
            f"{usrtt / ticks - 1:+.0%} ({usrtt / 1e6:.0f} Mbit/s)",
            "> 0 (direction only)",
            usrtt > ticks,
        )
    )
    return verdicts


def figures(results: list[RunResult], out_dir: Path) -> list[Path]:
    """The window for 10 ms after a congestion event, one panel per variant; the flat-run histogram."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g = by_label(results)
    acks = {label: sender_acks(g[label + TRACE][0].out_dir) for label in VARIANTS}
    colors = dict(zip(VARIANTS, plt.rcParams["axes.prop_cycle"].by_key()["color"], strict=False))
    window = 10e-3
    fig, axes = plt.subplots(len(VARIANTS), 1, figsize=(8, 9), sharex=True, sharey=True)
    for ax, label in zip(axes, VARIANTS, strict=True):
        # The first congestion event after slow start: the first ACK in recovery after SETTLED_S.
        t0 = next(a.time_s for a in acks[label] if a.time_s >= SETTLED_S and a.state == "recovery")
        pts = [(1e3 * (a.time_s - t0), a.cwnd_bytes / SEGMENT) for a in acks[label] if t0 <= a.time_s <= t0 + window]
        ax.step(*zip(*pts, strict=True), where="post", color=colors[label], lw=1.2)
        ax.set_title(NAMES[label], fontsize=9, loc="left")
        if label in ("cubic-ticks", "cubic-usrtt"):
            first = (int(t0 / TICK_S) + 1) * TICK_S - t0
            for k in range(int(window / TICK_S) + 1):
                ax.axvline(1e3 * (first + k * TICK_S), color="0.8", lw=0.8, zorder=0)
        ax.set_ylim(0, None)
        ax.grid(axis="y", color="0.92")
    axes[len(VARIANTS) // 2].set_ylabel("cwnd (segments of 1448 B)")
    axes[-1].set_xlim(0, 1e3 * window)
    axes[-1].set_xlabel("time since a congestion event (ms); grey lines: the sender's 1 ms tick boundaries")
    fig.suptitle("1 Gbit/s back-to-back, RTT 0.05 ms, 2 % loss: cwnd after a congestion event", fontsize=11)
    fig.tight_layout()
    paths = save_figure(fig, out_dir, "seed001_cwnd_after_congestion")

    fig, ax = plt.subplots(figsize=(8, 5))
    bins = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256]
    for label in VARIANTS:
        runs = ca_runs(acks[label])
        share = [n / sum(runs) for n in runs]
        ax.hist(runs, bins=bins, weights=share, histtype="step", lw=1.4, color=colors[label], label=NAMES[label])
    per_tick = acks_per_tick(acks["cubic-ticks"])
    ax.axvline(per_tick, color="k", ls="--", lw=0.8, label=f"ACKs per 1 ms tick, CUBIC (ticks): {per_tick:.0f}")
    ax.set_xscale("log")
    ax.set_xlabel("run length: ACKs in congestion avoidance from one cwnd change to the next")
    ax.set_ylabel("share of the variant's ACKs in CA")
    ax.set_title(f"Flat cwnd runs in {TRACE_DURATION} traces (1 Gbit/s, RTT 0.05 ms, 2 % loss)", fontsize=11)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, frameon=False)
    fig.tight_layout()
    return paths + save_figure(fig, out_dir, "seed001_flat_runs")
