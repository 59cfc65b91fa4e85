"""Sweeps on a real Dask cluster: a scheduler and two workers on 127.0.0.1, one of them killed mid-sweep."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cclab import sweep

DASK = Path(sys.executable).parent / "dask"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def cluster(tmp_path):
    """A `dask scheduler` and two `dask worker` processes (no nanny: killing one kills the worker), all killed
    on every exit path."""
    from dask.distributed import Client

    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    common = {"cwd": tmp_path, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True}
    procs = [
        subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"], **common)
    ]
    try:
        for _ in range(2):
            worker = [DASK, "worker", address, "--host", "127.0.0.1", "--nthreads", "1", "--no-nanny", "--no-dashboard"]
            procs.append(subprocess.Popen(worker, **common))
        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        yield address, procs[1:]
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
        for p in procs:
            p.wait(timeout=30)


def test_dask_cluster_sweep_survives_a_killed_worker(tiny, tmp_path, cluster):
    address, workers = cluster
    specs = sweep.grid(tiny, {"path.forward.rate": ["5Mbps", "10Mbps", "20Mbps"]}, seeds=[1, 2])
    local = sweep.run_all(specs, workers=1)
    killed = []

    def kill_a_worker(done, total):
        if not killed:
            os.killpg(workers[0].pid, signal.SIGKILL)
            killed.append(time.monotonic())

    rows = sweep.run_all(specs, dask=address, store=tmp_path / "store", progress=kill_a_worker)
    assert killed and workers[0].wait(timeout=30) is not None
    assert [r["status"] for r in rows] == ["ok"] * 6
    strip = lambda rs: [{k: v for k, v in r.items() if not k.startswith("sim.")} for r in rs]  # noqa: E731
    assert strip(rows) == strip(local)
    assert len(list((tmp_path / "store" / "runs").iterdir())) == 6
