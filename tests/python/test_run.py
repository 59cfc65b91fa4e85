"""`cclab run` and `cclab.run`: output files, summary fields, time-series shape, determinism."""

import json

import numpy as np
import polars as pl
import pytest

import cclab
from conftest import TINY, assert_clean_error, cclab_cli, write_scenario

FLOW_FIELDS = {
    "flow",
    "name",
    "cc",
    "ack_policy",
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
SIM_FIELDS = {"events", "wall_s", "cpu_s", "events_per_s", "sim_time_s"}
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
    "goodput_bps",
    "link",
    "queue_bytes",
    "queue_packets",
    "sojourn_s",
    "drops",
    "ecn_marks",
    "utilisation",
]


RUN_FILES = {"summary.json", "timeseries.csv", "timeseries.parquet", "scenario.resolved.toml", "run.json"}
QLOG_FILES = {"trace.sqlog", "trace-receiver.sqlog"}


def test_cli_run_writes_every_output_and_a_summary_table(tiny, tmp_path):
    out = tmp_path / "out"
    proc = cclab_cli("run", tiny, "--out", out, "--seed", "3", "--qlog")
    assert proc.returncode == 0, proc.stderr
    names = {p.name for p in out.iterdir()}
    assert names == RUN_FILES | QLOG_FILES
    summary = json.loads((out / "summary.json").read_text())
    assert summary["seed"] == 3
    for header in ("goodput", "completion", "loss", "ACK interval", "srtt", "cwnd max", "utilisation", "drops"):
        assert header in proc.stdout
    first = (out / "trace.sqlog").read_text().split("\n")[0].lstrip("\x1e")
    assert json.loads(first)["qlog_version"] == "0.3"


def test_qlog_rule_is_the_same_for_the_scenario_the_cli_and_python(tiny, tmp_path):
    """One rule (docs/scenarios.md): traces only when asked for; the caller's choice wins over the scenario's."""
    with_qlog = write_scenario(tmp_path, TINY + "\n[output]\nqlog = true\n", "q.toml")
    without = write_scenario(tmp_path, TINY + "\n[output]\nqlog = false\n", "nq.toml")
    sqlogs = lambda d: {p.name for p in d.glob("*.sqlog")}  # noqa: E731
    # Nobody asks: none, from the CLI and from Python.
    assert cclab_cli("run", tiny, "--out", tmp_path / "cli-default").returncode == 0
    assert sqlogs(tmp_path / "cli-default") == set()
    cclab.run(tiny, out=tmp_path / "py-default")
    assert sqlogs(tmp_path / "py-default") == set()
    # The scenario asks (and `qlog = false` is honoured, not ignored).
    assert cclab_cli("run", with_qlog, "--out", tmp_path / "cli-scenario").returncode == 0
    assert sqlogs(tmp_path / "cli-scenario") == QLOG_FILES
    cclab.run(with_qlog, out=tmp_path / "py-scenario")
    assert sqlogs(tmp_path / "py-scenario") == QLOG_FILES
    cclab.run(without, out=tmp_path / "py-off")
    assert sqlogs(tmp_path / "py-off") == set()
    # The caller asks, or refuses.
    assert cclab_cli("run", without, "--out", tmp_path / "cli-on", "--qlog").returncode == 0
    assert sqlogs(tmp_path / "cli-on") == QLOG_FILES
    cclab.run(without, out=tmp_path / "py-on", qlog=True)
    assert sqlogs(tmp_path / "py-on") == QLOG_FILES
    cclab.run(with_qlog, out=tmp_path / "py-refused", qlog=False)
    assert sqlogs(tmp_path / "py-refused") == set()
    # --help shows plain flags, not a boolean value.
    line = next(x for x in cclab_cli("run", "--help").stdout.splitlines() if "--no-qlog" in x)
    assert "--qlog" in line and "<bool>" not in line and "BOOLEAN" not in line


def test_qlog_format_0_3_is_accepted_as_docs_outputs_names_it(tiny, tmp_path):
    assert cclab_cli("run", tiny, "--out", tmp_path / "a", "--qlog", "--qlog-format", "0.3").returncode == 0
    first = json.loads((tmp_path / "a" / "trace.sqlog").read_text().split("\n")[0].lstrip("\x1e"))
    assert first["qlog_version"] == "0.3"
    cclab.run(tiny, out=tmp_path / "b", qlog="0.3")
    assert (tmp_path / "b" / "trace.sqlog").is_file()


