"""Seed 001: the default plan reproduces the report, and the judge rejects runs without the pathology."""

import dataclasses

import pytest

from cclab.reproduce import seed001
from cclab.reproduce.harness import discard_traces, execute


@pytest.fixture(scope="module")
def results():
    results = execute(seed001.plan(False), workers=1)
    yield results
    discard_traces(results)


def ack(t_ms, state="congestion_avoidance", changed=False, cwnd=2896):
    return seed001.Ack(t_ms / 1e3, state, changed, cwnd)


def test_seed001_runs_count_acks_between_cwnd_changes_in_ca():
    # From 60 ms on: a change every 20th ACK (one ACK per 50 µs), then a loss (recovery), then CA again.
    acks = [ack(60 + 0.05 * i, changed=i % 20 == 0) for i in range(61)]
    acks += [ack(63.1, "recovery", True), ack(63.15, changed=True), *[ack(63.2 + 0.05 * i) for i in range(5)]]
    # Runs 1..20, 21..40, 41..60 complete; the one cut by recovery and the unfinished one do not count.
    assert seed001.ca_runs(tuple(acks)) == [20, 20, 20]
    assert seed001.ack_weighted_median([1, 1, 1, 1, 40]) == 40
    assert seed001.ack_weighted_median([1, 3]) == 3


def test_seed001_acks_per_tick_is_the_median_count_per_whole_millisecond():
    # 20 ACKs in each of the ticks 50..59 ms, none in tick 60 but one ACK in tick 61 (the last, partial tick).
    acks = [ack(50 + 0.05 * i) for i in range(200)] + [ack(61.5)]
    assert seed001.acks_per_tick(tuple(acks)) == 20


@pytest.mark.slow
def test_seed001_default_plan_passes_every_verdict(results):
    verdicts = seed001.judge(results)
    assert len(verdicts) == 5
    assert all(v.passed for v in verdicts), [v for v in verdicts if not v.passed]


@pytest.mark.slow
def test_seed001_judge_fails_when_the_us_clock_fix_stands_in_for_tick_cubic(results):
    swapped = [r for r in results if not r.spec.label.startswith("cubic-ticks")]
    for r in results:
        if r.spec.label.startswith("cubic-usclock"):
            label = r.spec.label.replace("cubic-usclock", "cubic-ticks")
            swapped.append(dataclasses.replace(r, spec=dataclasses.replace(r.spec, label=label)))
    failed = {v.quantity for v in seed001.judge(swapped) if not v.passed}
    assert "goodput NewReno / CUBIC (ticks)" in failed
    assert "CUBIC (ticks): ACKs with unchanged cwnd in CA (ACK-weighted median run)" in failed


@pytest.mark.slow
def test_seed001_figures_are_written(results, tmp_path):
    paths = seed001.figures(results, tmp_path)
    assert {p.suffix for p in paths} == {".png", ".svg"}
    assert all(p.stat().st_size > 10_000 for p in paths)
