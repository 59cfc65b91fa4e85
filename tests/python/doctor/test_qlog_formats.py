"""Our two qlog flavours (0.3 and IETF) read into the same tables as the run's own counters say."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cclab
from cclab.traces.qlog import read_qlog

SCENARIO = Path(__file__).resolve().parents[3] / "scenarios" / "bulk-newreno.toml"


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    out = tmp_path_factory.mktemp("doctor-formats")
    runs = {}
    for fmt in ("draft-02", "ietf"):
        runs[fmt] = cclab.run(cclab.load(SCENARIO, set=['scenario.duration="0.5s"']), out=out / fmt, qlog=fmt).summary[
            "flows"
        ][0]
    return out, runs


def test_qlog_03_and_ietf_give_identical_tables(both):
    out, _ = both
    for name in ("trace.sqlog", "trace-receiver.sqlog"):
        a, b = read_qlog(out / "draft-02" / name), read_qlog(out / "ietf" / name)
        assert a.event_counts == b.event_counts
        for table in ("sent", "received", "metrics", "lost", "ack_frequency"):
            ta, tb = getattr(a, table), getattr(b, table)
            assert ta.keys() == tb.keys()
            for col in ta:
                np.testing.assert_array_equal(ta[col], tb[col])


def test_qlog_tables_match_the_summary_counters(both):
    out, runs = both
    summary = runs["draft-02"]
    sender, receiver = read_qlog(out / "draft-02" / "trace.sqlog"), read_qlog(out / "draft-02" / "trace-receiver.sqlog")
    assert sender.is_data_sender and not receiver.is_data_sender
    assert len(sender.sent["time_s"]) == summary["data_packets_sent"]
    assert int(receiver.sent["ack_only"].sum()) == summary["acks_sent"]
    assert len(sender.lost["time_s"]) == summary["lost_packets"]
    assert np.nanmax(sender.metrics["cwnd_bytes"]) == summary["cwnd_max_bytes"]


@pytest.mark.parametrize(
    ("file", "capped"), [("seed-000-loopback-ack-gap.toml", False), ("seed-000-loopback-ack-gap-capped.toml", True)]
)
def test_qlog_ack_frequency_frames_give_the_requested_gap(tmp_path, file, capped):
    # 20 ms of seed 000's loopback transfer: slow start has raised cwnd/4 far above 32 packets.
    sc = cclab.load(SCENARIO.parent / "seeds" / file, set=['scenario.duration="20ms"'])
    cclab.run(sc, out=tmp_path, qlog="ietf")
    gaps = read_qlog(tmp_path / "trace.sqlog").ack_frequency["threshold"]
    assert len(gaps) > 0
    assert (gaps.max() <= 32) == capped
