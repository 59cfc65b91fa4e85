"""Sweeps that run the simulator: local processes, the CLI, row order and the parquet table."""

import polars as pl
import pytest

from cclab import sweep
from conftest import assert_clean_error, cclab_cli


def test_process_sweep_rows_follow_the_grid(tiny):
    specs = sweep.grid(tiny, {"path.forward.rate": ["5Mbps", "20Mbps"]}, seeds=[1, 2])
    rows = sweep.run_all(specs, workers=2)
    assert [r["run"] for r in rows] == [0, 1, 2, 3]
    assert [(r["path.forward.rate"], r["seed"]) for r in rows] == [
        ("5Mbps", 1),
        ("5Mbps", 2),
        ("20Mbps", 1),
        ("20Mbps", 2),
    ]
    goodput = [r["flows.0.goodput_bps"] for r in rows]
    # Each flow stays under its bottleneck, and the faster path gives more goodput.
    assert goodput[0] < 5e6 and goodput[2] < 20e6
    assert min(goodput[2:]) > max(goodput[:2])
    assert all(r["flows.0.bytes_delivered"] == 1_000_000 for r in rows)


def test_cli_sweep_writes_one_row_per_run(tiny, tmp_path):
    out = tmp_path / "sweep"
    proc = cclab_cli(
        "sweep", tiny, "--param", "path.forward.delay=5ms,10ms,20ms", "--seeds", "2", "--workers", "2", "--out", out
    )
    assert proc.returncode == 0, proc.stderr
    df = pl.read_parquet(out / "sweep.parquet")
    assert df.height == 6
    assert df["run"].to_list() == list(range(6))
    assert df["seed"].to_list() == [1, 2, 1, 2, 1, 2]
    assert df["path.forward.delay"].to_list() == ["5ms", "5ms", "10ms", "10ms", "20ms", "20ms"]
    # Propagation bounds the RTT from below: forward delay + the 10 ms return delay.
    for delay_s, rtt in zip([0.005] * 2 + [0.010] * 2 + [0.020] * 2, df["flows.0.min_rtt_s"], strict=True):
        assert rtt >= delay_s + 0.010
    assert "6 runs" in proc.stdout


def test_cli_sweep_checks_every_value_before_running(tiny, tmp_path):
    proc = cclab_cli("sweep", tiny, "--param", "path.forward.rate=5Mbps,fast", "--out", tmp_path / "s")
    assert_clean_error(proc, 2, "path.forward.rate: ", '"fast"')
    assert not (tmp_path / "s").exists()


def test_dask_local_cluster_gives_the_same_rows_as_processes(tiny):
    """Runs only where the optional dask extra is installed."""
    pytest.importorskip("dask.distributed")
    specs = sweep.grid(tiny, {"path.forward.rate": ["5Mbps", "20Mbps"]})
    strip = lambda rows: [{k: v for k, v in r.items() if not k.startswith("sim.")} for r in rows]  # noqa: E731
    assert strip(sweep.run_all(specs, dask="local", workers=2)) == strip(sweep.run_all(specs, workers=2))