def test_a_run_removes_what_an_earlier_run_left_and_lists_only_its_files(tiny, tmp_path):
    out = tmp_path / "out"
    assert cclab_cli("run", tiny, "--out", out, "--qlog").returncode == 0
    (out / "notes.txt").write_text("mine")  # not an output name: stays
    proc = cclab_cli("run", tiny, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert {p.name for p in out.iterdir()} == RUN_FILES | {"notes.txt"}
    assert "trace.sqlog" not in proc.stdout and "notes.txt" not in proc.stdout


def test_run_dir_holds_the_resolved_scenario_seed_overrides_hash_and_version(tiny, tmp_path):
    named = write_scenario(tmp_path, TINY.replace("[[flow]]\n", '[[flow]]\nname = "bulk"\n'), "named.toml")
    result = cclab.run(named, set=["path.forward.delay=15ms"], seed=9, out=tmp_path / "o")
    record = json.loads((tmp_path / "o" / "run.json").read_text())
    assert record["seed"] == 9 and record["overrides"] == ["path.forward.delay=15ms"]
    assert record["cclab_version"] == cclab.__version__
    assert record["flows"] == [{"flow": 0, "name": "bulk", "cc": "cubic", "ack_policy": "rfc9000"}]
    resolved = (tmp_path / "o" / "scenario.resolved.toml").read_text()
    assert 'delay = "15ms"' in resolved
    # The resolved file is the same scenario without overrides: same hash, same results.
    again = cclab.run(tmp_path / "o" / "scenario.resolved.toml", seed=9)
    assert cclab.load(tmp_path / "o" / "scenario.resolved.toml").hash == record["scenario_hash"]
    assert again.summary["flows"] == result.summary["flows"]
    other = cclab.run(named, seed=9, out=tmp_path / "p")
    assert json.loads((tmp_path / "p" / "run.json").read_text())["run_hash"] != record["run_hash"]
    assert other.summary["flows"][0]["name"] == "bulk"


def test_cli_run_qlog_flags(tiny, tmp_path):
    assert cclab_cli("run", tiny, "--out", tmp_path / "a", "--no-qlog").returncode == 0
    assert not list((tmp_path / "a").glob("*.sqlog"))
    # --no-qlog wins over the scenario's own `[output] qlog = true`.
    with_qlog = write_scenario(tmp_path, TINY + "\n[output]\nqlog = true\n", "q.toml")
    assert cclab_cli("run", with_qlog, "--out", tmp_path / "b", "--no-qlog").returncode == 0
    assert not list((tmp_path / "b").glob("*.sqlog"))
    assert cclab_cli("run", tiny, "--out", tmp_path / "c", "--qlog", "--qlog-format", "ietf").returncode == 0
    first = json.loads((tmp_path / "c" / "trace.sqlog").read_text().split("\n")[0].lstrip("\x1e"))
    assert first["file_schema"] == "urn:ietf:params:qlog:file:sequential"
    # The scenario asks: --qlog-format picks the format, 0.3 by default.
    for fmt, out in (("ietf", "d"), ("0.3", "e"), (None, "f")):
        extra = ["--qlog-format", fmt] if fmt else []
        assert cclab_cli("run", with_qlog, "--out", tmp_path / out, *extra).returncode == 0
        first = json.loads((tmp_path / out / "trace.sqlog").read_text().split("\n")[0].lstrip("\x1e"))
        assert first.get("qlog_version") == (None if fmt == "ietf" else "0.3"), first
        assert (first.get("file_schema") == "urn:ietf:params:qlog:file:sequential") == (fmt == "ietf"), first


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
    assert np.all(np.diff(ts["time_s"]) >= 0)
    flow = ~np.isnan(ts["flow"])
    # Each round has the flow's row and one per link (two): exactly one id per row.
    assert np.array_equal(flow, np.isnan(ts["link"])) and np.count_nonzero(~flow) == 2 * np.count_nonzero(flow)
    t = ts["time_s"][flow]
    assert t[0] == 0.0
    # One flow: one row per 5 ms sampling round.
    assert np.allclose(np.diff(t), 0.005, rtol=0, atol=1e-12)
    assert np.all(np.diff(ts["bytes_acked"][flow]) >= 0)
    # No RTT or pacing value before the first RTT sample (issue #15 defect 3), then RTTs from the path.
    srtt = ts["srtt_s"][flow]
    assert np.isnan(srtt[0]) and np.nanmin(srtt) >= 0.020


def test_parquet_and_csv_hold_the_same_series(tiny, tmp_path):
    result = cclab.run(tiny, out=tmp_path, qlog=None)
    parquet = pl.read_parquet(tmp_path / "timeseries.parquet")
    csv = pl.read_csv(tmp_path / "timeseries.csv")
    assert parquet.columns == COLUMNS == csv.columns
    for name, values in result.timeseries.items():
        # No value is null in parquet and an empty cell in the CSV (NaN in numpy).
        assert np.array_equal(parquet[name].cast(pl.Float64).fill_null(np.nan).to_numpy(), values, equal_nan=True)
        assert np.array_equal(csv[name].cast(pl.Float64).fill_null(np.nan).to_numpy(), values, equal_nan=True)
    assert parquet["srtt_s"].null_count() > 0 and parquet["srtt_s"].is_nan().sum() == 0
    assert result.to_polars()["flow"].dtype == pl.UInt32


def test_same_seed_same_run_other_seed_accepted(tiny):
    a, b = cclab.run(tiny, seed=9, qlog=None), cclab.run(tiny, seed=9, qlog=None)
    strip = lambda s: {k: v for k, v in s.items() if k != "sim"}  # noqa: E731 - wall-clock fields differ
    assert strip(a.summary) == strip(b.summary)
    for name in COLUMNS:
        assert np.array_equal(a.timeseries[name], b.timeseries[name], equal_nan=True)
    assert cclab.run(tiny, seed=10, qlog=None).summary["seed"] == 10
    assert cclab.run(tiny, seed=2**64 - 1, qlog=None).summary["seed"] == 2**64 - 1
    for bad in (2**64, -1):
        with pytest.raises(ValueError, match="seed"):
            cclab.run(tiny, seed=bad)


def test_run_takes_overrides_only_with_a_path(tiny):
    assert cclab.run(tiny, set=["scenario.name=renamed"], qlog=None).summary["scenario"] == "renamed"
    with pytest.raises(ValueError, match="set="):
        cclab.run(cclab.load(tiny), set=["scenario.name=x"])
    with pytest.raises(ValueError, match="qlog"):
        cclab.run(tiny, qlog="draft-99")  # type: ignore[arg-type]


def test_cli_run_of_a_bad_scenario_exits_2(tmp_path):
    path = write_scenario(tmp_path, TINY.replace('"5s"', '"5 fortnights"'), "bad.toml")
    assert_clean_error(cclab_cli("run", path, "--out", tmp_path / "o"), 2, f"{path}: scenario.duration: ")
