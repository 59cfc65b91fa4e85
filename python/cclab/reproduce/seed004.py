"""Seed 004: DCCP CCID-3 over loopback: the window counter freezes, feedback stops, X halves to s/t_mbi.

The report (dccp@vger notes, "Running CCID-3 over loopback/localhost"): a 22 B, 225 B/s CBR source on
loopback (RTT 3 µs, µs timestamps, Linux with draft-ietf-dccp-rfc3448bis-00). R starts at the 63 µs
Request/Response sample and decays by Linux's integer EWMA; X climbs with it to W_init/R =
4·s/RTT = 234.7 Mbit/s at 2.391 s; the window counter (RFC 4342 §8.1) divides by R/4 in whole microseconds, which is 0
below 4 µs, so CCVal stops, the receiver sends no more feedback (§10.3), and the nofeedback timer halves X
every max(4R, 2s/X, 100 ms) down to one packet per t_mbi = 64 s. Clamping RTT samples to 100 µs (the Linux
fix) keeps feedback flowing; 1 ms and 2 ms RTTs (netem) make X converge to s/RTT = 176 and 88 kbit/s.

Runs: scenarios/seeds/seed-004-loopback.toml (the pathology, and with 0.5 ms and 1 ms added each way) and
seed-004-rtt-clamp.toml (the fix). The judge reads the time series (``pacing_rate_bps`` = 8·X,
``srtt_s`` = the sender's R), the summary's packet counts, and the sender's qlog trace of the loopback and fix
runs, which it samples at every application write as the report's dccp_probe log did.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import NamedTuple

from cclab.reproduce.harness import RunResult, RunSpec, Verdict, by_label, save_figure, within

TITLE = "Seed 004: CCID-3 over loopback: frozen window counter, no feedback, X halves to 1 packet per 64 s"

#: The application's packet size s, bytes (scenario input, from the report).
S_BYTES = 22
#: t_mbi, s (RFC 5348 §4.3).
T_MBI_S = 64.0
#: Linux's lower bound on the nofeedback interval (scenario input `nofeedback_min`), s.
NOFEEDBACK_MIN_S = 0.1
#: The loopback RTT (2 x the scenario's 1.5 µs one-way delay), s.
LOOPBACK_RTT_S = 3e-6
#: RTT samples of the fix are clamped to this (scenario input `rtt_clamp_min`), s.
CLAMP_S = 100e-6
#: The application's rate (scenario input, from the report), bit/s: one write every s·8/rate = 97.8 ms.
RATE_BPS = 1800.0
WRITE_S = S_BYTES * 8 / RATE_BPS
#: Length of the report's log: with 24 decaying values (63 … 4 µs) and the rest at 3 µs, 93 samples is the
#: count whose RTT mean and standard deviation round to the report's 8.3 and 12.5 µs.
REPORT_SAMPLES = 93
#: The report's climb: first doubled X, first X at W_init/R, peak (s); its samples lie 44 ms past multiples of
#: the 97.8 ms write interval, so its time origin is ~44 ms before the first write.
REPORT_CLIMB = {"doubling starts": 0.826, "W_init/R reached": 1.022, "peak": 2.391}
#: Tolerance on the climb's times: half a write interval (the report samples X once per write).
CLIMB_TOL_S = WRITE_S / 2
#: The report's RTT statistics over its log, µs: mean, standard deviation, min, max.
REPORT_RTT_US = {"mean": 8.3, "sd": 12.5, "min": 3.0, "max": 63.0}

LOOPBACK, CLAMP = "seed-004-loopback.toml", "seed-004-rtt-clamp.toml"


class Run(NamedTuple):
    """A run of the plan: scenario, overrides, simulated seconds (default, full)."""

    file: str
    overrides: tuple[str, ...]
    duration_s: int
    full_duration_s: int


def _delay(one_way: str) -> tuple[str, ...]:
    return (f"path.forward.delay={one_way}", f"path.return.delay={one_way}")


#: Report §4.1: "0.5..1msec link delay" with netem on lo, which delays both directions: RTT 1 ms and 2 ms.
RUNS: dict[str, Run] = {
    "loopback": Run(LOOPBACK, (), 300, 600),
    "rtt-clamp": Run(CLAMP, (), 60, 300),
    "rtt-1ms": Run(LOOPBACK, _delay("501500ns"), 30, 120),
    "rtt-2ms": Run(LOOPBACK, _delay("1001500ns"), 30, 120),
}
#: Report values of the two inflated-RTT runs: s/RTT, bit/s.
REPORT_S_PER_RTT = {"rtt-1ms": 176e3, "rtt-2ms": 88e3}
#: The runs measure X from here on (after the first feedbacks), s.
SETTLED_S = 1.0

#: Runs whose sender qlog the judge reads.
TRACED = ("loopback", "rtt-clamp")


def plan(full: bool) -> list[RunSpec]:
    """The pathology, the fix and the two inflated-RTT runs; ``full`` runs them longer."""
    return [
        RunSpec(
            label,
            r.file,
            (*r.overrides, f"scenario.duration={r.full_duration_s if full else r.duration_s}s"),
            trace=label in TRACED,
        )
        for label, r in RUNS.items()
    ]


class SenderLog(NamedTuple):
    """What the sender's qlog shows, times in s."""

    #: Departure times of data packets.
    sends: list[float]
    #: Arrival times of feedback for data packets.
    feedback: list[float]
    #: ``(time, X bit/s, R s)`` after every change of X or R.
    states: list[tuple[float, float, float]]


