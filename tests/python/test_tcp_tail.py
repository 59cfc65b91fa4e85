"""The end of a TCP transfer: the short last segment is ACKed at once, so no probe fires and nothing is
retransmitted; a TCP trace has no QUIC PING and no ack_delay."""

import json

import cclab
from conftest import TINY, write_scenario


def test_lossless_tcp_transfer_ends_without_probes_or_retransmissions(tmp_path):
    # 1 MB is not a whole number of 1448 B segments: the last one is short and carries the FIN.
    text = TINY.replace("[[flow]]\n", '[[flow]]\nprofile = "tcp"\nreceiver = { ack = { policy = "tcp-delayed" } }\n')
    result = cclab.run(write_scenario(tmp_path, text), out=tmp_path / "o", qlog=True)
    flow = result.summary["flows"][0]
    assert flow["bytes_delivered"] == 1_000_000
    assert flow["retransmitted_packets"] == 0 and flow["lost_packets"] == 0
    frames = []
    for name in ("trace.sqlog", "trace-receiver.sqlog"):
        for rec in (tmp_path / "o" / name).read_bytes().split(b"\x1e"):
            if b"packet_sent" in rec:
                frames += json.loads(rec)["data"]["frames"]
    assert not [f for f in frames if f["frame_type"] == "ping"]
    assert all(f["ack_delay"] == 0 for f in frames if f["frame_type"] == "ack")
