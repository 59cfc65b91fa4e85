"""Seed 002: the default plan reproduces the report, and the judge rejects runs without the pathology."""

import dataclasses

import pytest

from cclab.reproduce import seed002
from cclab.reproduce.harness import execute


@pytest.fixture(scope="module")
def results():
    return execute(seed002.plan(False), workers=1)


def series(cwnd, acked):
    return {"time_s": [0.01 * i for i in range(len(cwnd))], "cwnd_bytes": cwnd, "bytes_acked": acked}


def test_seed002_jumps_are_growth_beyond_the_acknowledged_bytes():
    # Interval 1 holds the first ACK (window set from the RTT sample): skipped. Then slow start
    # (+10 kB per 10 kB acked), a jump (+1 MB for 10 kB acked), and a loss (cwnd falls).
    cwnd = [15e3, 90e3, 100e3, 110e3, 1.11e6, 1.12e6, 0.8e6]
    acked = [0, 1e3, 11e3, 21e3, 31e3, 41e3, 41e3]
    assert seed002.jumps(series(cwnd, acked)) == [(pytest.approx(0.04), 110e3, 1.11e6)]
    # Exactly the slack above the acknowledged bytes is not a jump; one byte more is.
    slack = seed002.JUMP_OVERHEAD * 10e3 + seed002.JUMP_SLACK
    assert seed002.jumps(series([0, 0, 0, slack], [0, 1, 1, 1 + 10e3])) == []
    assert len(seed002.jumps(series([0, 0, 0, slack + 1], [0, 1, 1, 1 + 10e3]))) == 1


@pytest.mark.slow
def test_seed002_default_plan_passes_every_verdict(results):
    verdicts = seed002.judge(results)
    assert len(verdicts) == 5
    assert all(v.passed for v in verdicts), [v for v in verdicts if not v.passed]


@pytest.mark.slow
def test_seed002_judge_fails_when_the_fix_stands_in_for_the_pathology(results):
    fixed = next(r for r in results if r.spec.label == "pause")
    swapped = [r for r in results if r.spec.label != "paced"]
    swapped.append(dataclasses.replace(fixed, spec=dataclasses.replace(fixed.spec, label="paced")))
    failed = {v.quantity for v in seed002.judge(swapped) if not v.passed}
    assert failed == {"A completion time", "A / B completion time", "A: estimate-driven cwnd jumps"}


@pytest.mark.slow
def test_seed002_figures_are_written(results, tmp_path):
    paths = seed002.figures(results, tmp_path)
    assert {p.suffix for p in paths} == {".png", ".svg"}
    assert all(p.stat().st_size > 10_000 for p in paths)
