"""Runs the doctor's tests read, once per session: the seed pairs at reduced size and small model scenarios.

Every trace or run here comes from the simulator (or, for the fixtures, from a real stack); none is written by
hand. The runs take a few seconds in all (seed 000's 1 GB transfers are the longest, ~1.5 s each).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cclab

ROOT = Path(__file__).resolve().parents[3]
SEEDS = ROOT / "scenarios" / "seeds"

#: seed → (pathology, fixed): scenario file, overrides, traced. Sizes are reduced like `cclab reproduce`'s
#: default or below, but each still shows its mechanism (seed 000 reaches the slow state within 1 GB).
SEED_PAIRS: dict[str, tuple[tuple[str, tuple[str, ...], bool], tuple[str, tuple[str, ...], bool]]] = {
    "seed-000": (
        ("seed-000-loopback-ack-gap.toml", ('flow[0].source.size="1GB"',), False),
        ("seed-000-loopback-ack-gap-capped.toml", ('flow[0].source.size="1GB"',), False),
    ),
    "seed-001": (
        ("seed-001-cubic-ticks.toml", ('scenario.duration="0.15s"',), True),
        ("seed-001-cubic-usclock.toml", ('scenario.duration="0.15s"',), True),
    ),
    "seed-002": (("seed-002-train-paced.toml", (), False), ("seed-002-train-pause.toml", (), False)),
    "seed-003": (
        ("seed-003-quic-ar2.toml", ('scenario.duration="30s"',), False),
        ("seed-003-quic-ar10.toml", ('scenario.duration="30s"',), False),
    ),
    "seed-004": (
        ("seed-004-loopback.toml", ('scenario.duration="10s"',), False),
        ("seed-004-rtt-clamp.toml", ('scenario.duration="10s"',), False),
    ),
}

#: A small p2p scenario; the detector tests fill in the path, host and flow details.
BASE = """\
[scenario]
name = "doctor-{name}"
description = "doctor test: {name}"
duration = "{duration}"

[path.forward]
rate = "{rate}"
delay = "{delay}"
{forward}

[path.return]
rate = "{rate}"
delay = "{delay}"
{ret}

{hosts}

[[flow]]
source = {source}
cc = {{ algorithm = "{cc}" }}
"""

#: name → BASE fields; each detector test uses one as its positive and one as its negative case.
MODELS: dict[str, dict[str, str]] = {
    "bulk": {},
    "bloat": {"forward": 'queue = { kind = "droptail", limit_packets = 2000 }'},
    "short-queue": {"forward": 'queue = { kind = "droptail", limit_packets = 20 }'},
    "reorder": {"forward": 'reorder = { p = 0.02, delay = "8ms" }', "rate": "20Mbps"},
    "ack-blackout": {
        "forward": 'queue = { kind = "droptail", limit_packets = 20 }',
        "ret": 'loss = { model = "gilbert-elliott", p = 0.005, r = 0.01 }',
    },
    "app-limited": {"source": '{ kind = "cbr", packet_size = "1200B", rate = "2Mbps" }'},
}
DEFAULTS = {
    "duration": "3s",
    "rate": "10Mbps",
    "delay": "10ms",
    "forward": "",
    "ret": "",
    "hosts": "",
    "source": '{ kind = "bulk", size = "3MB" }',
    "cc": "cubic",
}


def _run(out: Path, scenario: cclab.Scenario, trace: bool) -> Path:
    cclab.run(scenario, out=out, qlog="draft-02" if trace else None)
    return out


@pytest.fixture(scope="session")
def seed_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """(seed, "pathology" | "fixed") → run directory."""
    base = tmp_path_factory.mktemp("doctor-seeds")
    runs = {}
    for seed, pair in SEED_PAIRS.items():
        for kind, (file, overrides, trace) in zip(("pathology", "fixed"), pair, strict=True):
            sc = cclab.load(SEEDS / file, set=list(overrides))
            runs[seed, kind] = _run(base / f"{seed}-{kind}", sc, trace)
    return runs


@pytest.fixture(scope="session")
def model_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """MODELS name → traced run directory."""
    base = tmp_path_factory.mktemp("doctor-models")
    runs = {}
    for name, fields in MODELS.items():
        path = base / f"{name}.toml"
        path.write_text(BASE.format(**{**DEFAULTS, **fields, "name": name}))
        runs[name] = _run(base / name, cclab.load(path), trace=True)
    return runs
