"""The tables of a run summary: one row per flow, one row per link direction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cclab.cli._render import Table
from cclab.many_flows import MANY_FLOWS, SHOWN_FLOWS

MISSING = "—"


def fmt_rate(bps: float | None) -> str:
    """Bits/s with an SI prefix: ``12.3 Mbit/s``."""
    if bps is None:
        return MISSING
    for scale, unit in ((1e12, "Tbit/s"), (1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
        if abs(bps) >= scale:
            return f"{bps / scale:.3g} {unit}"
    return f"{bps:.3g} bit/s"


def fmt_secs(s: float | None) -> str:
    """Seconds in the most readable unit: ``850 µs``, ``20.5 ms``, ``1.25 s``, ``10 h``."""
    if s is None:
        return MISSING
    for scale, unit in ((3600.0, "h"), (1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(s) >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def fmt_bytes(n: float | None) -> str:
    """Bytes with an SI prefix: ``64.2 kB``."""
    if n is None:
        return MISSING
    for scale, unit in ((1e12, "TB"), (1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if abs(n) >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def fmt_pct(x: float | None) -> str:
    """A fraction as a percentage: ``97.1 %``."""
    return MISSING if x is None else f"{100 * x:.3g} %"


#: Flow-table columns after ``flow``: summary key and formatter.
FLOW_COLUMNS = (
    ("goodput", "goodput_bps", fmt_rate),
    ("completion", "completion_time_s", fmt_secs),
    ("loss", "loss_rate", fmt_pct),
    ("ACK interval", "ack_interval_mean_s", fmt_secs),
    ("srtt", "srtt_s", fmt_secs),
    ("cwnd max", "cwnd_max_bytes", fmt_bytes),
)


def flow_table(flows: Sequence[Mapping[str, Any]]) -> Table:
    """One row per flow, or for more than ``MANY_FLOWS`` flows the first few and the spread over all.

    The spread is min, median and max of each column over every flow: a `count = 1000` dumbbell would
    otherwise print a thousand rows.
    """
    table = Table("Flows")
    table.add_column("flow")
    for title, _, _ in FLOW_COLUMNS:
        table.add_column(title, right=True)

    def cell(f: Mapping[str, Any], key: str, fmt: Any) -> str:
        if key == "completion_time_s" and f.get(key) is None:
            return "incomplete"
        return fmt(f.get(key))

    shown = flows if len(flows) <= MANY_FLOWS else flows[:SHOWN_FLOWS]
    for f in shown:
        table.add_row(str(f.get("flow")), *(cell(f, key, fmt) for _, key, fmt in FLOW_COLUMNS))
    if len(shown) == len(flows):
        return table
    table.add_row(f"… {len(flows) - len(shown)} more", *([""] * len(FLOW_COLUMNS)))
    spread = {key: sorted(v for f in flows if (v := f.get(key)) is not None) for _, key, _ in FLOW_COLUMNS}
    for label, pick in (("min", lambda v: v[0]), ("median", lambda v: v[(len(v) - 1) // 2]), ("max", lambda v: v[-1])):
        table.add_row(label, *(fmt(pick(spread[key])) if spread[key] else MISSING for _, key, fmt in FLOW_COLUMNS))
    done = len(spread["completion_time_s"])
    table.caption = f"min, median, max over all {len(flows)} flows ({done} complete); summary.json has every flow"
    return table


def summary_tables(summary: Mapping[str, Any]) -> list[str | Table]:
    """The header line, the flow table and the link table of a run summary, and the emulator's and fairness lines."""
    sim = summary.get("sim", {})
    header = (
        f"scenario {summary.get('scenario', '?')}  seed {summary.get('seed', '?')}"
        f"  simulated {fmt_secs(sim.get('sim_time_s'))}  wall {fmt_secs(sim.get('wall_s'))}"
        f"  events/s {sim.get('events_per_s', 0):.3g}"
    )
    links = Table("Links")
    for col in ("link", "direction", "utilisation", "drops"):
        links.add_column(col, right=col not in ("link", "direction"))
    for link in summary.get("links", []):
        links.add_row(
            str(link.get("name")),
            str(link.get("direction")),
            fmt_pct(link.get("utilisation")),
            str(link.get("drops")),
        )
    parts: list[str | Table] = [header, flow_table(summary.get("flows", [])), links]
    if summary.get("emulator"):
        parts.append(emulator_line(summary["emulator"], summary.get("links", [])))
    if summary.get("fairness_jain") is not None:
        parts.append(f"Jain fairness index {summary['fairness_jain']:.4f}")
    return parts


def emulator_line(em: Mapping[str, Any], links: Sequence[Mapping[str, Any]]) -> str:
    """How well the real-time emulator kept to the model (real and kernel modes), and what rate each link reached.

    The wall clock cannot follow every path (1 Tbit/s, hours of delay): this is where the run says what the
    machine gave, beside the results, rather than only in summary.json.
    """
    packets = em.get("packets") or 0
    late = em.get("late_packets") or 0
    share = f" ({late / packets:.1%})" if packets else ""
    line = (
        f"emulator {packets:,} packets  release error p50 {fmt_secs(em.get('release_error_p50_s'))}"
        f"  p99 {fmt_secs(em.get('release_error_p99_s'))}  max {fmt_secs(em.get('release_error_max_s'))}"
        f"  later than {fmt_secs(em.get('late_threshold_s'))}: {late:,}{share}"
    )
    for link in links:
        if link.get("configured_rate_bps") is not None:
            line += (
                f"\n{link.get('name')} {fmt_rate(link.get('achieved_rate_bps'))} achieved of "
                f"{fmt_rate(link['configured_rate_bps'])}"
            )
    return line
