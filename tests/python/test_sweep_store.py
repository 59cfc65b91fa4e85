"""Sweeps that survive: sweep files, the results store, failures recorded, killed workers retried."""

import contextlib
import multiprocessing
import os
import signal
import subprocess
import sys
import time

import polars as pl

from cclab import sweep, sweep_store
from conftest import cclab_cli

SWEEP = """\
scenario = "tiny.toml"
seeds = 2
set = ["output.timeseries_interval=20ms"]

[grid]
"path.forward.rate" = ["5Mbps", "20Mbps"]
"""


def test_sweep_file_runs_its_grid_into_a_store_and_a_rerun_skips_it(tiny, tmp_path):
    (tmp_path / "s.toml").write_text(SWEEP)
    out = tmp_path / "store"
    proc = cclab_cli("sweep", tmp_path / "s.toml", "--out", out, "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    df = pl.read_parquet(out / "sweep.parquet")
    assert df["status"].to_list() == ["ok"] * 4
    # A value with a unit is kept as written and stored as a number with the unit in the column name.
    assert df["path.forward.rate"].to_list() == ["5Mbps", "5Mbps", "20Mbps", "20Mbps"]
    assert df["path.forward.rate_bps"].to_list() == [5e6, 5e6, 20e6, 20e6]
    runs = sorted(p.name for p in (out / "runs").iterdir())
    assert runs == sorted(df["run_hash"].to_list()) and len(set(runs)) == 4
    stamps = {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}
    again = cclab_cli("sweep", tmp_path / "s.toml", "--out", out, "--workers", "2")
    assert again.returncode == 0, again.stderr
    assert {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()} == stamps
    assert (
        pl.read_parquet(out / "sweep.parquet")
        .drop("sim.wall_s", "sim.events_per_s")
        .equals(df.drop("sim.wall_s", "sim.events_per_s"))
    )


def test_sweep_file_errors_name_the_file_and_key(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('scenario = "tiny.toml"\nseeds = 0\n')
    proc = cclab_cli("sweep", bad, "--out", tmp_path / "o")
    assert proc.returncode == 2 and f"{bad}: seeds:" in proc.stderr, proc.stderr


def test_a_failed_run_is_recorded_and_the_sweep_goes_on(tiny, tmp_path, monkeypatch):
    real_run = sweep_store.run

    def flaky(scenario, *, seed=None, **kwargs):
        if seed == 2:
            raise RuntimeError("disk on fire")
        return real_run(scenario, seed=seed, **kwargs)

    monkeypatch.setattr(sweep_store, "run", flaky)
    specs = sweep.grid(tiny, {}, seeds=[1, 2, 3])
    rows = sweep.run_all(specs, workers=1, store=tmp_path / "store")
    assert [r["status"] for r in rows] == ["ok", "failed", "ok"]
    assert rows[1]["error"] == "RuntimeError: disk on fire"
    assert len(list((tmp_path / "store" / "runs").iterdir())) == 2  # the failed run left nothing behind
    # A rerun retries only the failed run.
    monkeypatch.setattr(sweep_store, "run", real_run)
    assert [r["status"] for r in sweep.run_all(specs, workers=1, store=tmp_path / "store")] == ["ok"] * 3


def test_a_worker_killed_mid_sweep_loses_only_its_run_which_is_retried(tiny, tmp_path):
    specs = sweep.grid(tiny, {"path.forward.rate": ["5Mbps", "10Mbps", "20Mbps"]}, seeds=[1, 2])
    killed = []

    def kill_a_worker(done, total):
        if not killed and done < total:
            child = multiprocessing.active_children()[0]
            os.kill(child.pid, signal.SIGKILL)
            killed.append(child.pid)

    rows = sweep.run_all(specs, workers=2, store=tmp_path / "store", progress=kill_a_worker)
    assert killed
    assert [r["status"] for r in rows] == ["ok"] * 6
    assert len(list((tmp_path / "store" / "runs").iterdir())) == 6
    assert not list((tmp_path / "store" / "runs").glob(".partial-*"))


def test_sigterm_to_a_sweep_ends_its_workers(tmp_path):
    # `timeout`/`kill` on `cclab sweep` used to leave each worker running its simulation to the end, orphaned.
    long = (
        '[scenario]\nname = "long"\nduration = "600s"\n'
        '[path.forward]\nrate = "1Gbps"\ndelay = "1ms"\n[path.return]\nrate = "1Gbps"\ndelay = "1ms"\n'
        '[output]\ntimeseries_interval = "10s"\n'
        '[[flow]]\nsource = { kind = "bulk", size = "1TB" }\n'
    )
    (tmp_path / "long.toml").write_text(long)
    args = ["sweep", tmp_path / "long.toml", "--param", "path.forward.delay=1ms,2ms", "--workers", "2"]
    proc = subprocess.Popen([sys.executable, "-m", "cclab", *map(str, args), "--out", str(tmp_path / "out")])

    def children() -> list[int]:
        found = subprocess.run(["ps", "-o", "pid=", "--ppid", str(proc.pid)], capture_output=True, text=True)
        return [int(p) for p in found.stdout.split()]

    workers: list[int] = []
    try:
        for _ in range(300):  # the resource tracker and two workers (at most 15 s)
            workers = children()
            if len(workers) >= 3:
                break
            time.sleep(0.05)
        assert len(workers) >= 3
        time.sleep(0.5)  # the workers are inside their runs
        proc.terminate()
        assert proc.wait(timeout=20) == 128 + signal.SIGTERM

        def alive() -> list[int]:
            return [
                p
                for p in workers
                if subprocess.run(["ps", "-o", "stat=", "-p", str(p)], capture_output=True, text=True).stdout.strip()
                not in ("", "Z")
            ]

        # Up to 5 s for the pool to go (an orphaned worker would run its 600 s simulation on): a fixed 0.5 s
        # failed now and then on a loaded machine, with one child still on its way out.
        deadline = time.monotonic() + 5.0
        while alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert alive() == []
    finally:
        proc.kill()
        for p in workers:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)
