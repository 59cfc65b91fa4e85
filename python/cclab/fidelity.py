"""Model against reality (``cclab fidelity``): each scenario simulated and run for real, side by side.

A TCP flow runs on the kernel's TCP (``kernel=True``), a QUIC flow on real sockets (``real=True``).

Both runs see the same path model: the simulator's links, driven by simulated time in one and by the wall clock in
the other. What differs is the transport (cclab's TCP model against Linux TCP) and the hosts (modelled against
this machine), so a relative difference is the model's error for that scenario, plus the emulator's timing error
that ``summary.json``'s ``emulator`` section reports.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cclab import _core
from cclab.api import Result, load, run

#: The metrics compared, as (key, label, unit).
METRICS = (
    ("completion_time_s", "completion", "s"),
    ("goodput_bps", "goodput", "bit/s"),
    ("retransmitted_packets", "retransmissions", "packets"),
    ("mean_cwnd_bytes", "mean cwnd", "bytes"),
    ("mean_srtt_s", "mean srtt", "s"),
)


def _metrics(result: Result) -> dict[str, float | None]:
    flow = result.summary["flows"][0]
    ts = result.timeseries
    mask = ts["flow"] == 0
    # Over the transfer only: samples after completion would weigh an idle connection's state.
    done = flow["completion_time_s"]
    if done is not None:
        mask &= ts["time_s"] <= done
    # From the first sample with an RTT estimate: kernel mode samples TCP_INFO only once the connection is open
    # (after its SYN exchange), so a model flow with `handshake` must not count its cwnd while it waits for the
    # SYN-ACK (10 samples of the initial window in a 100 ms RTT), nor a flow without it its first round trip.
    srtt = ts["srtt_s"][mask]
    measured = np.nan_to_num(srtt) > 0
    cwnd = ts["cwnd_bytes"][mask][np.cumsum(measured) > 0]
    srtt = srtt[measured]
    return {
        "completion_time_s": done,
        "goodput_bps": flow["goodput_bps"],
        "retransmitted_packets": float(flow["retransmitted_packets"]),
        "mean_cwnd_bytes": float(np.mean(cwnd)) if cwnd.size else None,
        "mean_srtt_s": float(np.mean(srtt)) if srtt.size else None,
    }


def relative(model: float | None, real: float | None) -> float | None:
    """``(real − model) / model``; None when either is missing or the model's value is 0."""
    if model is None or real is None or model == 0:
        return None
    return (real - model) / model


def compare(
    scenario: str | Path,
    *,
    out: Path,
    set: Iterable[str] = (),  # noqa: A002 - mirrors the CLI's --set
    seed: int | None = None,
) -> dict[str, Any]:
    """Simulate `scenario`, run it on the kernel (TCP) or real sockets (QUIC), and compare.

    Writes ``out/sim`` and ``out/kernel`` or ``out/real``, and the two overlaid (`cclab.compare.plot`: cwnd,
    srtt, goodput, ACK interval) as ``out/compare-*.png``/``.svg``; returns ``{"scenario", "mode", "sim", "other",
    "relative", "emulator", "figures"}``.
    """
    from cclab.compare import load_entries
    from cclab.compare import plot as overlay

    overrides = list(set)
    sc = load(scenario, overrides)
    sim = run(sc, seed=seed, out=out / "sim", qlog=None)
    profile = "tcp" if _is_tcp(scenario, overrides) else "quic"
    mode = "kernel" if profile == "tcp" else "real"
    other = run(sc, seed=seed, out=out / mode, qlog=None, kernel=mode == "kernel", real=mode == "real")
    m_sim, m_other = _metrics(sim), _metrics(other)
    figures = overlay(load_entries([out / "sim", out / mode]), out)
    return {
        "scenario": sc.name,
        "mode": mode,
        "sim": m_sim,
        "other": m_other,
        "relative": {k: relative(m_sim[k], m_other[k]) for k, _, _ in METRICS},
        "emulator": other.summary.get("emulator"),
        "figures": [str(f) for f in figures],
    }


def _is_tcp(scenario: str | Path, overrides: Sequence[str]) -> bool:
    """Whether the first flow uses the TCP profile (after overrides)."""
    for o in overrides:
        key, _, value = o.partition("=")
        if key.strip() in ("flow[0].profile", "flow.0.profile"):
            return value.strip().strip("'\"") == "tcp"
    import tomllib

    flows = tomllib.loads(_core.read_scenario_text(scenario)).get("flow", [])
    return bool(flows) and flows[0].get("profile") == "tcp"


def fidelity(
    scenarios: Sequence[str | Path],
    *,
    out: str | Path,
    set: Iterable[str] = (),  # noqa: A002 - mirrors the CLI's --set
    seed: int | None = None,
) -> list[dict[str, Any]]:
    """`compare` for each scenario into ``out/<scenario name>/``; writes ``out/fidelity.json``."""
    root = Path(out)
    rows = [compare(s, out=root / Path(s).stem, set=set, seed=seed) for s in scenarios]
    root.mkdir(parents=True, exist_ok=True)
    (root / "fidelity.json").write_text(json.dumps(rows, indent=2) + "\n")
    return rows
