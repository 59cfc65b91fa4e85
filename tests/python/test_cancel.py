"""Cancelling a run: the progress callback's verdict, exceptions it raises, and Ctrl-C in the CLI."""

import itertools
import os
import signal
import subprocess
import sys
import time

import pytest

import cclab


def test_progress_reports_increasing_fractions_up_to_one(tiny):
    seen: list[float] = []
    cclab.run(tiny, qlog=None, progress=seen.append)
    assert seen and seen[-1] == 1.0
    assert all(0.0 <= a <= b <= 1.0 for a, b in itertools.pairwise(seen))


def test_progress_returning_false_cancels_with_run_error(endless):
    calls = []
    start = time.monotonic()
    with pytest.raises(cclab.RunError, match="cancelled"):
        cclab.run(endless, qlog=None, progress=lambda f: calls.append(f) or False)
    assert len(calls) == 1
    assert time.monotonic() - start < 10


@pytest.mark.parametrize("exc", [KeyboardInterrupt, ValueError])
def test_exception_in_progress_propagates_and_stops_the_run(endless, exc):
    def boom(fraction: float) -> None:
        raise exc("from the callback")

    start = time.monotonic()
    with pytest.raises(exc, match="from the callback"):
        cclab.run(endless, qlog=None, progress=boom)
    assert time.monotonic() - start < 10


def test_ctrl_c_stops_the_cli_with_exit_130(endless, tmp_path):
    env = {**os.environ, "COLUMNS": "250"}
    cmd = [sys.executable, "-m", "cclab", "run", str(endless), "--out", str(tmp_path / "o"), "--no-qlog"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    time.sleep(3.0)  # well into the simulation (interpreter start-up and imports take about a second)
    assert proc.poll() is None, proc.communicate()
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, (out, err)
    assert time.monotonic() - sent < 5
    assert "interrupted" in err and "Traceback" not in err
