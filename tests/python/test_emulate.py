"""``cclab emulate``: quinn-bulk (a third-party QUIC stack, crates/quinn-bulk) through the emulated path."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cclab.cli.emulate import split_commands
from cclab.emulate import diagnose, emulate
from conftest import ROOT, cclab_cli, write_scenario

PATH = """\
[scenario]
name = "emulate-20M"
duration = "30s"

[path.forward]
rate = "20Mbps"
delay = "5ms"
queue = { kind = "droptail", limit_packets = 200 }

[path.return]
rate = "20Mbps"
delay = "5ms"

[[flow]]
source = { kind = "bulk", size = "1MB" }
"""


@pytest.fixture(scope="module")
def quinn_bulk() -> Path:
    """The quinn-bulk binary, built (profile ci, as `make test` builds the workspace) if missing."""
    binary = ROOT / "target" / "ci" / "quinn-bulk"
    if not binary.exists():
        subprocess.run(
            ["cargo", "build", "--profile", "ci", "-p", "quinn-bulk", "-j2"], cwd=ROOT, check=True, timeout=1200
        )
    return binary


def test_quinn_bulk_through_emulate_delivers_and_is_counted(quinn_bulk, tmp_path):
    scenario = write_scenario(tmp_path, PATH, "path.toml")
    out = tmp_path / "run"
    proc = cclab_cli(
        "emulate", scenario, "--out", out, "--timeout", "60", "--server-start", "0.5",
        "--", quinn_bulk, "server", "--listen", "{listen}", "--once", "--qlog", "{qlog_dir}",
        "--", quinn_bulk, "client", "--connect", "{server}", "--bytes", "4M", "--qlog", "{qlog_dir}",
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    report = json.loads((out / "emulate.json").read_text())
    assert report["problems"] == []
    assert report["client_exit"] == 0
    client = report["client_report"]
    assert client["bytes"] == 4_000_000
    # 4 MB at 20 Mbit/s needs 1.6 s of serialisation at least: the emulated link set the pace.
    assert client["seconds"] > 1.6
    # The RTT quinn measured includes the 10 ms the path adds.
    assert client["path"]["min_rtt_s"] >= 0.0095
    fwd, ret = report["emulator"]["forward"], report["emulator"]["return"]
    assert fwd["bytes_in"] > 4_000_000
    assert fwd["packets_out"] + fwd["drops"] <= fwd["packets_in"]
    assert ret["packets_in"] > 100
    # quinn's own count of datagrams it sent matches what the emulator received from it, plus at most the
    # CONNECTION_CLOSE the client sends after taking its statistics.
    assert fwd["packets_in"] - client["udp_tx"]["datagrams"] in (0, 1)
    series = (out / "emulator.csv").read_text().splitlines()
    assert series[0].startswith("time_s,direction,packets_in")
    assert len(series) > 20
    assert sorted(Path(f).name.split("-")[0] for f in report["qlog_files"]) == ["client", "server"]
    # The sender's qlog becomes the simulator's time series and summary, so compare and doctor read the run.
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mode"] == "emulate" and summary["flows"][0]["bytes_delivered"] == 4_000_000
    assert summary["flows"][0]["min_rtt_s"] >= 0.0095
    rows = (out / "timeseries.csv").read_text().splitlines()
    assert rows[0].startswith("time_s,flow,cwnd_bytes") and len(rows) > 20


def test_client_that_never_connects_is_reported_and_nothing_is_left(quinn_bulk, tmp_path):
    scenario = write_scenario(tmp_path, PATH, "path.toml")
    out = tmp_path / "run"
    marker = f"cclab-emulate-test-{os.getpid()}"
    proc = cclab_cli(
        "emulate", scenario, "--out", out, "--timeout", "2", "--server-start", "0.2",
        "--", sys.executable, "-c", f"import time; time.sleep(60)  # {marker}",
        "--", sys.executable, "-c", f"import time; time.sleep(60)  # {marker}",
        timeout=60,
    )  # fmt: skip
    assert proc.returncode == 1
    assert "never sent a datagram" in proc.stderr
    assert "did not finish before the deadline" in proc.stderr
    left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
    assert left == []


def test_commands_split_on_the_separator_and_problems_are_named():
    assert split_commands(["s", "--listen", "{listen}", "--", "c"]) == (["s", "--listen", "{listen}"], ["c"])
    healthy = {"packets_in": 1000, "packets_out": 990, "drops": 10}
    flooded = {"packets_in": 1000, "packets_out": 100, "drops": 900}
    flood = diagnose({"forward": flooded, "return": healthy}, None, 0, False)
    assert flood == ["the client floods the path: 900 of 1000 datagrams dropped"]
    crashed = diagnose({"forward": healthy, "return": healthy}, 1, 0, False)
    assert crashed == ["the server exited with code 1 (see server.stderr)"]
    early = diagnose({"forward": healthy, "return": healthy}, 0, 1, False)
    assert early == [
        "the server exited (code 0) before the client finished",
        "the client exited with code 1 (see client.stderr)",
    ]
    assert diagnose({"forward": healthy, "return": healthy}, 0, 0, False) == []


def test_a_server_that_ends_before_the_client_starts_is_reported(tmp_path):
    # The client was never started, so client.stdout did not exist: the run ended in
    # "error: [Errno 2] No such file or directory: '.../client.stdout'" and wrote no report.
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        '[scenario]\nname = "e"\nduration = "1s"\n[path.forward]\nrate = "10Mbps"\ndelay = "1ms"\n'
        '[path.return]\nrate = "10Mbps"\ndelay = "1ms"\n[[flow]]\nsource = { kind = "bulk", size = "10kB" }\n'
    )
    report = emulate(scenario, ["sh", "-c", "exit 3"], ["true"], out=tmp_path / "run", server_start=5.0)
    assert report["problems"] == ["the server exited with code 3 before the client was started (see server.stderr)"]
    assert report["client_exit"] is None and report["client_report"] is None
    assert json.loads((tmp_path / "run" / "emulate.json").read_text())["server_exit"] == 3


def test_a_path_that_delivers_nothing_is_named_not_the_server():
    # A 1 bit/s or 10-hour path holds the client's datagrams past the deadline: the report used to say
    # "the server never answered (is it listening on the {listen} address?)".
    held = {"packets_in": 5, "packets_out": 0, "drops": 0}
    silent = {"packets_in": 0, "packets_out": 0, "drops": 0}
    problems = diagnose({"forward": held, "return": silent}, None, None, True)
    assert problems == [
        "the client did not finish before the deadline and was killed",
        "the emulated path delivered none of the client's 5 datagrams to the server "
        "(0 dropped, the rest held by path.forward's rate, delay or queue until the end)",
    ]
    healthy = {"packets_in": 1000, "packets_out": 990, "drops": 10}
    back = diagnose({"forward": healthy, "return": {"packets_in": 7, "packets_out": 0, "drops": 7}}, None, None, True)
    assert back[1].startswith("the emulated path delivered none of the server's 7 datagrams to the client (7 dropped")


def test_sigterm_ends_the_programs_too(tmp_path):
    # `timeout 30 cclab emulate ...` (SIGTERM) killed cclab alone: the server, in its own session, ran on.
    scenario = write_scenario(tmp_path, PATH, "path.toml")
    marker = f"cclab-emulate-sigterm-{os.getpid()}"
    program = [sys.executable, "-c", f"import time; time.sleep(60)  # {marker}"]
    args = ["emulate", scenario, "--out", tmp_path / "run", "--timeout", "30", "--server-start", "0.1"]
    proc = subprocess.Popen([sys.executable, "-m", "cclab", *map(str, args), "--", *program, "--", *program])

    def marked() -> list[int]:
        found = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
        return [int(p) for p in found if int(p) != proc.pid]

    try:
        for _ in range(200):  # server and client up (at most 10 s)
            if len(marked()) == 2:
                break
            time.sleep(0.05)
        assert len(marked()) == 2
        proc.terminate()
        assert proc.wait(timeout=20) == 128 + signal.SIGTERM
        left = marked()
        assert left == []
    finally:
        proc.kill()
        for pid in marked():
            os.kill(pid, signal.SIGKILL)
