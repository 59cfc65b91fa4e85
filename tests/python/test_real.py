"""Real mode through the Python API and the CLI: a short transfer on loopback sockets, written like a simulation."""

import json
import subprocess
import sys
from pathlib import Path

import cclab

ROOT = Path(__file__).resolve().parents[2]
BULK = ROOT / "scenarios" / "bulk-newreno.toml"


def test_real_run_writes_the_simulations_outputs(tmp_path):
    out = tmp_path / "real"
    res = cclab.run(BULK, set=['flow[0].source.size="2MB"'], out=out, qlog="draft-02", real=True)
    s = json.loads((out / "summary.json").read_text())
    assert s["mode"] == "real"
    assert s["flows"][0]["bytes_delivered"] == 2_000_000
    assert s["flows"][0]["decode_errors"] == 0
    assert s["emulator"]["packets"] > 0
    assert (out / "timeseries.parquet").exists() and (out / "trace.sqlog").exists()
    assert res.summary["mode"] == "real"


def test_cli_real_and_bind_errors(tmp_path):
    cli = [sys.executable, "-m", "cclab"]
    bad = subprocess.run(
        [*cli, "run", str(BULK), "--out", str(tmp_path / "x"), "--bind", "127.0.0.1"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "--bind" in bad.stderr
    v6 = subprocess.run(
        [*cli, "run", str(BULK), "--out", str(tmp_path / "y"), "--real", "--set", "flow[0].quic.ipv6=true"],
        capture_output=True,
        text=True,
    )
    assert v6.returncode != 0 and "--bind ::1" in v6.stderr + v6.stdout
    assert "Traceback" not in v6.stderr
