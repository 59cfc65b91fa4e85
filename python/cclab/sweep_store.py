"""Running a sweep so that it survives: a results store, failures recorded, dead workers retried.

The store is a directory with one subdirectory per finished run, ``runs/<run hash>/`` (the run's own outputs:
``summary.json``, ``timeseries.parquet``, ``run.json``, ``scenario.resolved.toml``). A run writes into
``runs/.partial-<hash>-<pid>/`` and renames it when done, so a directory under its hash is always complete and a
rerun of the sweep skips it. A run that raises is recorded as a row with ``status = "failed"`` and its
``error``, and the sweep goes on (a rerun tries it again). A worker process that dies (killed, out of memory)
takes only its current run with it: the pool is rebuilt and the unfinished runs are retried, each up to
`MAX_ATTEMPTS` times; on Dask the scheduler reschedules them itself.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from os import PathLike
from pathlib import Path
from typing import Any

from cclab.api import flatten, run
from cclab.sweep import DASK_INSTALL, RunSpec, SweepError, check

ProgressFn = Callable[[int, int], None]

#: Subdirectory of the store holding one directory per finished run.
RUNS = "runs"
#: Attempts per run when its worker process dies.
MAX_ATTEMPTS = 3


def run_dir(store: Path, spec: RunSpec) -> Path:
    """Where a finished run of ``spec`` lives in ``store``."""
    return store / RUNS / spec.key


def _row(spec: RunSpec, summary: dict[str, Any] | None, error: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {"run": spec.index, **dict(spec.params)}
    flat = flatten(summary) if summary else {}
    row["seed"] = flat.pop("seed", spec.seed)
    row["status"] = "ok" if error is None else "failed"
    row["error"] = error
    row["run_hash"] = spec.key
    row.update(flat)
    return row


def stored_row(store: Path, spec: RunSpec) -> dict[str, Any] | None:
    """The row of ``spec`` from the store, if it finished in an earlier sweep."""
    try:
        summary = json.loads((run_dir(store, spec) / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    return _row(spec, summary, None)


def run_one(spec: RunSpec, store: str | None = None) -> dict[str, Any]:
    """Run one spec (in a worker) and return its row; an error becomes a ``failed`` row, never an exception."""
    partial = None
    try:
        if store is None:
            result = run(spec.scenario, set=spec.overrides, seed=spec.seed, qlog=False)
            return _row(spec, result.summary, None)
        done = run_dir(Path(store), spec)
        partial = done.parent / f".partial-{spec.key}-{os.getpid()}"
        result = run(spec.scenario, set=spec.overrides, seed=spec.seed, qlog=False, out=partial)
        if done.exists():  # another attempt finished it first; keep that one
            shutil.rmtree(partial)
        else:
            partial.rename(done)
        return _row(spec, result.summary, None)
    except Exception as e:
        if partial is not None:
            shutil.rmtree(partial, ignore_errors=True)
        return _row(spec, None, f"{type(e).__name__}: {e}")


def run_all(
    specs: Sequence[RunSpec],
    *,
    workers: int | None = None,
    dask: str | None = None,
    progress: ProgressFn | None = None,
    store: str | PathLike[str] | None = None,
) -> list[dict[str, Any]]:
    """Run every spec and return the rows in grid order.

    Parameters
    ----------
    specs
        From `cclab.sweep.grid`.
    workers
        Local worker processes (default: the CPU count, at most the number of runs); with ``dask="local"``
        the number of workers of the local cluster.
    dask
        A Dask scheduler address (``tcp://host:8786``), or ``"local"`` for a local cluster (`DASK_INSTALL`).
    progress
        Called as ``progress(done, total)`` after each finished run (runs found in the store count as done).
    store
        The results store directory; without it nothing is written and nothing is skipped.
    """
    if not specs:
        return []
    specs = check(specs)
    store_dir = Path(store) if store is not None else None
    rows: list[dict[str, Any]] = []
    todo = []
    for spec in specs:
        row = stored_row(store_dir, spec) if store_dir else None
        if row:
            rows.append(row)
        else:
            todo.append(spec)
    if store_dir:
        (store_dir / RUNS).mkdir(parents=True, exist_ok=True)
        _drop_partials(store_dir)
    total = len(specs)

    def done(row: dict[str, Any]) -> None:
        rows.append(row)
        if progress:
            progress(len(rows), total)

    if rows and progress:
        progress(len(rows), total)
    store_arg = str(store_dir) if store_dir else None
    if not todo:
        return sorted(rows, key=lambda r: r["run"])
    if dask is not None:
        _run_dask(todo, dask, workers, store_arg, done)
    elif workers == 1 or len(todo) == 1:
        for spec in todo:
            done(run_one(spec, store_arg))
    else:
        _run_processes(todo, workers, store_arg, done)
    if store_dir:
        _drop_partials(store_dir)  # what a killed worker left half-written
    rows.sort(key=lambda r: r["run"])
    return rows


def _drop_partials(store: Path) -> None:
    for stale in (store / RUNS).glob(".partial-*"):
        shutil.rmtree(stale, ignore_errors=True)


def _exit_on_sigterm(signum: int, _frame: Any) -> None:
    """SIGTERM as an exception, so `_run_processes` ends its workers on the way out."""
    raise SystemExit(128 + signum)


def _end_workers(pool: ProcessPoolExecutor) -> None:
    """Cancel what has not started and terminate the workers.

    ``shutdown(wait=False)`` alone left a running worker to finish its run, orphaned, after the sweep itself was
    stopped (``timeout``, ``kill``).
    """
    processes = list((getattr(pool, "_processes", None) or {}).values())  # no public handle before Python 3.14
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        p.terminate()


def _run_processes(
    specs: Sequence[RunSpec], workers: int | None, store: str | None, done: Callable[[dict[str, Any]], None]
) -> None:
    # Signal handlers can be set from the main thread only; elsewhere the caller owns termination.
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm) if main else None
    try:
        _run_pools(specs, workers, store, done)
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)


def _run_pools(
    specs: Sequence[RunSpec], workers: int | None, store: str | None, done: Callable[[dict[str, Any]], None]
) -> None:
    attempts = dict.fromkeys((s.index for s in specs), 0)
    remaining = {s.index: s for s in specs}
    while remaining:
        n = min(workers or os.cpu_count() or 1, len(remaining))
        # spawn: no fork of a process that holds the GIL-released Rust runtime or rich's threads.
        pool = ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"))
        try:
            pending = {pool.submit(run_one, spec, store): spec for spec in remaining.values()}
            for spec in remaining.values():
                attempts[spec.index] += 1
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    spec = pending.pop(fut)
                    try:
                        row = fut.result()
                    except BrokenProcessPool:
                        continue  # a worker died: this run stays in `remaining` and is retried
                    del remaining[spec.index]
                    done(row)
        except BaseException:
            _end_workers(pool)
            raise
        pool.shutdown(wait=False, cancel_futures=True)
        for index in [i for i in remaining if attempts[i] >= MAX_ATTEMPTS]:
            done(_row(remaining.pop(index), None, f"worker process died {MAX_ATTEMPTS} times running this run"))


def _run_dask(
    specs: Sequence[RunSpec],
    address: str,
    workers: int | None,
    store: str | None,
    done: Callable[[dict[str, Any]], None],
) -> None:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as e:
        raise SweepError(f"--dask needs Dask; install it into cclab's environment: {DASK_INSTALL}") from e
    if address == "local":
        cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True)
        client = Client(cluster)
    else:
        cluster, client = None, Client(address)
    try:
        # The scheduler reschedules a dead worker's task elsewhere (up to its allowed-failures count).
        futures = client.map(run_one, list(specs), store=store, pure=False, retries=MAX_ATTEMPTS - 1)
        by_key = {f.key: s for f, s in zip(futures, specs, strict=True)}
        for fut in as_completed(futures):
            try:
                done(fut.result())
            except Exception as e:  # KilledWorker: the run killed every worker it was given
                done(_row(by_key[fut.key], None, f"{type(e).__name__}: {e}"))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