def sender_log(r: RunResult) -> SenderLog | None:
    """The sender's qlog trace (``trace.sqlog``, JSON-SEQ, times in ms), ``None`` if the run wrote none."""
    path = r.out_dir / "trace.sqlog" if r.out_dir else None
    if path is None or not path.exists():
        return None
    sends, feedback, states, data_pns = [], [], [], set()
    x = rtt = 0.0
    for record in path.read_text().split("\x1e"):
        ev = json.loads(record) if record.strip() else {}
        if "time" not in ev:
            continue
        t, name, data = ev["time"] / 1e3, ev["name"], ev.get("data", {})
        frames = data.get("frames", [])
        if name.endswith("packet_sent") and any(f["frame_type"] == "stream" for f in frames):
            sends.append(t)
            data_pns.add(data["header"]["packet_number"])
        elif name.endswith("packet_received"):
            acked = [hi for f in frames if f["frame_type"] == "ack" for _, hi in f["acked_ranges"]]
            if any(pn in data_pns for pn in acked):
                feedback.append(t)
        elif name.endswith("metrics_updated"):
            x = data.get("pacing_rate", x)
            rtt = data.get("smoothed_rtt", rtt * 1e3) / 1e3
            states.append((t, x, rtt))
    return SenderLog(sends, feedback, states)


def probe_samples(log: SenderLog, n: int) -> list[tuple[float, float, float]]:
    """``n`` samples ``(time, X bit/s, R s)`` as the report's dccp_probe log took them.

    The report: "sampling points are taken each time a new datagram is sent (i.e. every 98 milliseconds)":
    the state just before each application write, one every 97.8 ms from the first data packet on.
    """
    if not log.sends:
        return []
    # The first packet goes when the handshake completes: its sample includes the state set at that instant.
    times = [log.sends[0], *(k * WRITE_S for k in range(1, n))]
    out, i, state = [], 0, (0.0, 0.0, 0.0)
    for k, t in enumerate(times):
        while i < len(log.states) and (log.states[i][0] < t or (k == 0 and log.states[i][0] == t)):
            state = log.states[i]
            i += 1
        out.append((t, state[1], state[2]))
    return out


def x_series(r: RunResult) -> tuple[list[float], list[float]]:
    """Times (s) and X (bit/s) of the time series, from the first nonzero sample."""
    ts, xs = r.timeseries["time_s"], r.timeseries["pacing_rate_bps"]
    pts = [(t, x) for t, x in zip(ts, xs, strict=True) if x > 0]
    return [t for t, _ in pts], [x for _, x in pts]


class Halving(NamedTuple):
    """One change of X after the peak, as the time series saw it."""

    time_s: float
    #: X before and after, bit/s.
    before: float
    after: float
    #: Time since the previous change, s.
    interval_s: float


def halvings(r: RunResult) -> list[Halving]:
    """Every change of X after its peak (the nofeedback timer is the only thing changing it then)."""
    ts, xs = x_series(r)
    peak = xs.index(max(xs))
    out, last_t = [], ts[peak]
    for k in range(peak + 1, len(xs)):
        if xs[k] != xs[k - 1]:
            out.append(Halving(ts[k], xs[k - 1], xs[k], ts[k] - last_t))
            last_t = ts[k]
    return out


