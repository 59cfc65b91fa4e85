"""``cclab run --kernel``: Linux TCP between two network namespaces through the emulated path.

Needs root (namespaces, tun). Where the machine forbids them the command says so in one line with exit 2, and
these tests skip with that line as the reason.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import cclab
from conftest import assert_clean_error, write_scenario

KERNEL = """\
[scenario]
name = "kernel-tiny"
duration = "{duration}"

[path.forward]
rate = "20Mbps"
delay = "5ms"
queue = {{ kind = "droptail", limit_packets = 100 }}

[path.return]
rate = "20Mbps"
delay = "5ms"

[[flow]]
profile = "tcp"
source = {{ kind = "bulk", size = "{size}" }}
cc = {{ algorithm = "cubic" }}
"""


def kernel_run(cli, scenario: Path, out: Path):
    proc = cli("run", scenario, "--kernel", "--out", out, timeout=60)
    if proc.returncode == 2 and "kernel mode needs" in proc.stderr:
        pytest.skip(proc.stderr.strip().splitlines()[-1])
    return proc


def net_namespaces_of(pid: int) -> set[str]:
    """Network namespaces a process's threads are in or hold descriptors to (``net:[inode]``)."""
    found = set()
    for link in [*Path(f"/proc/{pid}/task").glob("*/ns/net"), *Path(f"/proc/{pid}/fd").iterdir()]:
        try:
            target = os.readlink(link)
        except OSError:
            continue
        if target.startswith("net:["):
            found.add(target)
    return found


def holders(namespaces: set[str]) -> list[str]:
    """Every /proc entry still referring to one of `namespaces`."""
    left = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if net_namespaces_of(int(proc.name)) & namespaces:
                    left.append(proc.name)
            except OSError:
                continue
    return left


def test_kernel_run_writes_the_simulator_schema_with_mode_kernel(cli, tmp_path):
    scenario = write_scenario(tmp_path, KERNEL.format(duration="20s", size="2MB"), "kernel.toml")
    proc = kernel_run(cli, scenario, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["mode"] == "kernel"
    flow = summary["flows"][0]
    assert flow["bytes_delivered"] == 2_000_000
    assert 0.8 < flow["completion_time_s"] < 10
    assert (tmp_path / "out" / "timeseries.parquet").is_file()
    assert (tmp_path / "out" / "tcp_info.csv").read_text().startswith("time_s,rttvar_s,")


def test_kernel_run_takes_a_tcp_handshake_as_its_own_syn_exchange(cli, tmp_path):
    # Linux always opens with a SYN exchange, so `handshake = true` describes the run: no notice that it is ignored.
    text = KERNEL.format(duration="20s", size="1MB") + "handshake = true\n"
    proc = kernel_run(cli, write_scenario(tmp_path, text, "handshake.toml"), tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert "handshake" not in proc.stderr, proc.stderr
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["flows"][0]["bytes_delivered"] == 1_000_000


def test_kernel_run_refuses_a_quic_server_flight_naming_the_key(cli, tmp_path):
    # Refused before any namespace is made: Linux answers a SYN with a bare SYN-ACK.
    text = KERNEL.format(duration="5s", size="1MB") + 'handshake = { server_flight = "5KB" }\n'
    scenario = write_scenario(tmp_path, text, "flight.toml")
    proc = cli("run", scenario, "--kernel", "--out", tmp_path / "out")
    assert_clean_error(proc, 2, "flow[0].handshake.server_flight")


def test_kernel_run_rejects_a_quic_flow_naming_the_key(cli, tmp_path):
    scenario = write_scenario(
        tmp_path, KERNEL.format(duration="5s", size="1MB").replace('profile = "tcp"\n', ""), "quic.toml"
    )
    assert_clean_error(cli("run", scenario, "--kernel", "--out", tmp_path / "out"), 2, "flow[0].profile")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_kernel_run_killed_midway_leaves_no_namespace_or_device(tmp_path, sig):
    # 200 MB at 20 Mbit/s would take 80 s: the run is surely mid-transfer when the signal arrives.
    scenario = write_scenario(tmp_path, KERNEL.format(duration="120s", size="200MB"), "long.toml")
    ours = net_namespaces_of(os.getpid())
    child = subprocess.Popen(
        [sys.executable, "-m", "cclab", "run", str(scenario), "--kernel", "--out", str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        created: set[str] = set()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(created) < 2 and child.poll() is None:
            time.sleep(0.1)
            created = net_namespaces_of(child.pid) - ours
        if child.poll() is not None:
            err = child.stderr.read() if child.stderr else ""
            if child.returncode == 2 and "kernel mode needs" in err:
                pytest.skip(err.strip().splitlines()[-1])
            pytest.fail(f"run ended before the signal: {child.returncode} {err}")
        assert len(created) == 2, created
        time.sleep(0.5)
        child.send_signal(sig)
        child.wait(timeout=15)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    if sig == signal.SIGINT:
        assert child.returncode == 130
    assert holders(created) == []
    assert not [d for d in os.listdir("/sys/class/net") if d.startswith("cclab-")]


@pytest.mark.skipif(shutil.which("setpriv") is None or os.geteuid() != 0, reason="needs root and setpriv")
def test_kernel_run_without_namespace_rights_says_so_in_one_line_and_exits_2(tmp_path):
    # Without CAP_SYS_ADMIN (dropped from the bounding set) unshare(CLONE_NEWNET) is refused, as on a locked-down host.
    scenario = write_scenario(tmp_path, KERNEL.format(duration="5s", size="1MB"), "kernel.toml")
    drop = ["setpriv", "--bounding-set=-sys_admin", "--inh-caps=-sys_admin"]
    proc = subprocess.run(
        [*drop, sys.executable, "-m", "cclab", "run", str(scenario), "--kernel", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "250", "NO_COLOR": "1"},
    )
    assert_clean_error(proc, 2, "kernel mode needs network namespaces")
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_kernel_run_refuses_a_qlog_request_it_cannot_answer(cli, tmp_path):
    # Refused before any namespace is made, so this holds on machines without the rights too.
    scenario = write_scenario(tmp_path, KERNEL.format(duration="5s", size="1MB"), "qlog.toml")
    assert_clean_error(cli("run", scenario, "--kernel", "--qlog", "--out", tmp_path / "out"), 2, "--qlog")
    with pytest.raises(ValueError, match="kernel"):
        cclab.run(scenario, kernel=True, qlog=True)
