"""``cclab fidelity``: a small TCP scenario simulated and on the kernel, compared metric by metric."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from cclab.fidelity import METRICS, _metrics, relative
from conftest import cclab_cli, write_scenario

SMALL = """\
[scenario]
name = "fid-small"
duration = "20s"

[path.forward]
rate = "20Mbps"
delay = "5ms"
queue = { kind = "droptail", limit_packets = 30 }

[path.return]
rate = "20Mbps"
delay = "5ms"

[[flow]]
profile = "tcp"
source = { kind = "bulk", size = "2MB" }
cc = { algorithm = "cubic" }
"""


def test_relative_difference_is_against_the_model():
    assert relative(2.0, 2.2) == pytest.approx(0.1)
    assert relative(None, 1.0) is None
    assert relative(0.0, 1.0) is None


def test_mean_cwnd_counts_from_the_first_rtt_estimate_as_kernel_mode_samples():
    # A model flow with a handshake waits 0.1 s for its SYN-ACK at the initial window, no RTT yet; kernel mode's
    # TCP_INFO series starts once the connection is open, so those samples are not compared.
    nan = float("nan")
    result = SimpleNamespace(
        summary={"flows": [{"completion_time_s": 0.4, "goodput_bps": 1.0, "retransmitted_packets": 0}]},
        timeseries={
            "flow": np.zeros(5),
            "time_s": np.array([0.0, 0.1, 0.2, 0.3, 0.5]),
            "cwnd_bytes": np.array([10.0, 10.0, 30.0, 50.0, 90.0]),
            "srtt_s": np.array([nan, 0.0, 0.1, 0.1, 0.1]),
        },
    )
    m = _metrics(result)
    assert m["mean_cwnd_bytes"] == pytest.approx(40.0)
    assert m["mean_srtt_s"] == pytest.approx(0.1)


def test_fidelity_compares_simulation_and_kernel_on_every_metric(tmp_path):
    scenario = write_scenario(tmp_path, SMALL, "small.toml")
    proc = cclab_cli("fidelity", scenario, "--out", tmp_path / "fid", timeout=120)
    if proc.returncode == 2 and "kernel mode needs" in proc.stderr:
        pytest.skip(proc.stderr.strip().splitlines()[-1])
    assert proc.returncode == 0, proc.stderr
    [row] = json.loads((tmp_path / "fid" / "fidelity.json").read_text())
    assert row["mode"] == "kernel"
    for key, _, _ in METRICS:
        assert row["sim"][key] is not None and row["other"][key] is not None, key
    # Both transfers are bounded below by 2 MB at 20 Mbit/s (0.8 s) and finish within a few RTTs of it.
    for side in ("sim", "other"):
        assert 0.8 < row[side]["completion_time_s"] < 3.0
    assert row["relative"]["completion_time_s"] == pytest.approx(
        relative(row["sim"]["completion_time_s"], row["other"]["completion_time_s"])
    )
    assert (tmp_path / "fid" / "small" / "kernel" / "tcp_info.csv").is_file()
    # The model and the kernel overlaid, as cclab compare draws them.
    assert {p.name for p in (tmp_path / "fid" / "small").glob("compare-*.png")} >= {
        "compare-cwnd.png",
        "compare-srtt.png",
    }
    assert "completion" in proc.stdout