def nofeedback_interval(x_bps: float) -> float:
    """max(2·s/X, 100 ms): the nofeedback interval once R is negligible (RFC 5348 §4.4 with Linux's floor), s."""
    return max(NOFEEDBACK_MIN_S, 2 * S_BYTES * 8 / x_bps)


def _climb(samples: list[tuple[float, float, float]]) -> dict[str, float]:
    """Times of the climb's stages in the sampled log, nan when absent.

    The first X doubled from the s/R phase (between 1.5 and 3.5 segments per R, after a sample below 1.5),
    the first X at W_init/R = 4·s/R after that, and the first sample at the largest X.
    """
    nan = float("nan")
    seg = S_BYTES * 8
    per_r = [x * r / seg if r > 0 else 0.0 for _, x, r in samples]  # X in segments per R
    k1 = next((k for k in range(1, len(per_r)) if per_r[k - 1] < 1.5 <= per_r[k] < 3.5), None)
    k2 = next((k for k in range(k1 + 1, len(per_r)) if abs(per_r[k] - 4) <= 0.04), None) if k1 else None
    peak = max((x for _, x, _ in samples), default=0.0)
    k3 = next((k for k, (_, x, _) in enumerate(samples) if x >= peak * (1 - 1e-9)), None)
    return {
        "doubling starts": samples[k1][0] if k1 else nan,
        "W_init/R reached": samples[k2][0] if k2 else nan,
        "peak": samples[k3][0] if k3 is not None else nan,
    }


