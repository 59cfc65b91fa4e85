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
