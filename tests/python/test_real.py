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
    assert 0 < s["flows"][0]["rtt_p50_s"] <= s["flows"][0]["rtt_p99_s"]
    # The doctor reads a real run like a simulated one.
    from cclab.doctor import diagnose

    (diagnosis,) = diagnose(out)
    assert diagnosis.mode == "real" and "summary" in diagnosis.inputs


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


def test_ctrl_c_stops_a_real_run_and_keeps_its_outputs(tmp_path):
    import signal
    import time

    out = tmp_path / "interrupted"
    # 1 GB over a 50 Mbit/s emulated path would take minutes: interrupt it after a second.
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cclab",
            "run",
            str(BULK),
            "--out",
            str(out),
            "--real",
            "--set",
            "path.forward.rate=50Mbps",
            "--set",
            'flow[0].source.size="1GB"',
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(2.0)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=20)
    assert p.returncode == 130, err
    s = json.loads((out / "summary.json").read_text())
    assert s["mode"] == "real" and 0 < s["flows"][0]["bytes_delivered"] < 1_000_000_000
    assert "Traceback" not in err
