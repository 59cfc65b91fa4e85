"""Shared helpers: run the CLI in a fresh interpreter, and write small scenarios."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def cclab_cli(*args: object, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``python -m cclab ARGS`` and capture its output (wide terminal, so messages do not wrap)."""
    env = {**os.environ, "COLUMNS": "250", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "cclab", *map(str, args)], capture_output=True, text=True, env=env, timeout=timeout
    )


def assert_clean_error(proc: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    """Exit `code`, no traceback, and every needle in stderr."""
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr + proc.stdout
    for needle in needles:
        assert needle in proc.stderr, (needle, proc.stderr)


@pytest.fixture
def cli():
    return cclab_cli


#: One bulk flow of 1 MB over a 10 Mbps path with 10 ms one-way delay: finishes in under 1 s of simulated time.
TINY = """\
[scenario]
name = "tiny"
description = "One bulk flow over a 10 Mbps, 20 ms RTT path."
duration = "5s"

[path.forward]
rate = "10Mbps"
delay = "10ms"

[path.return]
rate = "10Mbps"
delay = "10ms"

[[flow]]
source = { kind = "bulk", size = "1MB" }
cc = { algorithm = "cubic" }
"""


def write_scenario(directory: Path, text: str = TINY, name: str = "tiny.toml") -> Path:
    path = directory / name
    path.write_text(text)
    return path


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    return write_scenario(tmp_path)


#: 25 bulk flows (one table, ``count``) on a 50 Mbit/s dumbbell for 1 s: more flows than the CLI shows one by one.
MANY = """\
[scenario]
name = "many"
duration = "1s"
topology = "dumbbell"

[path.forward]
rate = "50Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = "100KB" }

[path.return]
rate = "50Mbps"
delay = "5ms"

[[flow]]
count = 25
source = { kind = "bulk", size = "SIZE" }
cc = { algorithm = "cubic" }
"""


@pytest.fixture
def many_flows(tmp_path: Path):
    """Writes `MANY` with transfers of ``size`` (e.g. "100KB") into ``tmp_path``; returns its path."""
    return lambda size: write_scenario(tmp_path, MANY.replace("SIZE", size), "many.toml")


@pytest.fixture
def endless(tmp_path: Path) -> Path:
    """A 1 Gbps transfer of 1 TB for up to an hour of simulated time: runs until cancelled."""
    text = TINY.replace('"10Mbps"', '"1Gbps"').replace('"1MB"', '"1TB"').replace('"5s"', '"3600s"')
    return write_scenario(tmp_path, text, "endless.toml")
