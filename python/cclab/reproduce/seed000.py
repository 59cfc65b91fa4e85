"""Seed 000: loopback ACK delays cause CUBIC slowdowns (Huitema, 23 Oct 2024; picoquic PR #1764).

The report: picoquic downloads over a Windows loopback (min RTT ≈ 20 µs, mean 65 µs). The sender asked the
peer, through ACK_FREQUENCY frames, for one ACK per 1/4 of the congestion window with a 1 ms max ACK delay
(the peer's min_ack_delay). The window was "initially quite large", so the peer ACKed only when its 1 ms
timer fired, and CUBIC slowed down over time: 1.3–1.8 Gbit/s for 10 GB transfers against 1.7–3.5 for 1 GB.
Capping the gap at 32 when min RTT < 4 × ACK delay gave 3.4 Gbit/s (3.3–3.5), one ACK per ~0.1 ms; BBR
gained too, "but less marked"; losses were 0.4–0.5 %.

Runs: the pair scenarios/seeds/seed-000-loopback-ack-gap{,-capped}.toml (gap = cwnd/4 never lowered, as
picoquic; the fix caps it at 32), for CUBIC and BBR, a short and a long transfer, several seeds (the report's
16 connections). Judges read the run summaries (goodput, ACK interval, loss rate) and the time series
(smoothed RTT).
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any, NamedTuple

from cclab.reproduce.harness import RunResult, RunSpec, Verdict, by_label, save_figure

TITLE = "Seed 000: an ACK gap of cwnd/4 that never shrinks slows CUBIC on loopback; capping it at 32 fixes it"

SCENARIOS = {"uncapped": "seed-000-loopback-ack-gap.toml", "capped": "seed-000-loopback-ack-gap-capped.toml"}
CCS = ("cubic", "bbr")
#: CUBIC as in the scenario files (picoquic's beta); BBR with its defaults.
CC_OVERRIDE = {"cubic": (), "bbr": ('flow[0].cc={algorithm="bbr"}',)}


class Sizes(NamedTuple):
    """Transfer sizes and connections per configuration."""

    short: str
    long: str
    seeds: int


#: `make test`: the report's sizes with 4 connections (the report: 16). Shorter transfers would not show the
#: slowdown: the window takes about 1.4 s to drift from the CPU-bound start to the slow state.
DEFAULT = Sizes("1GB", "10GB", 4)
FULL = Sizes("1GB", "10GB", 16)
#: The report's per-connection rates by transfer size, CUBIC without the cap (figure 1), Gbit/s.
REPORT_UNCAPPED = {"1GB": (1.7, 3.5), "10GB": (1.3, 1.8)}


def label(cc: str, variant: str, size: str) -> str:
    """Run label, e.g. ``cubic-uncapped-long``."""
    return f"{cc}-{variant}-{size}"


def plan(full: bool) -> list[RunSpec]:
    """Each CC without the cap at both sizes, and with the cap at the long size; one seed per connection.

    Default: 4 connections of 1 GB and 10 GB (BBR: 2); full: 16 of each.
    """
    sizes = FULL if full else DEFAULT
    specs = []
    for cc in CCS:
        seeds = sizes.seeds if full or cc == "cubic" else sizes.seeds // 2
        for variant, size in (("uncapped", "short"), ("uncapped", "long"), ("capped", "long")):
            nbytes = getattr(sizes, size)
            overrides = (f'flow[0].source.size="{nbytes}"', *CC_OVERRIDE[cc])
            specs += [
                RunSpec(label(cc, variant, size), SCENARIOS[variant], overrides, seed, timeseries_interval="10ms")
                for seed in range(1, seeds + 1)
            ]
    return specs


def _size_of(r: RunResult) -> str:
    """The transfer size a run was given (its source-size override)."""
    return next(o.split("=", 1)[1].strip('"') for o in r.spec.overrides if o.startswith("flow[0].source.size"))


def _flow(r: RunResult) -> dict[str, Any]:
    return r.summary["flows"][0]


def rates_gbps(runs: list[RunResult]) -> list[float]:
    """Goodput of each run, Gbit/s, sorted (the report's figures plot them sorted)."""
    return sorted(_flow(r)["goodput_bps"] / 1e9 for r in runs)


def mean_srtt_s(r: RunResult) -> float:
    """Time average of the sender's smoothed RTT once something was acknowledged, s.

    Rows before the first ACK carry the initial RTT (333 ms), not a measurement.
    """
    ts = r.timeseries
    srtt = [s for s, acked in zip(ts["srtt_s"], ts["bytes_acked"], strict=True) if acked > 0]
    return statistics.fmean(srtt) if srtt else 0.0


def spread(rates: list[float]) -> float:
    """(max − min) / median of the rates."""
    return (max(rates) - min(rates)) / statistics.median(rates)


def _median(runs: list[RunResult], key: Any) -> float:
    return statistics.median(key(r) for r in runs)


def judge(results: list[RunResult]) -> list[Verdict]:
    """The report's claims, CUBIC first, then BBR.

    Long transfers slower than short without the cap; the cap restores ~3.4 Gbit/s with a narrow spread;
    ACKs every ~1 ms vs ~0.1 ms; 0.1–1 % loss; the time-averaged RTT; BBR gains less from the cap than CUBIC.
    """
    g = by_label(results)
    cu_s, cu_l, cu_c = (
        g[label("cubic", v, s)] for v, s in (("uncapped", "short"), ("uncapped", "long"), ("capped", "long"))
    )
    short_size, long_size = _size_of(cu_s[0]), _size_of(cu_l[0])
    r_s, r_l, r_c = rates_gbps(cu_s), rates_gbps(cu_l), rates_gbps(cu_c)
    m_s, m_l, m_c = (statistics.median(x) for x in (r_s, r_l, r_c))
    n = len(r_l)
    verdicts = [
        Verdict(
            f"CUBIC without cap: median rate, {short_size} vs {long_size} transfers",
            '1 GB: 1.7–3.5, 10 GB: 1.3–1.8 Gbit/s ("dropped by a factor 2")',
            f"{m_s:.2f} vs {m_l:.2f} Gbit/s ({m_s / m_l:.2f}×, {n} connections each)",
            "short / long ≥ 1.25",
            m_s >= 1.25 * m_l,
        ),
        Verdict(
            f"CUBIC {long_size}: median rate with / without the cap",
            "3.4 vs 1.5 Gbit/s (PR #1764: 3.36 ± 1 % vs 1.5 ± 8 %)",
            f"{m_c:.2f} vs {m_l:.2f} Gbit/s ({m_c / m_l:.2f}×)",
            "≥ 1.5×",
            m_c >= 1.5 * m_l,
        ),
        Verdict(
            f"CUBIC {long_size} with the cap: median rate",
            "3.4 Gbit/s (3.3–3.5)",
            f"{m_c:.2f} Gbit/s (range {r_c[0]:.2f}–{r_c[-1]:.2f})",
            "3.1–3.6 Gbit/s",
            3.1 <= m_c <= 3.6,
        ),
        Verdict(
            f"CUBIC {long_size}: spread (max − min) / median, with vs without the cap",
            "3.3–3.5 (6 %) vs 1.3–1.8 (33 %)",
            f"{spread(r_c):.0%} vs {spread(r_l):.0%}",
            "with ≤ ½ × without",
            spread(r_c) <= 0.5 * spread(r_l),
        ),
    ]
    if long_size in REPORT_UNCAPPED:
        lo, hi = REPORT_UNCAPPED[long_size]
        verdicts.append(
            Verdict(
                f"CUBIC {long_size} without the cap: median rate",
                f"{lo}–{hi} Gbit/s",
                f"{m_l:.2f} Gbit/s (range {r_l[0]:.2f}–{r_l[-1]:.2f})",
                f"{0.9 * lo:.2f}–{1.1 * hi:.2f} Gbit/s (report range ± 10 %)",
                0.9 * lo <= m_l <= 1.1 * hi,
            )
        )
    ack_l = _median(cu_l, lambda r: _flow(r)["ack_interval_mean_s"])
    ack_c = _median(cu_c, lambda r: _flow(r)["ack_interval_mean_s"])
    verdicts += [
        Verdict(
            f"CUBIC {long_size}: mean ACK interval, without / with the cap",
            "1.1 ms (50,000 ACKs per 10 GB) / about 0.1 ms",
            f"{ack_l * 1e3:.2f} ms / {ack_c * 1e3:.3f} ms",
            "0.9–1.3 ms / 0.07–0.15 ms",
            0.9e-3 <= ack_l <= 1.3e-3 and 0.07e-3 <= ack_c <= 0.15e-3,
        ),
    ]
    loss_l = _median(cu_l, lambda r: _flow(r)["loss_rate"])
    loss_c = _median(cu_c, lambda r: _flow(r)["loss_rate"])
    # The report gives one figure for all its experiments: judge the median over both sets of connections.
    loss = _median(cu_l + cu_c, lambda r: _flow(r)["loss_rate"])
    verdicts.append(
        Verdict(
            f"CUBIC {long_size}: loss rate (socket-buffer drops), median of all connections",
            '"between 0.4 and 0.5 % in the experiments"',
            f"{loss:.2%} (without the cap {loss_l:.2%}, with {loss_c:.2%})",
            "0.1–1 %",
            0.001 <= loss <= 0.01,
        )
    )
    rtt = _median(cu_l, mean_srtt_s)
    verdicts.append(
        Verdict(
            f"CUBIC {long_size} without the cap: time-averaged smoothed RTT (median over connections)",
            "65 µs average (min ≈ 20 µs, PR #1761)",
            f"{rtt * 1e6:.0f} µs (min {_median(cu_l, lambda r: _flow(r)['min_rtt_s']) * 1e6:.0f} µs)",
            "within a factor 2: 33–130 µs",
            33e-6 <= rtt <= 130e-6,
        )
    )
    bb_l, bb_c = rates_gbps(g[label("bbr", "uncapped", "long")]), rates_gbps(g[label("bbr", "capped", "long")])
    gain_bbr = statistics.median(bb_c) / statistics.median(bb_l)
    verdicts.append(
        Verdict(
            f"{long_size}: gain from the cap, BBR vs CUBIC (median rates)",
            'BBR: "also positive, but less marked"',
            f"BBR {gain_bbr:.2f}× ({statistics.median(bb_l):.2f} → {statistics.median(bb_c):.2f} Gbit/s), "
            f"CUBIC {m_c / m_l:.2f}×",
            "BBR's gain < CUBIC's",
            gain_bbr < m_c / m_l,
        )
    )
    return verdicts


NAMES = {"cubic": "Cubic", "bbr": "BBR"}
#: Colour, marker and marker fill per controller (BBR hollow, so equal rates stay visible); the dashed line
#: is the short transfer (figure 1) or the cap (figure 2).
LOOK = {"cubic": ("C0", "o", "C0"), "bbr": ("C3", "s", "none")}


def marker_offset(i: int, n: int, width: float = 0.5) -> float:
    """Sideways shift of series ``i`` of ``n`` on the connection-rank axis: spread over ``width``, centred."""
    return 0.0 if n < 2 else (i / (n - 1) - 0.5) * width


def figures(results: list[RunResult], out_dir: Path) -> list[Path]:
    """The report's two figures: each configuration's connections, rate sorted, one line per configuration."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    g = by_label(results)
    short_size, long_size = (
        _size_of(g[label("cubic", "uncapped", "short")][0]),
        _size_of(g[label("cubic", "uncapped", "long")][0]),
    )
    sizes = {"short": short_size, "long": long_size}

    def draw(lines: list[tuple[str, str, str]], hollow: str, title: str, stem: str) -> list[Path]:
        fig, ax = plt.subplots(figsize=(8, 5))
        for i, (cc, variant, size) in enumerate(lines):
            rates = rates_gbps(g[label(cc, variant, size)])
            name = f"{NAMES[cc]}, {sizes[size]}" + (", gap ≤ 32" if variant == "capped" else "")
            color, marker, fill = LOOK[cc]
            # Connections are categories (rank by rate): markers only, no line between them; each series is
            # shifted a little sideways so none hides under another's markers.
            xs = [k + marker_offset(i, len(lines)) for k in range(1, len(rates) + 1)]
            face = "none" if hollow in (variant, size) else fill
            ax.plot(xs, rates, linestyle="none", marker=marker, ms=6, mfc=face, color=color, label=name)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("connection (sorted by data rate)")
        ax.set_ylabel("data rate (Gbit/s)")
        ax.set_ylim(0, 4)
        ax.grid(color="0.92")
        ax.set_title(title, fontsize=11)
        ax.legend(fontsize=9, loc="lower right")
        fig.tight_layout()
        return save_figure(fig, out_dir, stem)

    # Hollow markers: the short transfers (figure 1) and the capped runs (figure 2); series side by side.
    fig1 = [(cc, "uncapped", size) for cc in reversed(CCS) for size in ("short", "long")]
    fig2 = [(cc, variant, "long") for cc in reversed(CCS) for variant in ("uncapped", "capped")]
    title1 = f"Loopback data rate, {short_size} vs {long_size} downloads (ACK gap = cwnd/4, never lowered)"
    title2 = f"Loopback data rate before and after capping the ACK gap to 32 ({long_size} downloads)"
    return draw(fig1, "short", title1, "seed000_fig1_sizes") + draw(fig2, "capped", title2, "seed000_fig2_cap")
