"""RFC 9000 §13.2.4 in the traces: ACK frames stop reporting what the sender has acknowledged receiving."""

import json

import cclab
from conftest import TINY, write_scenario


def frames(trace, event="packet_sent"):
    for rec in trace.read_bytes().split(b"\x1e"):
        if event.encode() in rec:
            ev = json.loads(rec)
            yield ev["time"], ev["data"]["frames"]


def test_ack_ranges_start_above_what_the_sender_acknowledged(tmp_path):
    # 5 MB over 50 Mbit/s and 20 ms RTT with a one-BDP queue: about 3,600 packets, 85-170 per round trip.
    text = TINY.replace('"10Mbps"', '"50Mbps"').replace('"1MB"', '"5MB"')
    text = text.replace('delay = "10ms"\n', 'delay = "10ms"\nqueue = { kind = "droptail", limit = "125KB" }\n', 1)
    cclab.run(write_scenario(tmp_path, text), out=tmp_path / "o", qlog=True)
    acks = [
        f["acked_ranges"]
        for _, fs in frames(tmp_path / "o" / "trace-receiver.sqlog")
        for f in fs
        if f["frame_type"] == "ack"
    ]
    assert len(acks) > 1000
    covered = [sum(hi - lo + 1 for lo, hi in ranges) for ranges in acks]
    largest = max(hi for ranges in acks for _, hi in ranges)
    assert largest > 3000
    # Without §13.2.4 every ACK reaches back to packet 0 and covers ~largest/2 packets on average (what
    # qvis walks through); with it, about the packets of the last round trips.
    assert sum(covered) / len(covered) < 400, sum(covered) / len(covered)
    assert min(lo for lo, _ in acks[-1]) > largest // 2
    assert all(len(ranges) <= 32 for ranges in acks)
    # The receiver's PINGs are what the sender acknowledges: ACK frames ride on its data packets.
    sender = [fs for _, fs in frames(tmp_path / "o" / "trace.sqlog")]
    piggybacked = [fs for fs in sender if {"ack", "stream"} <= {f["frame_type"] for f in fs}]
    pings = [
        fs for _, fs in frames(tmp_path / "o" / "trace-receiver.sqlog") if any(f["frame_type"] == "ping" for f in fs)
    ]
    assert piggybacked and pings and len(pings) < len(acks) / 5
