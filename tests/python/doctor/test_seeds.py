"""Every seed pathology run gets its seed's finding and its fixed run gets none of the seed classes."""

from __future__ import annotations

import pytest

from cclab.doctor import SEED_CLASSES, diagnose

#: seed → the finding its pathology must produce.
EXPECTED = {
    "seed-000": "ack-starvation",
    "seed-001": "clock-granularity-stall",
    "seed-002": "slow-start-no-bandwidth-jump",
    "seed-003": "ack-limited-forward-rate",
    "seed-004": "feedback-collapse",
}


def names(run_dir) -> set[str]:
    return {f.name for d in diagnose(run_dir) for f in d.findings}


@pytest.mark.parametrize("seed", sorted(EXPECTED))
def test_doctor_flags_seed_pathology_with_its_finding_only(seed_runs, seed):
    found = names(seed_runs[seed, "pathology"])
    assert EXPECTED[seed] in found
    # No other seed's class: each pathology is told apart from the others.
    assert found & set(SEED_CLASSES) == {EXPECTED[seed]}, found


@pytest.mark.parametrize("seed", sorted(EXPECTED))
def test_doctor_gives_fixed_seed_run_no_seed_class_finding(seed_runs, seed):
    assert not names(seed_runs[seed, "fixed"]) & set(SEED_CLASSES)


def test_doctor_finding_names_its_seed_and_fix(seed_runs):
    (d,) = diagnose(seed_runs["seed-000", "pathology"])
    (f,) = [f for f in d.findings if f.name == "ack-starvation"]
    assert f.seed == "seed-000" and f.fix and f.verdict
    # The evidence carries the numbers that crossed the thresholds.
    rows = {q: v for q, v, _ in f.evidence}
    assert "µs" in rows["min RTT"] and "ms" in rows["median ACK interval"]
