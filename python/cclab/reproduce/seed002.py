"""Seed 002: picoquic's satellite slow start, with and without a pacing pause after a failed estimate.

The report (C. Huitema, "The new ACK startled the butterfly", 29 Apr 2023): picoquic's satellite test
(250 Mbit/s forward, 3 Mbit/s return, 300 ms each way, 100 MB) finished in under 7 s, and after a change
in ACK processing in about 10 s. picoquic estimates the path capacity from the ACKs of packet trains
and jumps cwnd toward it; in the slow run pacing kept the sender ACK-clocked, no train ever left faster
than the pacing rate, and slow start only doubled once per RTT. The fix: pause after a failed estimate
until the pacer has credit for a long enough train. The pair (scenarios/seeds/seed-002-train-*.toml)
differs only in that pause; the judge reads completion times from the summaries and counts the
estimate-driven cwnd jumps in the time series.
"""

from __future__ import annotations

from pathlib import Path

from cclab.reproduce.harness import RunResult, RunSpec, Verdict, by_label, save_figure, within

TITLE = "Seed 002: satellite slow start stays ACK-clocked under pacing; a pacing pause lets trains through"

#: Label → scenario file: case A (no pause, the regression), case B (picoquic's fix).
VARIANTS: dict[str, str] = {
    "paced": "seed-002-train-paced.toml",
    "pause": "seed-002-train-pause.toml",
}
NAMES = {
    "paced": "A: paced, no pause after a failed estimate",
    "pause": "B: pacing pause after a failed estimate (fix)",
}
#: The same pair with NewReno instead of CUBIC (full plan): the mechanism is the slow start's.
NEWRENO = "-newreno"
#: Fine enough to show the post-pause trains in the sent-bytes curve.
INTERVAL = "2ms"
#: Slack of the jump test, bytes: one initial window (10 packets), for counters sampled a packet apart.
JUMP_SLACK = 15_000
#: Bytes in flight per payload byte of a full packet (1472 / 1440) and then some: slow start adds at
#: most the acknowledged in-flight bytes, the time series counts acknowledged payload.
JUMP_OVERHEAD = 1.1


def plan(full: bool) -> list[RunSpec]:
    """Both cases at the report's size (100 MB, ~0.3 s wall each); full adds the NewReno pair."""
    specs = [RunSpec(label, file, timeseries_interval=INTERVAL) for label, file in VARIANTS.items()]
    if full:
        nr = ('flow.0.cc.algorithm="newreno"',)
        specs += [RunSpec(label + NEWRENO, file, nr, timeseries_interval=INTERVAL) for label, file in VARIANTS.items()]
    return specs


def completion_s(r: RunResult) -> float:
    """Completion time of the transfer, s (infinite if it did not complete)."""
    t = r.summary["flows"][0]["completion_time_s"]
    return float("inf") if t is None else float(t)


def jumps(ts: dict[str, list[float]]) -> list[tuple[float, float, float]]:
    """Sampling intervals in which cwnd grew by more than slow start allows, as (time s, before, after).

    Slow start grows cwnd by at most the bytes acknowledged, so a larger step is the train estimate.
    The interval holding the first ACK is skipped: there the window is set from the first RTT sample
    (picoquic's long-RTT initial window), not grown.
    """
    t, cwnd, acked = ts["time_s"], ts["cwnd_bytes"], ts["bytes_acked"]
    first = next((i for i, a in enumerate(acked) if a > 0), len(acked))
    return [
        (t[i], cwnd[i - 1], cwnd[i])
        for i in range(first + 1, len(t))
        if cwnd[i] - cwnd[i - 1] > JUMP_OVERHEAD * (acked[i] - acked[i - 1]) + JUMP_SLACK
    ]


