"""`cclab plot`: figures with labelled axes from a run directory."""

import itertools

import pytest

import cclab
from cclab.plot import METRICS, link_metrics
from conftest import cclab_cli, write_scenario


def test_plot_writes_png_and_svg_with_labelled_axes(tiny, tmp_path):
    cclab.run(tiny, out=tmp_path, qlog=None)
    proc = cclab_cli("plot", tmp_path)
    assert proc.returncode == 0, proc.stderr
    plots = tmp_path / "plots"
    columns = (tmp_path / "timeseries.csv").read_text().splitlines()[0].split(",")
    stems = [m.stem for m in METRICS] + [m.stem for m in link_metrics(columns)] + ["overview"]
    assert sorted(p.name for p in plots.iterdir()) == sorted(f"{s}.{ext}" for s in stems for ext in ("png", "svg"))
    for stem in stems:
        assert (plots / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for metric in METRICS:
        svg = (plots / f"{metric.stem}.svg").read_text()
        assert metric.ylabel in svg and "time (s)" in svg


def test_plot_report_and_doctor_read_a_run_directory_with_only_the_csv(tiny, tmp_path):
    """What `cclab-bench --scenario F --out DIR` writes (summary.json, timeseries.csv) plots as a full run does."""
    import shutil

    import numpy as np

    from cclab.api import read_timeseries
    from cclab.plot import plot_dir
    from cclab.report import write_report
    from cclab.traces.rundir import load

    full, bare = tmp_path / "full", tmp_path / "bare"
    cclab.run(tiny, out=full, qlog=None)
    bare.mkdir()
    for name in ("summary.json", "timeseries.csv"):
        shutil.copy(full / name, bare / name)
    # The CSV reads with the parquet's columns, dtypes (uint32 ids, float64, null for no value) and values.
    from_csv, from_parquet = read_timeseries(bare), read_timeseries(full)
    assert from_csv is not None and from_parquet is not None
    assert from_csv.schema == from_parquet.schema and from_csv.equals(from_parquet)
    proc = cclab_cli("plot", bare)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (bare / "plots").iterdir()) == sorted(p.name for p in plot_dir(full))
    assert "<h2>Time series</h2>" in write_report(bare).read_text()
    # The doctor's numpy reader: empty cells are NaN there, as the parquet's nulls are.
    for a, b in zip(load(bare), load(full), strict=True):
        assert a.ts.keys() == b.ts.keys()
        assert all(np.array_equal(a.ts[k], b.ts[k], equal_nan=True) for k in a.ts)
    shutil.rmtree(bare / "plots")
    (bare / "timeseries.csv").unlink()
    with pytest.raises(FileNotFoundError, match=r"no timeseries\.parquet or timeseries\.csv"):
        plot_dir(bare)


L4S = """\
[scenario]
name = "l4s"
description = "Prague and DCTCP (ECT(1)) in DualPI2's L queue."
duration = "3s"

[path.forward]
rate = "10Mbps"
delay = "10ms"
queue = { kind = "dualpi2" }

[path.return]
rate = "10Mbps"
delay = "10ms"

[[flow]]
source = { kind = "bulk", size = "10MB" }
cc = { algorithm = "prague" }

[[flow]]
source = { kind = "bulk", size = "10MB" }
cc = { algorithm = "dctcp", ect1 = true }
"""


def test_plot_draws_the_scalable_controllers_like_the_others(tmp_path):
    from cclab.plot import plot_dir

    path = write_scenario(tmp_path, L4S, "l4s.toml")
    result = cclab.run(path, out=tmp_path / "run", qlog=None)
    written = plot_dir(tmp_path / "run")
    assert {p.name for p in written} >= {"cwnd.svg", "srtt.svg", "overview.png"}
    svg = (tmp_path / "run" / "plots" / "cwnd.svg").read_text()
    assert all(f["name"] in svg for f in result.summary["flows"])
    # Each controller's window is cut by CE marks (no loss in the L queue), so its cwnd series falls.
    ts = result.timeseries
    for flow in (0, 1):
        cwnd = [c for f, c in zip(ts["flow"], ts["cwnd_bytes"], strict=True) if f == flow]
        assert any(b < a for a, b in itertools.pairwise(cwnd)), flow
    assert all(f["lost_packets"] == 0 and f["ecn_marks"] > 0 for f in result.summary["flows"])


def test_plot_draws_link_panels_only_for_the_link_columns_present(tmp_path):
    """Link rows (`link` set, `flow` null): queue and utilisation panels, no capacity (no such column)."""
    import polars as pl

    from cclab.plot import plot_frame

    t = [0.0, 0.1, 0.2]
    flows = pl.DataFrame(
        {"time_s": t, "flow": [0, 0, 0], "cwnd_bytes": [1e4, 2e4, 3e4], "bytes_acked": [0.0, 1e5, 3e5]}
    )
    links = pl.DataFrame(
        {"time_s": t, "link": ["path.forward"] * 3, "queue_bytes": [0.0, 5e3, 9e3], "utilisation": [0.2, 0.9, 1.0]}
    )
    df = pl.concat([flows.with_columns(pl.lit(None, pl.String).alias("link")), links], how="diagonal")
    summary = {
        "scenario": "s",
        "seed": 1,
        "flows": [{"flow": 0, "name": "bulk", "cc": "cubic", "ack_policy": "rfc9000"}],
    }
    stems = {p.stem for p in plot_frame(df, tmp_path, summary)}
    assert stems == {"cwnd", "throughput", "queue", "utilisation", "overview"}


def test_plot_of_many_flows_draws_the_first_and_the_spread_over_all(tmp_path):
    """25 flows: each panel has the first 10 flows' lines and the median and min–max band over all 25."""
    import polars as pl

    from cclab.many_flows import MANY_FLOWS, SHOWN_FLOWS
    from cclab.plot import plot_frame

    n = MANY_FLOWS + 5
    t = [0.0, 0.1, 0.2]
    # Flow k's cwnd is k·1000 B at every sample: the band spans 0..(n-1)·1000, the median (n-1)/2·1000.
    df = pl.DataFrame(
        {
            "time_s": [x for _ in range(n) for x in t],
            "flow": [k for k in range(n) for _ in t],
            "cwnd_bytes": [1000.0 * k for k in range(n) for _ in t],
        }
    )
    summary = {"scenario": "s", "seed": 1, "flows": [{"flow": k, "name": f"f{k}"} for k in range(n)]}
    plot_frame(df, tmp_path, summary)
    svg = (tmp_path / "cwnd.svg").read_text()
    assert f"median over all {n} flows" in svg and f"min–max over all {n} flows" in svg
    shown = [k for k in range(n) if f">f{k}<" in svg or f"f{k} " in svg]
    assert shown == list(range(SHOWN_FLOWS)), shown

    from matplotlib.figure import Figure

    from cclab.plot import METRICS, draw

    fig = Figure()
    ax = fig.add_subplot()
    draw(ax, df, METRICS[0], {})
    assert len(ax.lines) == SHOWN_FLOWS + 1
    assert list(ax.lines[-1].get_ydata()) == [(n - 1) / 2] * 3  # kB
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert band.min() == 0.0 and band.max() == (n - 1) * 1.0
