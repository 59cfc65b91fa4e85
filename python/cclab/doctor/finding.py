"""What a detector returns: a `Finding` with its evidence table and the series its figure draws."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt


@dataclass
class Series:
    """One line of a finding's figure: x in seconds, y in `unit`."""

    label: str
    x: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64]
    unit: str
    #: Draw as points (events) rather than a line.
    points: bool = False


@dataclass
class Finding:
    """One named pathology in one flow.

    `evidence` rows are (quantity, value, threshold) strings: the numbers that crossed the thresholds;
    `spans` the time ranges (s) where the evidence holds, highlighted in the figure.
    """

    name: str
    verdict: str
    evidence: list[tuple[str, str, str]]
    seed: str
    fix: str
    spans: list[tuple[float, float]] = field(default_factory=list)
    series: list[Series] = field(default_factory=list)
    #: Figure files written for this finding (filled by `cclab.doctor.figures`).
    figures: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The finding as plain JSON types (the series stay out: they are in the figure)."""
        return {
            "name": self.name,
            "verdict": self.verdict,
            "evidence": [{"quantity": q, "value": v, "threshold": t} for q, v, t in self.evidence],
            "spans_s": [[round(a, 9), round(b, 9)] for a, b in self.spans],
            "seed": self.seed,
            "fix": self.fix,
            "figures": self.figures,
        }


def spans_where(
    t: npt.NDArray[np.float64], mask: npt.NDArray[np.bool_], min_len_s: float = 0.0
) -> list[tuple[float, float]]:
    """Maximal time ranges [t_i, t_j] over which `mask` holds, at least `min_len_s` long."""
    out: list[tuple[float, float]] = []
    start = None
    for i, m in enumerate(mask):
        if m and start is None:
            start = i
        if (not m or i == len(mask) - 1) and start is not None:
            end = i if m else i - 1
            if t[end] - t[start] >= min_len_s:
                out.append((float(t[start]), float(t[end])))
            start = None
    return out


def fmt_s(seconds: float) -> str:
    """A duration with a readable unit: 12.3 µs, 4.56 ms, 7.89 s."""
    a = abs(seconds)
    if a < 1e-3:
        return f"{seconds * 1e6:.3g} µs"
    if a < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def fmt_bps(bps: float) -> str:
    """A rate in bit/s with a unit prefix."""
    for unit, scale in (("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)):
        if abs(bps) >= scale:
            return f"{bps / scale:.3g} {unit}"
    return f"{bps:.3g} bit/s"
