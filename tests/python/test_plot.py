"""`cclab plot`: figures with labelled axes from a run directory."""

import cclab
from cclab.plot import METRICS
from conftest import cclab_cli


def test_plot_writes_png_and_svg_with_labelled_axes(tiny, tmp_path):
    cclab.run(tiny, out=tmp_path, qlog=None)
    proc = cclab_cli("plot", tmp_path)
    assert proc.returncode == 0, proc.stderr
    plots = tmp_path / "plots"
    stems = [m.stem for m in METRICS] + ["overview"]
    assert sorted(p.name for p in plots.iterdir()) == sorted(f"{s}.{ext}" for s in stems for ext in ("png", "svg"))
    for stem in stems:
        assert (plots / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for metric in METRICS:
        svg = (plots / f"{metric.stem}.svg").read_text()
        assert metric.ylabel in svg and "time (s)" in svg


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