def judge(results: list[RunResult]) -> list[Verdict]:
    """Handshake RTT, climb, peak, feedback stop, halvings and floor of the pathology; the fix; netem runs."""
    g = {label: rs[0] for label, rs in by_label(results).items()}
    bug = g["loopback"]
    ts, xs = x_series(bug)
    flow = bug.summary["flows"][0]
    peak = max(xs)
    target = 4 * S_BYTES * 8 / LOOPBACK_RTT_S
    step = bug.timeseries["time_s"][1] - bug.timeseries["time_s"][0]
    log = sender_log(bug)
    samples = probe_samples(log, REPORT_SAMPLES) if log else []
    first_x = samples[0][1] if samples else 0.0
    first_rtt = samples[0][2] if samples else 0.0
    v = [
        Verdict(
            "first X: W_init/R with the handshake RTT",
            "11.17 Mbit/s = 88 B / 63 µs (first plotted point)",
            f"{first_x / 1e6:.2f} Mbit/s with R = {first_rtt * 1e6:.0f} µs",
            "±3 %",
            within(first_x, 4 * S_BYTES * 8 / 63e-6, 0.03),
        )
    ]
    climb = _climb(samples)
    for stage, report in REPORT_CLIMB.items():
        ours = climb[stage]
        v.append(
            Verdict(
                f"climb: {stage}" if stage != "peak" else "time of the X peak",
                f"{report:.3f} s",
                f"{ours:.3f} s (X sampled at each 97.8 ms write)",
                f"±{CLIMB_TOL_S * 1e3:.0f} ms (half a write interval)",
                abs(ours - report) <= CLIMB_TOL_S,
            )
        )
    v.append(
        Verdict("peak X", "234.7 Mbit/s = 4·s/RTT", f"{peak / 1e6:.1f} Mbit/s", "±3 %", within(peak, target, 0.03))
    )
    rtts = [r * 1e6 for _, _, r in samples]
    stats = (
        {"mean": statistics.fmean(rtts), "sd": statistics.pstdev(rtts), "min": min(rtts), "max": max(rtts)}
        if len(rtts) == REPORT_SAMPLES
        else {k: float("nan") for k in REPORT_RTT_US}
    )
    v.append(
        Verdict(
            f"RTT at each write, first {REPORT_SAMPLES}",
            "mean 8.3, sd 12.5, min 3, max 63 µs",
            ", ".join(f"{k} {x:.2f}" for k, x in stats.items()) + " µs",
            "±0.05 µs on mean and sd (the report's last digit), ±0.5 µs on min and max",
            all(abs(stats[k] - REPORT_RTT_US[k]) <= (0.05 if k in ("mean", "sd") else 0.5) for k in REPORT_RTT_US),
        )
    )
    srtt = flow["srtt_s"] or 0.0
    # R reaches the link RTT at the first state with R < 4 µs; feedback arriving after that would be for
    # packets sent with the frozen counter.
    t_frozen = next((t for t, _, r in log.states if 0 < r < 4e-6), float("inf")) if log else float("inf")
    fb_after = sum(t > t_frozen for t in log.feedback) if log else -1
    sent_after = sum(t > t_frozen for t in log.sends) if log else 0
    fb_before = len(log.feedback) - fb_after if log else 0
    v.append(
        Verdict(
            "receiver feedback once R < 4 µs",
            "stops once the RTT estimate reaches the 3 µs link RTT",
            f"{fb_before} feedback up to R = {srtt * 1e6:.1f} µs at {t_frozen:.3f} s, then {fb_after} for"
            f" {sent_after} packets",
            "R < 4 µs; no feedback after it, ≥ 10 packets sent",
            srtt < 4e-6 and fb_after == 0 and sent_after >= 10,
        )
    )
    hv = halvings(bug)
    fast = [h for h in hv if h.before >= 2 * S_BYTES * 8 / NOFEEDBACK_MIN_S]
    # X is sampled in whole bit/s: ratios are exact to 0.1 % above 1 kbit/s.
    ratios = [h.after / h.before for h in hv if h.after >= 1000] or [0.0]
    median_ms = statistics.median(h.interval_s for h in fast) * 1e3 if fast else float("nan")
    v.append(
        Verdict(
            "halving of X while 2·s/X < 100 ms",
            "X halves every 100 ms (nofeedback interval floor)",
            f"{len(fast)} halvings, median interval {median_ms:.0f} ms, ratios {min(ratios):.3f}–{max(ratios):.3f}",
            f"interval 100 ms ± {step * 1e3:.0f} ms, ratio 0.5 ± 1 %",
            len(fast) > 1
            and all(abs(h.interval_s - NOFEEDBACK_MIN_S) <= step + 1e-9 for h in fast[1:])
            and all(abs(q - 0.5) <= 0.005 for q in ratios),
        )
    )
    first_long = next((h for h in hv if h.interval_s > NOFEEDBACK_MIN_S + step), None)
    # Above 100 bit/s the sampled X is exact to 0.5 %; the last steps near the floor are not compared.
    timed = [h for h in hv if first_long and first_long.time_s < h.time_s and h.before >= 100]
    errs = [abs(h.interval_s - nofeedback_interval(h.before)) / nofeedback_interval(h.before) for h in timed]
    v.append(
        Verdict(
            "slow-down below 3.52 kbit/s",
            "halving slows once t_ipi = s/X > 50 ms (X < 3.52 kbit/s): expiry after 2·t_ipi",
            f"first interval > 100 ms at X = {first_long.before if first_long else float('nan'):.0f} bit/s;"
            f" {len(errs)} later intervals match 2·s/X within {max(errs, default=0):.1%}",
            f"first slow interval below 3.52 kbit/s; later ones 2·s/X ± (5 % + {step * 1e3:.0f} ms)",
            first_long is not None
            and first_long.before < 2 * S_BYTES * 8 / NOFEEDBACK_MIN_S
            and len(timed) > 0
            and all(e <= 0.05 + step / nofeedback_interval(h.before) for e, h in zip(errs, timed, strict=True)),
        )
    )
    floor = S_BYTES * 8 / T_MBI_S
    # The column holds whole bit/s: 2.75 bit/s reads as 3.
    last_change = hv[-1].time_s if hv else ts[0]
    v.append(
        Verdict(
            "X at the end",
            "→ s/t_mbi = 1 packet per 64 s (2.75 bit/s)",
            f"{xs[-1]:.0f} bit/s, unchanged for the last {ts[-1] - last_change:.0f} s",
            "±0.5 bit/s (whole-bit/s samples), flat for ≥ 2·t_mbi",
            abs(xs[-1] - floor) <= 0.5 and ts[-1] - last_change >= 2 * T_MBI_S,
        )
    )
    fix = g["rtt-clamp"]
    f_flow = fix.summary["flows"][0]
    f_x = [x for t, x in zip(*x_series(fix), strict=True) if t >= SETTLED_S]
    eq = S_BYTES * 8 / CLAMP_S
    v.append(
        Verdict(
            "fix (RTT samples ≥ 100 µs): feedback and X",
            "feedback continues; X stays at its equilibrium s/R",
            f"{f_flow['acks_sent']} feedback for {f_flow['data_packets_sent']} packets; X {min(f_x) / 1e6:.3f}–"
            f"{max(f_x) / 1e6:.3f} Mbit/s (s/R = {eq / 1e6:.2f})",
            "feedback ≥ 95 % of packets; X within ±3 % of s/R",
            f_flow["acks_sent"] >= 0.95 * f_flow["data_packets_sent"] and all(within(x, eq, 0.03) for x in f_x),
        )
    )
    for label, report in REPORT_S_PER_RTT.items():
        xs_ = [x for t, x in zip(*x_series(g[label]), strict=True) if t >= SETTLED_S]
        v.append(
            Verdict(
                f"X with RTT {label[4:]} (netem)",
                f"converges to s/RTT = {report / 1e3:.0f} kbit/s",
                f"{min(xs_) / 1e3:.1f}–{max(xs_) / 1e3:.1f} kbit/s after {SETTLED_S:.0f} s",
                "every sample ±3 %",
                all(within(x, report, 0.03) for x in xs_),
            )
        )
    return v


