"""Seed 000 for real: the ACK-frequency gap rule on this machine's loopback (``cclab reproduce seed-000 --real``).

The same scenario pair as the simulated case (CUBIC with picoquic's beta, ACK_FREQUENCY gap = cwnd/4 never
lowered, min ACK delay 1 ms; the fix caps the gap at 32), run with cclab's endpoints on real UDP sockets and the
wall clock. The modelled loopback path (6 µs ± 2 µs each way) is replaced by the machine's own loopback, and the
host CPU models are not used: this machine's CPU, scheduler and socket buffers are the host. Runs go one at a
time so that connections do not share the CPU. The verdicts are the mechanism's signatures (ACKs on the 1 ms
timer without the cap, far more often with it, and the rate the cap gives back); the absolute rates are this
machine's and are printed as measured.
"""

from __future__ import annotations

import statistics
from pathlib import Path

from cclab.reproduce.harness import RunResult, RunSpec, Verdict, by_label, save_figure
from cclab.reproduce.seed000 import SCENARIOS, rates_gbps, spread

TITLE = "Seed 000 for real: the ACK gap of cwnd/4 on this machine's loopback, with and without the cap at 32"

#: Plain loopback instead of the modelled one: real mode then needs no emulator between the endpoints.
LOOPBACK = tuple(f"path.{d}.{k}={v}" for d in ("forward", "return") for k, v in (("delay", '"0s"'), ("jitter", '"0s"')))
#: Transfer size and connections per variant, default and ``--full``. On this kind of machine a connection
#: without the cap either falls into the ACK-starved state early or never does, so a verdict needs several.
DEFAULT = ("1GB", 8)
FULL = ("10GB", 16)


def plan(full: bool) -> list[RunSpec]:
    """Each variant, one connection per seed, on plain loopback."""
    size, n = FULL if full else DEFAULT
    return [
        RunSpec(variant, scenario, (f'flow[0].source.size="{size}"', *LOOPBACK), seed, "10ms", real=True)
        for variant, scenario in SCENARIOS.items()
        for seed in range(1, n + 1)
    ]


def _median(runs: list[RunResult], key: str) -> float:
    return statistics.median(r.summary["flows"][0][key] or 0.0 for r in runs)


def judge(results: list[RunResult]) -> list[Verdict]:
    """Judge the mechanism on real sockets.

    The ACK interval follows the 1 ms timer without the cap and the gap of 32 with it; the cap raises CUBIC's
    rate (the report: ×2.2); the data arrive intact; the loss is what the machine gave.
    """
    g = by_label(results)
    unc, cap = g["uncapped"], g["capped"]
    r_u, r_c = rates_gbps(unc), rates_gbps(cap)
    m_u, m_c = statistics.median(r_u), statistics.median(r_c)
    slowed = sum(r < m_c / 2 for r in r_u)
    ack_u, ack_c = _median(unc, "ack_interval_mean_s"), _median(cap, "ack_interval_mean_s")
    loss_u, loss_c = _median(unc, "loss_rate"), _median(cap, "loss_rate")
    errors = sum(r.summary["flows"][0].get("decode_errors") or 0 for r in results)
    delivered = all(r.summary["flows"][0]["completion_time_s"] is not None for r in results)
    return [
        Verdict(
            "mean ACK interval, without / with the cap at 32",
            "1.1 ms (ACKs on the 1 ms min ACK delay) / about 0.1 ms",
            f"{ack_u * 1e3:.3f} ms / {ack_c * 1e3:.3f} ms",
            "without ≥ 2 × with",
            ack_u >= 2 * ack_c,
        ),
        Verdict(
            "median rate with / without the cap",
            "3.4 vs 1.5 Gbit/s (×2.2) on the report's laptop",
            f"{m_c:.2f} vs {m_u:.2f} Gbit/s (×{m_c / m_u:.2f}; ranges {r_c[0]:.2f}–{r_c[-1]:.2f} and "
            f"{r_u[0]:.2f}–{r_u[-1]:.2f})",
            "≥ 1.25×",
            m_c >= 1.25 * m_u,
        ),
        Verdict(
            "connections without the cap slowed below half the capped median",
            "all 16: 1.3–1.8 vs 3.4 Gbit/s (10 GB)",
            f"{slowed} of {len(r_u)} (at {', '.join(f'{r:.2f}' for r in r_u if r < m_c / 2) or '—'} Gbit/s)",
            "≥ 1 (the pathology appears on this machine)",
            slowed >= 1,
        ),
        Verdict(
            "spread (max − min) / median, with vs without the cap",
            "6 % vs 33 %",
            f"{spread(r_c):.0%} vs {spread(r_u):.0%}",
            "measured (no tolerance: a few connections)",
            True,
        ),
        Verdict(
            "loss rate, without / with the cap (median)",
            "0.4–0.5 %",
            f"{loss_u:.2%} / {loss_c:.2%}",
            "measured (this machine's socket buffers decide)",
            True,
        ),
        Verdict(
            "every transfer complete, every byte intact",
            "—",
            f"{'all complete' if delivered else 'INCOMPLETE'}, {errors} decode errors",
            "complete, 0 errors",
            delivered and errors == 0,
        ),
    ]


def figures(results: list[RunResult], out_dir: Path) -> list[Path]:
    """Each variant's connections, rate sorted, as the report's figure 2."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g = by_label(results)
    fig, ax = plt.subplots(figsize=(8, 5))
    for variant, style, name in (("uncapped", "-", "gap = cwnd/4"), ("capped", "--", "gap ≤ 32")):
        rates = rates_gbps(g[variant])
        ax.plot(range(1, len(rates) + 1), rates, style, marker="o", color="C0", label=f"CUBIC, {name}")
    ax.set_xlabel("connection (sorted by data rate)")
    ax.set_ylabel("data rate (Gbit/s)")
    ax.set_ylim(bottom=0)
    ax.grid(color="0.92")
    ax.set_title("Real loopback (this machine): data rate before and after capping the ACK gap", fontsize=11)
    ax.legend(fontsize=9, loc="lower right")
    fig.tight_layout()
    return save_figure(fig, out_dir, "seed000_real_cap")
