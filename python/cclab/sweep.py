"""Parameter sweeps: the cartesian product of overrides × seeds, run in local processes or on a Dask cluster.

One row per run: ``run`` (index in the grid), one column per swept key (numbers when every value of that key
is a plain number, else the strings as given), ``seed``, and the summary's scalars flattened with `flatten`
(``flows.0.goodput_bps``, ``links.path.forward.forward.drops``, ...). Rows come back in grid order whatever the
order of completion, so a sweep's table is deterministic apart from the wall-clock ``sim.*`` columns.

Example::

    from cclab import sweep

    specs = sweep.grid("s.toml", {"path.forward.rate": ["10Mbps", "50Mbps"]}, seeds=[1, 2])
    rows = sweep.run_all(specs, workers=2)
    sweep.write_parquet(rows, "out/sweep/sweep.parquet")
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cclab.api import flatten, load, run

if TYPE_CHECKING:
    import polars as pl

#: File a sweep's table is written to.
SWEEP_PARQUET = "sweep.parquet"

ProgressFn = Callable[[int, int], None]

#: The command that installs Dask as pinned in pyproject.toml. Not ``cclab[dask]``: cclab is installed from
#: this source tree, and the PyPI project of that name is someone else's.
DASK_INSTALL = "pip install 'dask[distributed]==2026.8.0'"


class SweepError(Exception):
    """A sweep is mis-specified, or its backend is unavailable."""


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: picklable, so it can travel to a worker process or a Dask worker."""

    index: int
    """Position in the grid."""
    scenario: str
    """Absolute path of the scenario file (workers must see the same file system)."""
    overrides: tuple[str, ...]
    """Fixed overrides first, then this run's ``key=value`` for every swept key."""
    params: tuple[tuple[str, str], ...]
    """The swept ``(key, value)`` pairs."""
    seed: int | None
    """Seed, or None for the scenario's own."""


def parse_param(text: str) -> tuple[str, list[str]]:
    """Parse ``"key.path=v1,v2,..."`` into ``("key.path", ["v1", "v2", ...])``."""
    key, sep, values = text.partition("=")
    key = key.strip()
    items = [v.strip() for v in values.split(",")]
    if not sep or not key or not all(items):
        raise SweepError(f"--param {text!r}: expected key.path=v1,v2,... with non-empty values")
    return key, items


def grid(
    scenario: str | PathLike[str],
    params: Mapping[str, Sequence[str]],
    *,
    seeds: Sequence[int | None] = (None,),
    overrides: Iterable[str] = (),
) -> list[RunSpec]:
    """The cartesian product of ``params`` values × ``seeds`` (seeds vary fastest)."""
    keys = list(params)
    fixed = tuple(overrides)
    path = str(Path(scenario).resolve())
    combos = itertools.product(itertools.product(*(params[k] for k in keys)), seeds)
    specs = []
    for i, (values, seed) in enumerate(combos):
        pairs = tuple(zip(keys, values, strict=True))
        specs.append(RunSpec(i, path, fixed + tuple(f"{k}={v}" for k, v in pairs), pairs, seed))
    return specs


def check(specs: Sequence[RunSpec]) -> None:
    """Load every distinct parameter combination once, so a bad value fails before any run starts.

    Raises `cclab.ScenarioError` naming the key.
    """
    for overrides in dict.fromkeys(s.overrides for s in specs):
        load(specs[0].scenario, overrides)


def run_one(spec: RunSpec) -> dict[str, Any]:
    """Run one spec without writing files and return its row (used in worker processes)."""
    result = run(spec.scenario, set=spec.overrides, seed=spec.seed, qlog=None)
    summary = flatten(result.summary)
    row: dict[str, Any] = {"run": spec.index, **dict(spec.params), "seed": summary.pop("seed", spec.seed)}
    row.update(summary)
    return row


def run_all(
    specs: Sequence[RunSpec],
    *,
    workers: int | None = None,
    dask: str | None = None,
    progress: ProgressFn | None = None,
) -> list[dict[str, Any]]:
    """Run every spec and return the rows in grid order.

    Parameters
    ----------
    specs
        From `grid`.
    workers
        Local worker processes (default: the CPU count, at most the number of runs); with ``dask="local"``
        the number of workers of the local cluster.
    dask
        A Dask scheduler address (``tcp://host:8786``), or ``"local"`` for a local cluster; needs the
        Dask (`DASK_INSTALL`).
    progress
        Called as ``progress(done, total)`` after each finished run.
    """
    if not specs:
        return []
    check(specs)
    if dask is not None:
        rows = _run_dask(specs, dask, workers, progress)
    elif workers == 1 or len(specs) == 1:
        rows = []
        for spec in specs:
            rows.append(run_one(spec))
            if progress:
                progress(len(rows), len(specs))
    else:
        rows = _run_processes(specs, workers, progress)
    rows.sort(key=lambda r: r["run"])
    return rows


def _run_processes(specs: Sequence[RunSpec], workers: int | None, progress: ProgressFn | None) -> list[dict[str, Any]]:
    n = min(workers or os.cpu_count() or 1, len(specs))
    rows: list[dict[str, Any]] = []
    # spawn: no fork of a process that holds the GIL-released Rust runtime or rich's threads.
    pool = ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"))
    try:
        pending = {pool.submit(run_one, spec) for spec in specs}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                rows.append(fut.result())
                if progress:
                    progress(len(rows), len(specs))
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return rows


def _run_dask(
    specs: Sequence[RunSpec], address: str, workers: int | None, progress: ProgressFn | None
) -> list[dict[str, Any]]:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as e:
        raise SweepError(f"--dask needs Dask; install it into cclab's environment: {DASK_INSTALL}") from e
    if address == "local":
        cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True)
        client = Client(cluster)
    else:
        cluster, client = None, Client(address)
    rows: list[dict[str, Any]] = []
    try:
        futures = client.map(run_one, list(specs), pure=False)
        for fut in as_completed(futures):
            rows.append(fut.result())
            if progress:
                progress(len(rows), len(specs))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return rows


def to_polars(rows: Sequence[Mapping[str, Any]], params: Iterable[str] = ()) -> pl.DataFrame:
    """Rows as a DataFrame; swept columns become numbers when all their values are plain numbers."""
    import polars as pl

    df = pl.from_dicts(list(rows), infer_schema_length=None)
    for key in params:
        if key in df.columns and df[key].dtype == pl.String:
            as_float = df[key].cast(pl.Float64, strict=False)
            if as_float.null_count() == df[key].null_count():
                as_int = df[key].cast(pl.Int64, strict=False)
                df = df.with_columns(as_int if as_int.null_count() == df[key].null_count() else as_float)
    return df


def write_parquet(rows: Sequence[Mapping[str, Any]], path: str | PathLike[str], params: Iterable[str] = ()) -> Path:
    """Write the rows to a parquet file (creating its directory) and return its path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    to_polars(rows, params).write_parquet(p)
    return p
