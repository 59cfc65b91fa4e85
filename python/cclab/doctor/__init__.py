"""``cclab doctor``: name the pathology in a run or a trace, with the evidence and the fix.

Each detector is a module with ``NAME``, ``SEED``, ``FIX``, its documented thresholds and
``detect(view: FlowView) -> Finding | None``; `DETECTORS` lists them, one line each. Detectors read only what
a run or trace recorded (`cclab.traces`), never a scenario's name. docs/doctor.md gives every rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from cclab.doctor import (
    ack_limited,
    ack_starvation,
    bufferbloat,
    clock_stall,
    feedback_collapse,
    limited_periods,
    pacing_excess,
    pto_storm,
    rcvbuf_overflow,
    slow_start_no_jump,
    spurious_retx,
)
from cclab.doctor.finding import Finding
from cclab.traces.rundir import FlowView, load

#: Every detector, seed classes first.
DETECTORS: tuple[ModuleType, ...] = (
    ack_starvation,
    clock_stall,
    slow_start_no_jump,
    ack_limited,
    feedback_collapse,
    rcvbuf_overflow,
    bufferbloat,
    spurious_retx,
    pto_storm,
    limited_periods,
    pacing_excess,
)
NAMES: tuple[str, ...] = tuple(d.NAME for d in DETECTORS)
#: The findings that name a seed report's pathology.
SEED_CLASSES: tuple[str, ...] = NAMES[:5]


@dataclass
class Diagnosis:
    """The findings for one flow of one input."""

    source: Path
    label: str
    mode: str
    findings: list[Finding] = field(default_factory=list)
    #: What the input held, so "no finding" can be read as "nothing to see" or "nothing to look at".
    inputs: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON types."""
        return {
            "source": str(self.source),
            "label": self.label,
            "mode": self.mode,
            "inputs": self.inputs,
            "findings": [f.to_json() for f in self.findings],
        }


def diagnose_view(view: FlowView) -> Diagnosis:
    """Run every detector on one flow."""
    inputs = [
        name
        for name, present in (
            ("summary", view.flow is not None),
            ("timeseries", view.ts is not None),
            ("sender qlog", view.sender is not None),
            ("receiver qlog", view.receiver is not None),
        )
        if present
    ]
    found = [f for d in DETECTORS if (f := d.detect(view)) is not None]
    return Diagnosis(view.source, view.label, view.mode, found, inputs)


def diagnose(path: str | Path) -> list[Diagnosis]:
    """Read a run directory, a directory of qlog files or one qlog file, and diagnose each flow.

    Raises
    ------
    cclab.traces.QlogError, cclab.traces.rundir.RunDirError
        An input is missing or malformed (the message names the file and line).
    """
    return [diagnose_view(v) for v in load(path)]
