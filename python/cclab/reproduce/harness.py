"""Seed-case harness: plan runs, execute them in worker processes, judge, draw, report.

A case is a module in this package exposing ``TITLE``, ``plan(full) -> list[RunSpec]``,
``judge(results) -> list[Verdict]`` and ``figures(results, out_dir) -> list[Path]``. Judges
only read outputs (summary and time series); nothing in the model knows which case runs.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from cclab.sweep import DASK_INSTALL

ROOT = Path(__file__).resolve().parents[3]
SEED_DIR = ROOT / "scenarios" / "seeds"


@dataclass(frozen=True)
class RunSpec:
    """One simulation: a scenario file, overrides, a seed and a label the judge uses."""

    label: str
    scenario: str
    overrides: tuple[str, ...] = ()
    seed: int = 1
    timeseries_interval: str | None = None
    #: Also write qlog traces; the judge finds them in `RunResult.out_dir`.
    trace: bool = False
    #: Run for real: cclab's endpoints on loopback UDP sockets with the wall clock (``cclab run --real``).
    real: bool = False


@dataclass
class RunResult:
    """What a judge sees of one run: its spec, summary dict and time-series columns."""

    spec: RunSpec
    summary: dict[str, Any]
    timeseries: dict[str, list[float]] = field(repr=False)
    wall_s: float = 0.0
    #: Directory holding summary.json, timeseries and (with `RunSpec.trace`) the qlog traces.
    out_dir: Path | None = None


@dataclass
class Verdict:
    """One row of the verdict table."""

    quantity: str
    report: str
    ours: str
    tolerance: str
    passed: bool
    #: For a row the case's exception list names (with its docs page): why the model cannot match
    #: the report there. Such a row is expected to fail the tolerance; passing it is an error.
    explained: str = ""

    @property
    def status(self) -> str:
        """``pass``, ``fail``, ``explained exception`` or ``unexpected pass`` (a listed exception that passed)."""
        if self.explained:
            return "unexpected pass" if self.passed else "explained exception"
        return "pass" if self.passed else "fail"

    @property
    def ok(self) -> bool:
        """Not a failure: a pass, or a listed exception that still misses the report."""
        return self.passed != bool(self.explained)


def _execute(spec: RunSpec) -> RunResult:
    import tempfile

    import cclab

    t0 = time.perf_counter()
    scenario = cclab.load(SEED_DIR / spec.scenario, set=list(spec.overrides))
    out = Path(tempfile.mkdtemp(prefix="cclab-trace-")) if spec.trace else None
    res = cclab.run(
        scenario,
        seed=spec.seed,
        out=out,
        qlog="0.3" if spec.trace else False,
        timeseries_interval=spec.timeseries_interval,
        real=spec.real,
    )
    # The cases read per-flow series; link rows (no flow id) are left out.
    flow_rows = [f == f for f in res.timeseries["flow"].tolist()]
    ts = {k: [x for x, keep in zip(v.tolist(), flow_rows, strict=True) if keep] for k, v in res.timeseries.items()}
    return RunResult(spec, res.summary, ts, time.perf_counter() - t0, out)


def execute(
    specs: list[RunSpec],
    workers: int | None = None,
    dask: str | None = None,
    on_done: Callable[[RunResult], None] | None = None,
) -> list[RunResult]:
    """Runs every spec, in spawned local processes (default) or on a Dask scheduler."""
    if dask:
        try:
            from dask.distributed import Client
        except ImportError as e:  # pragma: no cover - optional extra
            raise RuntimeError(f"--dask needs Dask; install it into cclab's environment: {DASK_INSTALL}") from e
        client = Client(dask)
        futures = client.map(_execute, specs, pure=False)
        results = client.gather(futures)
        for r in results:
            if on_done:
                on_done(r)
        return list(results)
    # Real runs share this machine's CPU with each other: one at a time.
    workers = 1 if any(s.real for s in specs) else workers or max(1, min(len(specs), os.cpu_count() or 1))
    if workers == 1 or len(specs) == 1:
        out = []
        for s in specs:
            r = _execute(s)
            if on_done:
                on_done(r)
            out.append(r)
        return out
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        out = []
        for r in pool.map(_execute, specs):
            if on_done:
                on_done(r)
            out.append(r)
        return out


def discard_traces(results: list[RunResult]) -> None:
    """Removes the temporary directories traced runs wrote (call once the judge and figures are done with them)."""
    import shutil

    for r in results:
        if r.spec.trace and r.out_dir is not None:
            shutil.rmtree(r.out_dir, ignore_errors=True)


def by_label(results: list[RunResult]) -> dict[str, list[RunResult]]:
    """Groups results by label, keeping run order."""
    groups: dict[str, list[RunResult]] = {}
    for r in results:
        groups.setdefault(r.spec.label, []).append(r)
    return groups


def within(value: float, target: float, rel: float) -> bool:
    """|value - target| <= rel * |target|."""
    return abs(value - target) <= rel * abs(target)


def write_verdicts(out_dir: Path, case: str, verdicts: list[Verdict], wall_s: float) -> Path:
    """Writes verdicts.json for one case."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "verdicts.json"
    doc = {"case": case, "wall_s": wall_s, "verdicts": [asdict(v) | {"status": v.status} for v in verdicts]}
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path


def save_figure(fig: Any, out_dir: Path, stem: str, dpi: int = 150) -> list[Path]:
    """Writes a matplotlib figure as ``stem.png`` and ``stem.svg`` in `out_dir`, closes it, returns the paths."""
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{stem}.{ext}" for ext in ("png", "svg")]
    for p in paths:
        fig.savefig(p, dpi=dpi)
    plt.close(fig)
    return paths
