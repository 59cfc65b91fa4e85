"""`cclab run` and `cclab.run`: output files, summary fields, time-series shape, determinism."""

import json

import numpy as np
import polars as pl
import pytest

import cclab
from conftest import TINY, assert_clean_error, cclab_cli, write_scenario

FLOW_FIELDS = {
    "flow",
    "goodput_bps",
    "completion_time_s",
    "bytes_delivered",
    "data_packets_sent",
    "retransmitted_packets",
    "lost_packets",
    "acks_sent",
    "ack_bytes",
    "ack_interval_mean_s",
    "ack_interval_p50_s",
    "ack_interval_p99_s",
    "min_rtt_s",
    "srtt_s",
    "cwnd_max_bytes",
    "loss_rate",
    "protocol_violations",
}
LINK_FIELDS = {"name", "direction", "utilisation", "drops", "bytes", "packets", "ecn_marks"}
SIM_FIELDS = {"events", "wall_s", "events_per_s", "sim_time_s"}
COLUMNS = [
    "time_s",
    "flow",
    "cwnd_bytes",
    "bytes_in_flight",
    "srtt_s",
    "min_rtt_s",
    "pacing_rate_bps",
    "delivery_rate_bps",
    "bytes_sent",
    "bytes_acked",
]


def test_cli_run_writes_every_output_and_a_summary_table(tiny, tmp_path):
    out = tmp_path / "out"
    proc = cclab_cli("run", tiny, "--out", out, "--seed", "3")
    assert proc.returncode == 0, proc.stderr
    names = {p.name for p in out.iterdir()}
    assert names == {"summary.json", "timeseries.csv", "timeseries.parquet", "trace.sqlog", "trace-receiver.sqlog"}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 3
    for header in ("goodput", "completion", "loss", "ACK interval", "srtt", "cwnd max", "utilisation", "drops"):
        assert header in proc.stdout
    first = (out / "trace.sqlog").read_text().split("\n")[0].lstrip("\x1e")
    assert json.loads(first)["qlog_version"] == "0.3"


def test_cli_run_qlog_flags(tiny, tmp_path):
    assert cclab_cli("run", tiny, "--out", tmp_path / "a", "--no-qlog").returncode == 0
    assert not list((tmp_path / "a").glob("*.sqlog"))
    # --no-qlog wins over the scenario's own `[output] qlog = true`.
    with_qlog = write_scenario(tmp_path, TINY + "\n[output]\nqlog = true\n", "q.toml")
    assert cclab_cli("run", with_qlog, "--out", tmp_path / "b", "--no-qlog").returncode == 0
    assert not list((tmp_path / "b").glob("*.sqlog"))
    assert cclab_cli("run", tiny, "--out", tmp_path / "c", "--qlog-format", "ietf").returncode == 0
    first = json.loads((tmp_path / "c" / "trace.sqlog").read_text().split("\n")[0].lstrip("\x1e"))
    assert first["file_schema"] == "urn:ietf:params:qlog:file:sequential"


def test_summary_has_every_field_and_consistent_values(tiny):
    s = cclab.run(tiny, qlog=None).summary
    assert {"scenario", "seed", "sim", "flows", "links"} <= s.keys()
    assert s["scenario"] == "tiny" and s["seed"] == 1
    assert set(s["sim"]) == SIM_FIELDS
    (flow,) = s["flows"]
    assert FLOW_FIELDS <= flow.keys()
    assert {link["direction"] for link in s["links"]} == {"forward", "reverse"}
    for link in s["links"]:
        assert LINK_FIELDS <= link.keys()
        assert 0.0 <= link["utilisation"] <= 1.0
    # The whole 1 MB arrives; goodput is its bits over the completion time.
    assert flow["bytes_delivered"] == 1_000_000
    assert flow["goodput_bps"] == pytest.approx(8e6 / flow["completion_time_s"], rel=1e-9)
    # It cannot beat the 10 Mbps bottleneck, and the RTT cannot be below the 20 ms of propagation.
    assert flow["goodput_bps"] < 10e6
    assert flow["min_rtt_s"] >= 0.020
    assert flow["loss_rate"] == flow["lost_packets"] / flow["data_packets_sent"]
    # Correct endpoints never refuse each other's datagrams.
    assert flow["protocol_violations"] == 0


def test_timeseries_columns_have_equal_lengths_and_regular_time(tiny):
    ts = cclab.run(tiny, qlog=None, timeseries_interval="5ms").timeseries
    assert list(ts) == COLUMNS
    lengths = {len(v) for v in ts.values()}
    assert len(lengths) == 1 and lengths.pop() > 10
    assert all(v.dtype == np.float64 for v in ts.values())
    t = ts["time_s"]
    assert np.all(np.diff(t) >= 0)
    assert t[0] == 0.0
    # One flow: one row per 5 ms sampling round.
    assert np.allclose(np.diff(t), 0.005, rtol=0, atol=1e-12)
    assert np.all(np.diff(ts["bytes_acked"]) >= 0)


def test_parquet_and_csv_hold_the_same_series(tiny, tmp_path):
    result = cclab.run(tiny, out=tmp_path, qlog=None)
    parquet = pl.read_parquet(tmp_path / "timeseries.parquet")
    csv = pl.read_csv(tmp_path / "timeseries.csv")
    assert parquet.columns == COLUMNS == csv.columns
    for name, values in result.timeseries.items():
        assert np.array_equal(parquet[name].to_numpy().astype(np.float64), values)
        assert np.array_equal(csv[name].to_numpy().astype(np.float64), values)
    assert result.to_polars()["flow"].dtype == pl.UInt32


def test_same_seed_same_run_other_seed_accepted(tiny):
    a, b = cclab.run(tiny, seed=9, qlog=None), cclab.run(tiny, seed=9, qlog=None)
    strip = lambda s: {k: v for k, v in s.items() if k != "sim"}  # noqa: E731 - wall-clock fields differ
    assert strip(a.summary) == strip(b.summary)
    for name in COLUMNS:
        assert np.array_equal(a.timeseries[name], b.timeseries[name])
    assert cclab.run(tiny, seed=10, qlog=None).summary["seed"] == 10


def test_run_takes_overrides_only_with_a_path(tiny):
    assert cclab.run(tiny, set=["scenario.name=renamed"], qlog=None).summary["scenario"] == "renamed"
    with pytest.raises(ValueError, match="set="):
        cclab.run(cclab.load(tiny), set=["scenario.name=x"])
    with pytest.raises(ValueError, match="qlog"):
        cclab.run(tiny, qlog="draft-99")  # type: ignore[arg-type]


def test_cli_run_of_a_bad_scenario_exits_2(tmp_path):
    path = write_scenario(tmp_path, TINY.replace('"5s"', '"5 fortnights"'), "bad.toml")
    assert_clean_error(cclab_cli("run", path, "--out", tmp_path / "o"), 2, f"{path}: scenario.duration: ")
