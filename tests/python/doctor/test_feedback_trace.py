"""feedback-collapse from the CCID-3 sender's own record of its nofeedback timer, in its qlog alone."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import cclab
from cclab.doctor import diagnose
from cclab.traces.qlog import read_qlog

from .conftest import SEEDS


@pytest.mark.parametrize(("file", "collapses"), [("seed-004-loopback.toml", True), ("seed-004-rtt-clamp.toml", False)])
def test_feedback_collapse_from_nofeedback_expiries_in_lone_sender_qlog(tmp_path, file, collapses):
    cclab.run(cclab.load(SEEDS / file, set=['scenario.duration="10s"']), out=tmp_path / "run", qlog="draft-02")
    (tmp_path / "alone").mkdir()
    trace = shutil.copy(tmp_path / "run" / "trace.sqlog", tmp_path / "alone" / "trace.sqlog")
    tr = read_qlog(trace)
    (d,) = diagnose(trace)
    assert d.inputs == ["sender qlog"]
    found = [f for f in d.findings if f.name == "feedback-collapse"]
    assert bool(found) is collapses
    if not collapses:
        return
    # Each recorded expiry is the RFC 5348 §4.4 cut: the allowed rate halves at that instant.
    t, x = tr.metrics["time_s"], tr.metrics["pacing_rate_bps"]
    cuts = [
        x[np.searchsorted(t, e, side="right") - 1] / x[np.searchsorted(t, e, side="left") - 1]
        for e in tr.nofeedback_expired_s[:5]
    ]
    assert all(0.4 <= c <= 0.6 for c in cuts), cuts
    rows = {q: v for q, v, _ in found[0].evidence}
    assert int(rows["nofeedback expiries in a row, no feedback between"].split()[0]) >= 3
    assert "µs" in rows["RTT estimate at the collapse"]
