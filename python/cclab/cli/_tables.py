"""Rich tables of a run summary: one row per flow, one row per link direction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

MISSING = "—"


def fmt_rate(bps: float | None) -> str:
    """Bits/s with an SI prefix: ``12.3 Mbit/s``."""
    if bps is None:
        return MISSING
    for scale, unit in ((1e9, "Gbit/s"), (1e6, "Mbit/s"), (1e3, "kbit/s")):
        if abs(bps) >= scale:
            return f"{bps / scale:.3g} {unit}"
    return f"{bps:.3g} bit/s"


def fmt_secs(s: float | None) -> str:
    """Seconds in the most readable unit: ``850 µs``, ``20.5 ms``, ``1.25 s``."""
    if s is None:
        return MISSING
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(s) >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s * 1e9:.3g} ns"


def fmt_bytes(n: float | None) -> str:
    """Bytes with an SI prefix: ``64.2 kB``."""
    if n is None:
        return MISSING
    for scale, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if abs(n) >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def fmt_pct(x: float | None) -> str:
    """A fraction as a percentage: ``97.1 %``."""
    return MISSING if x is None else f"{100 * x:.3g} %"


def summary_tables(summary: Mapping[str, Any]) -> Group:
    """The header line, the flow table and the link table of a run summary."""
    sim = summary.get("sim", {})
    header = Text.assemble(
        ("scenario ", "dim"),
        (str(summary.get("scenario", "?")), "bold"),
        ("  seed ", "dim"),
        str(summary.get("seed", "?")),
        ("  simulated ", "dim"),
        fmt_secs(sim.get("sim_time_s")),
        ("  wall ", "dim"),
        fmt_secs(sim.get("wall_s")),
        ("  events/s ", "dim"),
        f"{sim.get('events_per_s', 0):.3g}",
    )
    flows = Table(title="Flows", title_justify="left")
    for col in ("flow", "goodput", "completion", "loss", "ACK interval", "srtt", "cwnd max"):
        flows.add_column(col, justify="left" if col == "flow" else "right")
    for f in summary.get("flows", []):
        flows.add_row(
            str(f.get("flow")),
            fmt_rate(f.get("goodput_bps")),
            fmt_secs(f.get("completion_time_s")) if f.get("completion_time_s") is not None else "incomplete",
            fmt_pct(f.get("loss_rate")),
            fmt_secs(f.get("ack_interval_mean_s")),
            fmt_secs(f.get("srtt_s")),
            fmt_bytes(f.get("cwnd_max_bytes")),
        )
    links = Table(title="Links", title_justify="left")
    for col in ("link", "direction", "utilisation", "drops"):
        links.add_column(col, justify="left" if col in ("link", "direction") else "right")
    for link in summary.get("links", []):
        links.add_row(
            str(link.get("name")),
            str(link.get("direction")),
            fmt_pct(link.get("utilisation")),
            str(link.get("drops")),
        )
    parts: list[Any] = [header, flows, links]
    if summary.get("fairness_jain") is not None:
        parts.append(Text.assemble(("Jain fairness index ", "dim"), f"{summary['fairness_jain']:.4f}"))
    return Group(*parts)
