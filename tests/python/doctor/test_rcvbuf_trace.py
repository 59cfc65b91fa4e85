"""rcvbuf-overflow from a sender's qlog alone: a stalled receiver's buffer versus a short queue on the path.

Model runs at 50 Mbit/s, 20 ms RTT, CUBIC: a receiver with a 32 KB socket buffer whose CPU is taken away for
8 ms stalls every 200 ms on average (its buffer overflows: the summary counts socket drops), and a path whose
22-packet drop-tail queue overflows instead, with a similar loss count. A receiver that is slow (300 µs a packet)
but never stalls is a short queue at its CPU's rate; it is run only as a negative for the ACK-clock rule.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import cclab
from cclab.doctor import diagnose

SCENARIO = """\
[scenario]
name = "doctor-rcvbuf-{name}"
description = "doctor test: {name}"
duration = "3s"

[path.forward]
rate = "50Mbps"
delay = "10ms"
queue = {{ kind = "droptail", limit_packets = {queue} }}

[path.return]
rate = "50Mbps"
delay = "10ms"

[hosts.receiver]
{receiver}

[[flow]]
source = {{ kind = "bulk", size = "1GB" }}
cc = {{ algorithm = "cubic" }}
"""
MODELS = {
    "stalled-receiver": (
        1000,
        'socket_buffer = "32KB"\n'
        'cpu = { recv_cost = "5us", stall = { mean_interval = "200ms", mean_duration = "8ms" } }',
    ),
    "short-queue": (22, ""),
    "slow-receiver": (1000, 'socket_buffer = "32KB"\ncpu = { recv_cost = "300us" }'),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """model → run directory; the sender's qlog is also copied alone to ``<run>-alone/trace.sqlog``."""
    base = tmp_path_factory.mktemp("rcvbuf-trace")
    out = {}
    for name, (queue, receiver) in MODELS.items():
        toml = base / f"{name}.toml"
        toml.write_text(SCENARIO.format(name=name, queue=queue, receiver=receiver))
        cclab.run(cclab.load(toml), out=base / name, qlog="draft-02")
        (base / f"{name}-alone").mkdir()
        shutil.copy(base / name / "trace.sqlog", base / f"{name}-alone" / "trace.sqlog")
        out[name] = base / name
    return out


def _found(path: Path) -> set[str]:
    return {f.name for d in diagnose(path) for f in d.findings}


def test_rcvbuf_overflow_from_lone_trace_of_stalled_receiver(runs):
    summary = json.loads((runs["stalled-receiver"] / "summary.json").read_text())["flows"][0]
    # The mechanism is there: the receiver's buffer dropped every lost packet.
    assert summary["socket_drops"] == summary["lost_packets"] >= 10
    (d,) = diagnose(runs["stalled-receiver"].with_name("stalled-receiver-alone") / "trace.sqlog")
    assert d.inputs == ["sender qlog"]
    (f,) = [f for f in d.findings if f.name == "rcvbuf-overflow"]
    rows = {q: v for q, v, _ in f.evidence}
    assert rows["losses in stalled episodes"].split()[0] == str(summary["lost_packets"])
    assert f.spans


def test_rcvbuf_overflow_not_from_lone_trace_of_short_path_queue(runs):
    summary = json.loads((runs["short-queue"] / "summary.json").read_text())["flows"][0]
    assert summary["lost_packets"] >= 10 and not summary.get("socket_drops")
    assert "rcvbuf-overflow" not in _found(runs["short-queue"].with_name("short-queue-alone") / "trace.sqlog")


@pytest.mark.parametrize("name", sorted(MODELS))
def test_forward_path_limits_are_not_ack_limited(runs, name):
    # A forward queue, a stalled or a per-packet-slow receiver: the data, not the ACKs, set the ACK clock.
    assert "ack-limited-forward-rate" not in _found(runs[name].with_name(f"{name}-alone") / "trace.sqlog")
