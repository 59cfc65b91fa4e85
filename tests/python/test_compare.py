"""`cclab compare`: side-by-side table, differences and overlaid figures for runs of any mode and sweeps."""

import json
import shutil

import cclab
from cclab import compare, sweep
from conftest import cclab_cli


def test_compare_runs_of_two_controllers_and_a_real_run_with_missing_fields(tiny, tmp_path):
    cclab.run(tiny, out=tmp_path / "cubic", qlog=True)
    cclab.run(tiny, set=["flow[0].cc.algorithm=newreno"], out=tmp_path / "newreno", qlog=True)
    # A real-mode run writes the same summary schema plus "mode"; this one lacks srtt and has no time series.
    real = tmp_path / "real"
    real.mkdir()
    summary = json.loads((tmp_path / "cubic" / "summary.json").read_text())
    summary["mode"] = "real"
    del summary["flows"][0]["srtt_s"]
    (real / "summary.json").write_text(json.dumps(summary))
    proc = cclab_cli("compare", tmp_path / "cubic", tmp_path / "newreno", real, "--out", tmp_path / "cmp")
    assert proc.returncode == 0, proc.stderr
    for label in ("cubic [sim]", "newreno [sim]", "real [real]", "Difference"):
        assert label in proc.stdout, proc.stdout
    assert "—" in proc.stdout  # the real run's cwnd and srtt columns
    written = sorted(p.name for p in (tmp_path / "cmp").iterdir())
    assert written == sorted(
        f"compare-{s}.{e}" for s in ("cwnd", "srtt", "goodput", "ack_interval") for e in ("png", "svg")
    )

    entries = compare.load_entries([tmp_path / "cubic", tmp_path / "newreno", real])
    rows = compare.rows(entries)
    # Same summary, so the real run's goodput equals the cubic run's: 0 % difference.
    diffs = compare.differences(rows)
    assert diffs[1]["goodput"] == 0.0 and diffs[1]["cwnd mean"] is None
    cubic, newreno = rows[0], rows[1]
    assert cubic["cwnd mean"][0] > 0 and cubic["cwnd p99"][0] >= cubic["cwnd mean"][0]
    assert newreno["cwnd mean"][0] > 1.2 * cubic["cwnd mean"][0]  # NewReno's window grows past CUBIC's here


def test_compare_a_sweep_gives_intervals_across_seeds(tiny, tmp_path):
    specs = sweep.grid(tiny, {"path.forward.rate": ["5Mbps", "20Mbps"]}, seeds=[1, 2, 3])
    rows = sweep.run_all(specs, workers=1, store=tmp_path / "sw")
    sweep.write_parquet(rows, tmp_path / "sw" / "sweep.parquet", ["path.forward.rate"])
    entries = compare.load_entries([tmp_path / "sw"])
    assert [e.label for e in entries] == [
        "sw [sweep: path.forward.rate=5Mbps, 3 seeds]",
        "sw [sweep: path.forward.rate=20Mbps, 3 seeds]",
    ]
    table = compare.rows(entries)
    mean, half, n = table[0]["goodput"]
    assert n == 3 and half is not None and mean < 5e6
    shutil.rmtree(tmp_path / "sw" / "runs")  # without the store only sweep.parquet remains: no rows, no crash
    assert compare.rows(compare.load_entries([tmp_path / "sw"])) == []


def test_compare_of_many_flows_shows_the_first_and_the_median_over_all(many_flows, tmp_path):
    """25 flows: rows for the first 10 and one for the median over all 25; each figure one line per run."""
    import statistics

    from cclab.many_flows import SHOWN_FLOWS

    path = many_flows("1GB")
    a = cclab.run(path, out=tmp_path / "a", qlog=None)
    cclab.run(path, set=["scenario.seed=2"], out=tmp_path / "b", qlog=None)
    rows = compare.rows(compare.load_entries([tmp_path / "a", tmp_path / "b"]))
    assert len(rows) == 2 * (SHOWN_FLOWS + 1)
    median = rows[SHOWN_FLOWS]
    assert median["flow"] == "median of 25 flows"
    goodputs = [f["goodput_bps"] for f in a.summary["flows"]]
    assert median["goodput"][0] == statistics.median(goodputs) and len(set(goodputs)) > 1
    # The first flow's cwnd mean is its own time-series mean (flow rows are read in one pass now).
    ts = a.timeseries
    cwnd0 = [c for f, c in zip(ts["flow"], ts["cwnd_bytes"], strict=True) if f == 0 and c is not None]
    assert abs(rows[0]["cwnd mean"][0] - sum(cwnd0) / len(cwnd0)) < 1e-6 * rows[0]["cwnd mean"][0]
    written = compare.plot(compare.load_entries([tmp_path / "a", tmp_path / "b"]), tmp_path / "cmp")
    svg = next(p for p in written if p.name == "compare-cwnd.svg").read_text()
    assert svg.count("median of 25 flows") == 2 and "flow 3" not in svg


def test_compare_refuses_a_cut_series_or_a_summary_that_is_not_a_run(tiny, tmp_path):
    # Before: a time series cut after a few rows compared as a cwnd 96 % below the full run's, and a summary.json
    # of `{}` dropped its run from the table; both with exit code 0.
    cclab.run(tiny, out=tmp_path / "full")
    cut = tmp_path / "cut"
    shutil.copytree(tmp_path / "full", cut)
    (cut / "timeseries.parquet").unlink()
    text = (cut / "timeseries.csv").read_text()
    (cut / "timeseries.csv").write_text(text[:500])
    proc = cclab_cli("compare", tmp_path / "full", cut, "--out", tmp_path / "cmp")
    assert proc.returncode == 2 and "its time series ends at" in proc.stderr and "cut short" in proc.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "summary.json").write_text("{}")
    proc = cclab_cli("compare", tmp_path / "full", empty, "--out", tmp_path / "cmp")
    assert proc.returncode == 2 and "summary.json: not a run's summary" in proc.stderr
    (empty / "summary.json").write_text('{"scenario": "x", "flo')
    proc = cclab_cli("compare", tmp_path / "full", empty, "--out", tmp_path / "cmp")
    assert proc.returncode == 2 and "summary.json: not JSON" in proc.stderr
    # The full run against itself still compares.
    assert len(compare.load_entries([tmp_path / "full", tmp_path / "full"])) == 2
