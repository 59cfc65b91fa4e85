"""Progress with an ETA; without a terminal, a plain line at most every 10 s instead of silence."""

import io

from cclab.cli import _common


def test_progress_line_gives_share_count_elapsed_and_eta():
    assert _common.progress_line("sweep", 3, 12, 30.0) == "sweep: 25 % (3/12), 30 s elapsed, ETA 90 s"
    assert _common.progress_line("run", 0.5, 1.0, 8.0) == "run: 50 %, 8 s elapsed, ETA 8 s"
    assert _common.progress_line("run", 0.0, 1.0, 2.0).endswith("ETA unknown")


def test_without_a_terminal_progress_prints_at_most_every_10_s(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(_common.sys, "stderr", out)  # not a terminal
    clock = iter([0.0, 0.5, 2.0, 5.0, 11.0, 12.0, 21.5, 22.0])
    monkeypatch.setattr(_common.time, "monotonic", lambda: next(clock))
    with _common.DelayedProgress("sweep of 8 runs") as progress:  # start at t = 0
        for done in range(1, 8):  # calls at t = 0.5 (within the 1 s delay: silent), 2, 5, 11, 12, 21.5, 22
            progress(done, 8)
    lines = out.getvalue().splitlines()
    # Printed at t = 2 (first after the delay), 12 (10 s later) and 22; not at 5, 11 or 21.5.
    assert [line.split(",")[1].strip() for line in lines] == ["2 s elapsed", "12 s elapsed", "22 s elapsed"]
    assert lines[0] == "sweep of 8 runs: 25 % (2/8), 2 s elapsed, ETA 6 s"
