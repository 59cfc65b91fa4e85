"""ack-limited-forward-rate from a sender's qlog alone (no summary, no links): who spaces the ACKs.

Positives are seed 003's asymmetric paths (the seed's QUIC 1:2 run, the catalog's byte-congestive and
packet-congestive returns); negatives are the seed's fix (1:10, the forward link full) and catalog bulk runs whose
forward link is the bottleneck. Each run is traced by the simulator and only its ``trace.sqlog`` is diagnosed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

import cclab
from cclab.doctor import ack_clock, diagnose
from cclab.traces.qlog import read_qlog

from .conftest import ROOT, SEEDS

NAME = "ack-limited-forward-rate"
#: run → (scenario file, duration, ACK-limited). 20 s is 33 RTTs of seed 003's 600 ms path, past slow start.
RUNS = {
    "seed-003-quic-ar2": (SEEDS / "seed-003-quic-ar2.toml", "20s", True),
    "asymmetric-ack-ratio": (ROOT / "scenarios" / "asymmetric-ack-ratio.toml", "20s", True),
    "packet-congestive-return": (ROOT / "scenarios" / "packet-congestive-return.toml", "10s", True),
    "seed-003-quic-ar10": (SEEDS / "seed-003-quic-ar10.toml", "20s", False),
    "satellite-10-2-cubic": (ROOT / "scenarios" / "satellite-10-2-cubic.toml", "20s", False),
    "bulk-newreno": (ROOT / "scenarios" / "bulk-newreno.toml", "3s", False),
    "codel-bufferbloat": (ROOT / "scenarios" / "codel-bufferbloat.toml", "10s", False),
}


@pytest.fixture(scope="module")
def lone_traces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """run → the sender's qlog copied alone into an empty directory."""
    base = tmp_path_factory.mktemp("ack-limited-trace")
    out = {}
    for name, (file, duration, _) in RUNS.items():
        run = base / name
        cclab.run(cclab.load(file, set=[f'scenario.duration="{duration}"']), out=run, qlog="draft-02")
        (base / f"{name}-alone").mkdir()
        out[name] = Path(shutil.copy(run / "trace.sqlog", base / f"{name}-alone" / "trace.sqlog"))
    return out


@pytest.mark.parametrize("name", sorted(RUNS))
def test_ack_limited_from_lone_sender_qlog_only_where_the_return_path_clocks(lone_traces, name):
    (d,) = diagnose(lone_traces[name])
    assert d.inputs == ["sender qlog"]
    found = {f.name for f in d.findings}
    assert (NAME in found) is RUNS[name][2], found


def test_ack_limited_trace_evidence_names_the_ack_clock(lone_traces):
    (d,) = diagnose(lone_traces["seed-003-quic-ar2"])
    (f,) = [f for f in d.findings if f.name == NAME]
    rows = {q: v for q, v, _ in f.evidence}
    # 1:2 QUIC: two packets per ACK; the back-to-back gaps imply the 100 kbit/s return link.
    assert "× 2.00" in rows["ACK rate × packets per ACK → forward rate"]
    assert rows["return capacity implied by the back-to-back gaps"].startswith("100 kbit/s")
    assert f.spans and f.series


def test_ack_clock_gap_follows_ack_size_on_byte_congestive_return_and_data_on_forward(lone_traces):
    ret = ack_clock.measure(read_qlog(lone_traces["seed-003-quic-ar2"]).acks)
    fwd = ack_clock.measure(read_qlog(lone_traces["seed-003-quic-ar10"]).acks)
    assert ret is not None and fwd is not None
    assert ret.size_elasticity is not None and ret.size_elasticity > 0.9
    # The forward link spaces the 1:10 ACKs; their size moves the gap only through a longer ack_delay field.
    assert fwd.size_elasticity is not None and fwd.size_elasticity < 0.8


def test_qlog_acks_table_counts_each_sent_packet_once(lone_traces):
    tr = read_qlog(lone_traces["bulk-newreno"])
    a = tr.acks
    assert a["newly_acked"].sum() <= len(tr.sent["pn"])
    assert a["newly_acked_bytes"].sum() <= tr.sent["size"].sum()
    new = a["newly_acked"] > 0
    # The largest packet an ACK newly covers was sent before the ACK arrived.
    assert np.all(a["largest_sent_s"][new] <= a["time_s"][new])
    # A lossless bulk run acknowledges all but the last flight.
    assert a["newly_acked"].sum() >= 0.9 * len(tr.sent["pn"])