def _pair_verdicts(a: RunResult, b: RunResult, suffix: str) -> list[Verdict]:
    ta, tb = completion_s(a), completion_s(b)
    ja, jb = jumps(a.timeseries), jumps(b.timeseries)
    first = f", first at {jb[0][0]:.2f} s: {jb[0][1] / 1e6:.2f} → {jb[0][2] / 1e6:.1f} MB" if jb else ""
    return [
        Verdict(
            f"B completion time{suffix}",
            '< 7 s ("the tests do complete in less than 7 seconds")',
            f"{tb:.2f} s",
            "< 7 s",
            tb < 7.0,
        ),
        Verdict(
            f"A completion time{suffix}",
            'about 10 s ("a total duration of almost 10 seconds")',
            f"{ta:.2f} s",
            "10 s ± 15 %",
            within(ta, 10.0, 0.15),
        ),
        Verdict(
            f"A / B completion time{suffix}",
            "~10 s vs < 7 s (≥ 1.4×)",
            f"{ta / tb:.2f}×",
            "≥ 1.3×",
            ta >= 1.3 * tb,
        ),
        Verdict(
            f"A: estimate-driven cwnd jumps{suffix}",
            'none: "the congestion window doubles once per RTT"',
            f"{len(ja)}",
            "0",
            not ja,
        ),
        Verdict(
            f"B: estimate-driven cwnd jumps{suffix}",
            'yes: the estimate lets "the congestion window grow much faster than the regular slow start"',
            f"{len(jb)}{first}",
            "≥ 1",
            bool(jb),
        ),
    ]


def judge(results: list[RunResult]) -> list[Verdict]:
    """B < 7 s, A ≈ 10 s and ≥ 1.3× B; A never jumps by estimate, B does (each pair in the plan)."""
    g = by_label(results)
    verdicts = _pair_verdicts(g["paced"][0], g["pause"][0], "")
    if "paced" + NEWRENO in g:
        verdicts += _pair_verdicts(g["paced" + NEWRENO][0], g["pause" + NEWRENO][0], " (NewReno)")
    return verdicts


def figures(results: list[RunResult], out_dir: Path) -> list[Path]:
    """The report's two qvis graphs (cumulative bytes sent over time), and cwnd over time."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g = by_label(results)
    runs = {label: g[label][0] for label in VARIANTS}
    end = max(completion_s(r) for r in runs.values())
    fig, axes = plt.subplots(2, 2, figsize=(11, 7.5))
    top = max(max(r.timeseries["bytes_sent"]) for r in runs.values()) / 1e6 * 1.05
    for col, (label, r) in enumerate(runs.items()):
        ts = r.timeseries
        t = ts["time_s"]
        for row, (lo, hi) in enumerate(((0.0, end * 1.02), (0.5, 3.0))):
            ax = axes[row][col]
            ax.plot(t, [b / 1e6 for b in ts["bytes_sent"]], color="tab:blue", lw=1.2, label="bytes sent")
            ax.plot(t, [b / 1e6 for b in ts["bytes_acked"]], color="tab:green", lw=1.0, ls="--", label="bytes acked")
            ax.set_xlim(lo, hi)
            # Each zoom on its own scale, as qvis draws each trace: A's curve is smooth at any scale.
            shown = max((b for x, b in zip(t, ts["bytes_sent"], strict=True) if x <= hi), default=1.0)
            ax.set_ylim(0, top if row == 0 else shown / 1e6 * 1.05)
            ax.grid(color="0.92")
            ax.set_xlabel("time (s)")
        axes[0][col].set_title(f"{NAMES[label]}\ncompleted in {completion_s(r):.2f} s", fontsize=10)
        axes[1][col].set_title("zoom: the first seconds of slow start", fontsize=9)
        for tj, _, _ in jumps(ts):
            for row in (0, 1):
                axes[row][col].axvline(tj, color="tab:red", lw=0.8, ls=":")
    axes[0][0].set_ylabel("cumulative data (MB)")
    axes[1][0].set_ylabel("cumulative data (MB)")
    axes[0][0].legend(fontsize=8, loc="upper left")
    fig.suptitle(
        "250 Mbit/s / 3 Mbit/s, RTT 600 ms, 100 MB: data sent over time (dotted red: estimate-driven cwnd jump)",
        fontsize=11,
    )
    fig.tight_layout()
    paths = save_figure(fig, out_dir, "seed002_bytes_sent")

    fig, ax = plt.subplots(figsize=(9, 5))
    for label, r in runs.items():
        ts = r.timeseries
        ax.plot(ts["time_s"], [c / 1e6 for c in ts["cwnd_bytes"]], lw=1.3, label=NAMES[label])
    bdp = 250e6 / 8 * 0.6
    ax.axhline(bdp / 1e6, color="0.5", ls="--", lw=0.8, label="BDP: 250 Mbit/s × 600 ms = 18.75 MB")
    ax.set_yscale("log")
    ax.set_xlim(0, end * 1.02)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("congestion window (MB, log scale)")
    ax.set_title("cwnd: A doubles once per RTT; B jumps to half the measured BDP", fontsize=11)
    ax.grid(color="0.92")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return paths + save_figure(fig, out_dir, "seed002_cwnd")
