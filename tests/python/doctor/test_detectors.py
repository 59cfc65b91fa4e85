"""Each detector fires on a model run that has its mechanism and stays silent on one that does not.

Seed classes use the seed pairs (also in test_seeds.py); the common detectors use small model scenarios
(conftest.MODELS): a 1000-packet queue on 10 Mbit/s (bloat), reordering beyond the packet threshold, bursts of
lost ACKs (PTO storm), a 2 Mbit/s CBR source (application-limited), and a short queue as the clean negative.
"""

from __future__ import annotations

import pytest

from cclab.doctor import DETECTORS, NAMES, diagnose
from cclab.traces.rundir import load

#: detector → (positive run, negative run); ("seed-00N", kind) keys are seed runs, strings model runs.
CASES = {
    "ack-starvation": (("seed-000", "pathology"), ("seed-000", "fixed")),
    "clock-granularity-stall": (("seed-001", "pathology"), ("seed-001", "fixed")),
    "slow-start-no-bandwidth-jump": (("seed-002", "pathology"), ("seed-002", "fixed")),
    "ack-limited-forward-rate": (("seed-003", "pathology"), ("seed-003", "fixed")),
    "feedback-collapse": (("seed-004", "pathology"), ("seed-004", "fixed")),
    "rcvbuf-overflow": (("seed-000", "pathology"), "short-queue"),
    "bufferbloat": ("bloat", "short-queue"),
    "spurious-retransmissions": ("reorder", "short-queue"),
    "pto-storm": ("ack-blackout", "short-queue"),
    "app-or-flow-control-limited": ("app-limited", "short-queue"),
    "pacing-exceeds-delivery": (("seed-000", "pathology"), ("seed-002", "pathology")),
}


def test_doctor_cases_cover_every_detector():
    assert set(CASES) == set(NAMES)


def _run(key, seed_runs, model_runs):
    return seed_runs[key] if isinstance(key, tuple) else model_runs[key]


@pytest.mark.parametrize("name", sorted(CASES))
def test_detector_fires_on_its_mechanism_and_not_without_it(seed_runs, model_runs, name):
    detector = next(d for d in DETECTORS if d.NAME == name)
    pos, neg = (_run(k, seed_runs, model_runs) for k in CASES[name])
    (view,) = load(pos)
    finding = detector.detect(view)
    assert finding is not None, f"{name} missed {pos}"
    assert finding.name == name and finding.evidence and finding.fix
    (view,) = load(neg)
    assert detector.detect(view) is None, f"{name} fired on {neg}"


def test_short_queue_model_run_is_clean(model_runs):
    # The shared negative: real losses in a short queue, no pathology the doctor names.
    assert [f.name for d in diagnose(model_runs["short-queue"]) for f in d.findings] == []


def test_spurious_retransmissions_are_losses_acknowledged_later(model_runs):
    (view,) = load(model_runs["reorder"])
    tr = view.sender
    lost = set(tr.lost["pn"].tolist())
    # Every packet counted as spurious was declared lost before and acknowledged at or after that time.
    for t, pn in zip(tr.acked_after_loss["time_s"], tr.acked_after_loss["pn"], strict=True):
        assert pn in lost
        assert t >= tr.lost["time_s"][tr.lost["pn"] == pn].min()
