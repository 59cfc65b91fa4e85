"""Seed 000: the default plan reproduces the report, and the judge rejects runs without the pathology."""

import dataclasses

import pytest

from cclab.reproduce import seed000
from cclab.reproduce.harness import RunResult, RunSpec, execute


@pytest.fixture(scope="module")
def results():
    return execute(seed000.plan(False), workers=1)


def fake(label, size, goodput_gbps, srtt_s=(2e-5, 4e-5)):
    spec = RunSpec(label, "x.toml", (f'flow[0].source.size="{size}"',))
    flow = {"goodput_bps": goodput_gbps * 1e9, "ack_interval_mean_s": 1e-3, "loss_rate": 0.005, "min_rtt_s": 2e-5}
    ts = {"srtt_s": [0.333, *srtt_s], "bytes_acked": [0.0, 1.0, 2.0]}
    return RunResult(spec, {"flows": [flow]}, ts)


def test_seed000_plan_covers_both_ccs_sizes_and_the_cap():
    labels = {s.label for s in seed000.plan(False)}
    assert labels == {
        f"{cc}-{v}" for cc in ("cubic", "bbr") for v in ("uncapped-short", "uncapped-long", "capped-long")
    }
    full = seed000.plan(True)
    assert sum(s.label == "cubic-uncapped-long" for s in full) == 16
    assert {o for s in full for o in s.overrides if "size" in o} == {
        'flow[0].source.size="1GB"',
        'flow[0].source.size="10GB"',
    }


def test_seed000_mean_srtt_skips_rows_before_the_first_ack():
    # The 333 ms initial RTT before any ACK is not a sample: the mean is of 20 and 40 µs.
    assert seed000.mean_srtt_s(fake("x", "1GB", 1.0)) == pytest.approx(3e-5)


def test_seed000_rates_are_sorted_and_spread_is_range_over_median():
    runs = [fake("x", "1GB", g) for g in (3.0, 1.0, 2.0)]
    assert seed000.rates_gbps(runs) == [1.0, 2.0, 3.0]
    assert seed000.spread([1.0, 2.0, 3.0]) == 1.0


@pytest.mark.slow
def test_seed000_default_plan_passes_every_verdict(results):
    verdicts = seed000.judge(results)
    assert len(verdicts) == 9
    assert all(v.passed for v in verdicts), [v for v in verdicts if not v.passed]


@pytest.mark.slow
def test_seed000_judge_fails_when_capped_runs_stand_in_for_uncapped(results):
    # Without the pathology (the capped runs relabelled), long transfers are no slower and the cap gains nothing.
    swapped = [r for r in results if r.spec.label != "cubic-uncapped-long"]
    for r in results:
        if r.spec.label == "cubic-capped-long":
            swapped.append(dataclasses.replace(r, spec=dataclasses.replace(r.spec, label="cubic-uncapped-long")))
    failed = {v.quantity for v in seed000.judge(swapped) if not v.passed}
    assert "CUBIC without cap: median rate, 1GB vs 10GB transfers" in failed
    assert "CUBIC 10GB: median rate with / without the cap" in failed
    assert "CUBIC 10GB: mean ACK interval, without / with the cap" in failed


@pytest.mark.slow
def test_seed000_figures_are_written(results, tmp_path):
    paths = seed000.figures(results, tmp_path)
    assert {p.suffix for p in paths} == {".png", ".svg"} and len(paths) == 4
    assert all(p.stat().st_size > 10_000 for p in paths)


def test_seed000_series_sit_side_by_side_on_the_rank_axis():
    offsets = [seed000.marker_offset(i, 4) for i in range(4)]
    assert offsets == sorted(set(offsets)) and abs(sum(offsets)) < 1e-12 and max(offsets) < 0.5
    assert seed000.marker_offset(0, 1) == 0.0
