"""Seed 004: the default plan reproduces the loopback collapse and its fixes, and the judge can fail."""

import dataclasses

import pytest

from cclab.reproduce import seed004
from cclab.reproduce.harness import discard_traces, execute


@pytest.fixture(scope="module")
def results():
    results = execute(seed004.plan(False), workers=1)
    yield results
    discard_traces(results)


def standing_in(results, source, target):
    """`results` with the run labelled `source` in place of the one labelled `target`."""
    out = [r for r in results if r.spec.label != target]
    src = next(r for r in results if r.spec.label == source)
    return [*out, dataclasses.replace(src, spec=dataclasses.replace(src.spec, label=target))]


def test_seed004_nofeedback_interval_has_the_linux_floor():
    # 2·s/X for s = 22 B: 176 bit / X; the 100 ms floor holds above 1760 bit/s.
    assert seed004.nofeedback_interval(234.7e6) == 0.1
    assert seed004.nofeedback_interval(1760.0) == pytest.approx(0.2)
    assert seed004.nofeedback_interval(2.75) == pytest.approx(128.0)


@pytest.mark.slow
def test_seed004_default_plan_passes(results):
    verdicts = seed004.judge(results)
    assert all(v.status == "pass" for v in verdicts), [v for v in verdicts if v.status != "pass"]


@pytest.mark.slow
def test_seed004_judge_fails_when_the_fix_stands_in_for_the_pathology(results):
    verdicts = {v.quantity: v for v in seed004.judge(standing_in(results, "rtt-clamp", "loopback"))}
    for q in ("peak X", "time of the X peak", "receiver feedback once R < 4 µs", "X at the end"):
        assert not verdicts[q].ok, verdicts[q]


@pytest.mark.slow
def test_seed004_judge_fails_when_the_1ms_run_stands_in_for_the_2ms_run(results):
    verdicts = {v.quantity: v for v in seed004.judge(standing_in(results, "rtt-1ms", "rtt-2ms"))}
    assert verdicts["X with RTT 2ms (netem)"].status == "fail"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("override", "failing"),
    [
        # No Request/Response: the first RTT sample is the 3 µs exchange, X = 4·s/RTT at the first feedback.
        ("flow.0.tfrc.handshake=false", ("first X: W_init/R with the handshake RTT", "time of the X peak")),
        # No send path: the idle test never holds, X follows s/R and peaks at s/RTT, not 4·s/RTT.
        ("flow.0.tfrc.send_path=0s", ("climb: doubling starts", "peak X")),
    ],
)
def test_seed004_judge_fails_without_a_climb_mechanism(results, override, failing):
    spec = next(s for s in seed004.plan(False) if s.label == "loopback")
    spec = dataclasses.replace(spec, overrides=(*spec.overrides, override))
    (variant,) = execute([spec], workers=1)
    try:
        others = [r for r in results if r.spec.label != "loopback"]
        verdicts = {v.quantity: v for v in seed004.judge([*others, variant])}
    finally:
        discard_traces([variant])
    for q in failing:
        assert verdicts[q].status == "fail", verdicts[q]
