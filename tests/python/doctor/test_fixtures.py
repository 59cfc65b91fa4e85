"""The real-stack fixtures parse and give the findings their READMEs state."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cclab.doctor import diagnose
from cclab.traces.qlog import QlogError, read_qlog, read_qlog_traces

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
#: fixture/file → the findings its README states.
STATED = {
    "picoquic-cubic/server.qlog": {"app-or-flow-control-limited"},
    "picoquic-cubic/client.qlog": set(),
    "picoquic-bbr/server.qlog": set(),
    "picoquic-bbr/client.qlog": set(),
    "picoquic-newreno/server.qlog": {"app-or-flow-control-limited"},
    "picoquic-newreno/client.qlog": set(),
    "picoquic-cubic-tbf-bloat/server.qlog": {"bufferbloat"},
    "picoquic-cubic-tbf-bloat/client.qlog": set(),
    "quinn-cubic/server.sqlog": {"app-or-flow-control-limited"},
    "quinn-cubic/client.sqlog": set(),
    "quinn-bbr/server.sqlog": set(),
    "quinn-bbr/client.sqlog": set(),
    "quinn-newreno/server.sqlog": set(),
    "quinn-newreno/client.sqlog": set(),
    "quinn-cubic-tbf-bloat/server.sqlog": {"bufferbloat", "app-or-flow-control-limited"},
    "quinn-cubic-tbf-bloat/client.sqlog": set(),
}
#: Bytes each fixture's client downloaded.
DOWNLOAD = {"picoquic": 500_000, "quinn": 2_000_000}


def test_every_fixture_file_has_a_stated_result_and_a_readme():
    files = {str(p.relative_to(FIXTURES)) for p in FIXTURES.glob("*/*.qlog")} | {
        str(p.relative_to(FIXTURES)) for p in FIXTURES.glob("*/*.sqlog")
    }
    assert files == set(STATED)
    for name in STATED:
        readme = (FIXTURES / name).parent / "README.md"
        assert readme.is_file()
        text = readme.read_text()
        for finding in STATED[name]:
            assert f"`{finding}`" in text


@pytest.mark.parametrize("name", sorted(STATED))
def test_fixture_parses_and_gives_stated_findings(name):
    trace = read_qlog(FIXTURES / name)
    server = name.split("/")[1].startswith("server")
    assert trace.is_data_sender == server
    size = DOWNLOAD[name.split("-")[0]]
    if name.startswith("picoquic"):
        # picoquic logs frames: the 1-RTT stream bytes are the download (plus a few request bytes the other way).
        assert (trace.stream_bytes_sent if server else trace.stream_bytes_received) >= size
    elif server:
        # quinn logs no frames: the sent 1-RTT packets are the download plus headers.
        assert trace.sent["size"].sum() >= size
    if server:
        m = trace.metrics
        assert len(m["time_s"]) > 10 and (m["cwnd_bytes"] > 0).any()
        srtt = m["srtt_s"][m["srtt_s"] > 0]
        # Loopback, with or without the 100 ms token-bucket queue: RTTs between µs and 0.2 s in either unit.
        assert 1e-6 < srtt.min() and srtt.max() < 0.2
    (d,) = diagnose(FIXTURES / name)
    assert {f.name for f in d.findings} == STATED[name]


def test_json_document_parse_does_not_depend_on_chunk_boundaries(monkeypatch):
    from cclab.traces import qlog

    whole = read_qlog(FIXTURES / "picoquic-cubic" / "server.qlog")
    monkeypatch.setattr(qlog, "CHUNK", 512)
    monkeypatch.setattr(qlog, "MARGIN", 200)
    small = read_qlog(FIXTURES / "picoquic-cubic" / "server.qlog")
    assert small.event_counts == whole.event_counts
    for table in ("sent", "received", "metrics"):
        for col, values in getattr(whole, table).items():
            np.testing.assert_array_equal(getattr(small, table)[col], values)


def _tables_equal(a, b) -> bool:
    return all(np.array_equal(a.sent[k], b.sent[k]) for k in a.sent) and a.event_counts == b.event_counts


@pytest.mark.parametrize("events_first", [False, True])
def test_every_trace_of_a_multi_trace_document_is_read_and_named(tmp_path, events_first):
    # picoquic's server and client traces of one download, merged into one document as a file of two
    # connections' vantage points; a key after the first events array exercises the streaming header reader.
    docs = [json.loads((FIXTURES / "picoquic-cubic" / f"{side}.qlog").read_text()) for side in ("server", "client")]
    server, client = (d["traces"][0] for d in docs)
    server = {**server, "trailing_note": {"after": ["events"]}}
    if events_first:
        client = {"events": client["events"], **{k: v for k, v in client.items() if k != "events"}}
    merged = tmp_path / "both.qlog"
    merged.write_text(json.dumps({**docs[0], "traces": [server, client]}, indent=1))
    if events_first:
        # A streaming reader meets the events before the event_fields that describe them: a clean error.
        with pytest.raises(QlogError, match=r"both\.qlog:\d+: event is not a JSON object or an event_fields"):
            read_qlog_traces(merged)
        return
    traces = read_qlog_traces(merged)
    assert [t.index for t in traces] == [0, 1]
    alone = [read_qlog(FIXTURES / "picoquic-cubic" / f"{side}.qlog") for side in ("server", "client")]
    assert _tables_equal(traces[1], alone[1]) and traces[1].vantage == "client"
    assert _tables_equal(traces[0], alone[0])
    assert _tables_equal(read_qlog(merged), alone[0])
    diagnoses = diagnose(merged)
    labels = [d.label for d in diagnoses]
    assert labels == ["both.qlog trace 0 (server)", "both.qlog trace 1 (client)"]
    assert {f.name for f in diagnoses[0].findings} == STATED["picoquic-cubic/server.qlog"]
