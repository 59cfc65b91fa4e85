"""Reproductions of the five seed reports (``cclab reproduce``).

Each case module (``seed000`` … ``seed004``) plans its runs, judges their outputs against the
report, and draws the report's figures; `reproduce` ties the three together for one case.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from cclab.reproduce.harness import RunResult, Verdict, discard_traces, execute, write_verdicts

#: Case names on the command line → module names in this package.
CASES: dict[str, str] = {f"seed-00{i}": f"seed00{i}" for i in range(5)}
#: Cases that also run for real (``--real``) → their real-mode modules.
REAL_CASES: dict[str, str] = {"seed-000": "seed000_real"}


@dataclass
class CaseReport:
    """What one reproduction produced."""

    case: str
    title: str
    verdicts: list[Verdict]
    figures: list[Path]
    out_dir: Path
    wall_s: float
    #: Extra text the case prints after its verdicts (e.g. seed-003's tables in the report's layout).
    text: str = ""

    @property
    def passed(self) -> bool:
        """No verdict failed (a listed, explained exception is not a failure)."""
        return all(v.ok for v in self.verdicts)


def case_module(case: str, real: bool = False) -> ModuleType:
    """The module of `case` (``seed-000`` … ``seed-004``), or of its real-mode plan; ValueError for an unknown name."""
    cases = REAL_CASES if real else CASES
    if case not in cases:
        kind = "real-mode cases" if real else "cases"
        raise ValueError(f"no {kind} named {case!r}: expected one of {', '.join(cases)}")
    return importlib.import_module(f"cclab.reproduce.{cases[case]}")


def reproduce(
    case: str,
    full: bool = False,
    out_dir: Path | None = None,
    workers: int | None = None,
    dask: str | None = None,
    on_run: Callable[[RunResult, int, int], None] | None = None,
    real: bool = False,
) -> CaseReport:
    """Run `case`'s plan, judge it, draw its figures into `out_dir` and write verdicts.json.

    With `real`, the case's real-mode plan runs on this machine's loopback.
    """
    mod = case_module(case, real)
    out_dir = Path(out_dir or Path("out") / "reproduce" / case)
    t0 = time.perf_counter()
    specs = mod.plan(full)
    done = 0

    def progress(r: RunResult) -> None:
        nonlocal done
        done += 1
        if on_run:
            on_run(r, done, len(specs))

    results = execute(specs, workers=workers, dask=dask, on_done=progress)
    try:
        verdicts = mod.judge(results)
        out_dir.mkdir(parents=True, exist_ok=True)
        figures = mod.figures(results, out_dir)
        text = mod.tables(results) if hasattr(mod, "tables") else ""
    finally:  # traced runs wrote to temporary directories; the judge and figures are done with them
        discard_traces(results)
    wall = time.perf_counter() - t0
    write_verdicts(out_dir, case, verdicts, wall)
    return CaseReport(case, mod.TITLE, verdicts, figures, out_dir, wall, text)
