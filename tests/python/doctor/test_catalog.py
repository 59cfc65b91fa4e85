"""Every catalog scenario gives no seed-class finding except the seed pathology it is written to show.

Each scenario runs twice: untraced for its own duration (capped at `LONG`), so slow start is over and link
utilisations mean something, and traced for `TRACED` (`TRACED_LOOPBACK` on an unlimited-rate path, whose
trace would otherwise hold millions of packets), so the trace-based detectors get a chance to misfire.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import cclab
from cclab.doctor import SEED_CLASSES, diagnose

CATALOG = sorted((Path(__file__).resolve().parents[3] / "scenarios").glob("*.toml"))
LONG = 30.0
TRACED = "2s"
TRACED_LOOPBACK = "50ms"
#: Catalog scenarios built to show a seed's pathology, per their header comments: both are seed 003's
#: return-path limit ("the return link limits the forward rate"; "ACK count, not size, limits").
#: The 250/3 Mbit/s satellite runs (issue #12's comparison) spend all 100 MB in slow start at 600 ms RTT, doubling
#: per RTT with no bandwidth jump, and end at twice the path's ideal: seed 002's class, which the doctor names.
SHOWS = {
    "asymmetric-ack-ratio": {"ack-limited-forward-rate"},
    "packet-congestive-return": {"ack-limited-forward-rate"},
    "satellite-250-3-bbr3": {"slow-start-no-bandwidth-jump"},
    "satellite-250-3-cubic": {"slow-start-no-bandwidth-jump"},
}


def _seconds(duration: str) -> float:
    return cclab.api.interval_ns(duration) / 1e9


@pytest.mark.parametrize("scenario", CATALOG, ids=lambda p: p.stem)
def test_doctor_finds_only_intended_seed_classes_in_catalog_scenario(tmp_path, scenario):
    doc = tomllib.loads(scenario.read_text())
    long = min(_seconds(doc["scenario"]["duration"]), LONG)
    loopback = doc.get("path", {}).get("forward", {}).get("rate") == "unlimited"
    cclab.run(cclab.load(scenario, set=[f"scenario.duration={long}s"]), out=tmp_path / "long", qlog=None)
    traced = TRACED_LOOPBACK if loopback else TRACED
    cclab.run(cclab.load(scenario, set=[f'scenario.duration="{traced}"']), out=tmp_path / "traced", qlog="draft-02")
    diagnoses = diagnose(tmp_path / "long") + diagnose(tmp_path / "traced")
    assert all("sender qlog" in d.inputs for d in diagnoses[len(diagnoses) // 2 :])
    found = {f.name for d in diagnoses for f in d.findings} & set(SEED_CLASSES)
    assert found == SHOWS.get(scenario.stem, set())
