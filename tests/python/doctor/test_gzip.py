"""gzip-compressed traces (``[output] qlog_compression = "gzip"``): the qlog reader and the doctor read them as
they read the plain ones."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest

import cclab
from cclab.doctor import diagnose
from cclab.traces.qlog import QlogError, iter_events, read_qlog
from cclab.traces.rundir import load

#: seed 001's per-tick CUBIC: a traced run in which the doctor finds a pathology from the trace.
SCENARIO = Path(__file__).resolve().parents[3] / "scenarios" / "seeds" / "seed-001-cubic-ticks.toml"
SHORT = 'scenario.duration="0.15s"'


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("gzip")
    cclab.run(SCENARIO, set=[SHORT], out=out / "plain", qlog=True)
    cclab.run(SCENARIO, set=[SHORT, 'output.qlog_compression="gzip"'], out=out / "gz", qlog=True)
    return out / "plain", out / "gz"


def test_gzip_traces_hold_the_plain_bytes(runs):
    plain, gz = runs
    for name in ("trace.sqlog", "trace-receiver.sqlog"):
        assert not (gz / name).exists()
        assert gzip.decompress((gz / f"{name}.gz").read_bytes()) == (plain / name).read_bytes()


def test_qlog_reader_gives_the_same_tables_from_gzip(runs):
    plain, gz = runs
    a, b = read_qlog(plain / "trace.sqlog"), read_qlog(gz / "trace.sqlog.gz")
    assert a.event_counts == b.event_counts and sum(a.event_counts.values()) > 100
    for table in ("sent", "received", "metrics", "lost"):
        for col, values in getattr(a, table).items():
            np.testing.assert_array_equal(values, getattr(b, table)[col])


def test_doctor_reads_a_gzip_run_as_the_plain_one(runs):
    plain, gz = runs
    (view,) = load(gz)
    assert view.sender is not None and view.receiver is not None
    (p,), (g,) = diagnose(plain), diagnose(gz)
    assert [f.name for f in g.findings] == [f.name for f in p.findings] != []
    assert [f.evidence for f in g.findings] == [f.evidence for f in p.findings]


def test_truncated_gzip_is_a_clean_qlog_error(runs, tmp_path):
    _, gz = runs
    cut = tmp_path / "cut.sqlog.gz"
    data = (gz / "trace.sqlog.gz").read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(QlogError, match=r"cut\.sqlog\.gz"):
        for _ in iter_events(cut):
            pass
