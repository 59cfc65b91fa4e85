"""The real-stack fixtures parse and give the findings their READMEs state."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cclab.doctor import diagnose
from cclab.traces.qlog import read_qlog

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
}


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
    # One 500 kB download: the server sent it, the client received it (1-RTT stream bytes).
    sent, received = trace.stream_bytes_sent, trace.stream_bytes_received
    assert (sent if name.endswith("server.qlog") else received) >= 500_000
    assert trace.is_data_sender == name.endswith("server.qlog")
    if trace.is_data_sender:
        m = trace.metrics
        assert len(m["time_s"]) > 10 and (m["cwnd_bytes"] > 0).any() and (m["srtt_s"] > 0).any()
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