def _rtt_series(r: RunResult) -> tuple[list[float], list[float]]:
    """Times (s) and the sender's R (µs): each change in the qlog (handshake included), else the time series."""
    log = sender_log(r)
    if log:
        pts = [(t, rtt * 1e6) for t, _, rtt in log.states if rtt > 0]
        if pts:  # R holds until the end of the run
            pts.append((r.timeseries["time_s"][-1], pts[-1][1]))
    else:
        pts = [(t, rtt * 1e6) for t, rtt in zip(r.timeseries["time_s"], r.timeseries["srtt_s"], strict=True) if rtt > 0]
    return [t for t, _ in pts], [x for _, x in pts]


def figures(results: list[RunResult], out_dir: Path) -> list[Path]:
    """X, t_ipi, allowed packets/s and R over time (log scale), as the report: loopback; inflated RTTs and fix."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g = {label: rs[0] for label, rs in by_label(results).items()}
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    panels = (
        ("allowed sending rate X (bit/s)", lambda x: x),
        ("inter-packet interval t_ipi = s/X (s)", lambda x: S_BYTES * 8 / x),
        ("allowed packets per second X/s", lambda x: x / (S_BYTES * 8)),
    )
    groups = {
        "seed-004-loopback": (("loopback", "loopback, RTT 3 µs"),),
        "seed-004-inflated-rtt": (
            ("rtt-1ms", "RTT 1 ms (0.5 ms netem)"),
            ("rtt-2ms", "RTT 2 ms (1 ms netem)"),
            ("rtt-clamp", "loopback, RTT samples ≥ 100 µs (fix)"),
        ),
    }
    for name, runs in groups.items():
        fig, grid = plt.subplots(2, 2, figsize=(12, 8))
        axes = grid.ravel()
        for ax, (ylabel, f) in zip(axes, panels, strict=False):
            for label, legend in runs:
                ts, xs = x_series(g[label])
                ax.step(ts, [f(x) for x in xs], where="post", label=legend, lw=1.2)
            ax.set_ylabel(ylabel)
        for label, legend in runs:
            ts, rs = _rtt_series(g[label])
            axes[3].step(ts, rs, where="post", label=legend, lw=1.2)
        axes[3].set_ylabel("smoothed RTT R (µs)")
        for ax in axes:
            ax.set_yscale("log")
            ax.set_xlabel("time (s)")
            ax.grid(True, which="major", alpha=0.3)
        if name == "seed-004-loopback":
            log = sender_log(g["loopback"])
            if log:
                pts = probe_samples(log, REPORT_SAMPLES)
                axes[0].plot([t for t, _, _ in pts], [x for _, x, _ in pts], "k.", ms=3, label="at each write")
            axes[0].axhline(4 * S_BYTES * 8 / LOOPBACK_RTT_S, color="k", ls=":", lw=0.8, label="4·s/RTT")
            axes[0].axhline(S_BYTES * 8 / T_MBI_S, color="gray", ls="--", lw=0.8, label="s/t_mbi")
            axes[3].axhline(LOOPBACK_RTT_S * 1e6, color="k", ls=":", lw=0.8, label="link RTT 3 µs")
            for ax in axes:
                ax.set_xscale("symlog", linthresh=4.0)
                ax.set_xlim(0, None)
                ax.set_xticks([0, 1, 2, 3, 4, 10, 30, 100], ["0", "1", "2", "3", "4", "10", "30", "100"])
                ax.set_xlabel("time (s, linear to 4 s, then log)")
        axes[0].legend(fontsize=8)
        axes[3].legend(fontsize=8)
        fig.suptitle("CCID-3 over loopback: " + ", ".join(legend for _, legend in runs))
        fig.tight_layout()
        paths += save_figure(fig, out_dir, name, dpi=130)
    return paths
