"""`cclab scenarios`: the catalog lists every file with its description; every catalog scenario is valid."""

import pytest

from cclab.catalog import scan
from conftest import ROOT, TINY, cclab_cli, write_scenario


def test_listing_shows_descriptions_and_flags_invalid_files(tmp_path):
    (tmp_path / "sub").mkdir()
    write_scenario(tmp_path / "sub", TINY, "a.toml")
    write_scenario(tmp_path, TINY.replace("[path.forward]\n", "[path.forward]\nbogus = 1\n"), "broken.toml")
    entries = scan(tmp_path)
    assert [(e.path.name, e.valid) for e in entries] == [("broken.toml", False), ("a.toml", True)]
    assert entries[1].description == "One bulk flow over a 10 Mbps, 20 ms RTT path."
    proc = cclab_cli("scenarios", tmp_path)
    assert proc.returncode == 1
    assert "sub/a.toml" in proc.stdout and "One bulk flow over a 10 Mbps" in proc.stdout
    assert "invalid:" in proc.stdout and "bogus" in proc.stdout


def test_every_catalog_scenario_is_valid_and_described():
    entries = scan(ROOT / "scenarios")
    if not entries:
        pytest.skip("the catalog is empty")
    bad = [(str(e.path), e.description) for e in entries if not e.valid or not e.description]
    assert not bad


def test_every_catalog_scenario_runs_briefly_through_the_bindings():
    import tomllib

    import cclab

    entries = scan(ROOT / "scenarios")
    if not entries:
        pytest.skip("the catalog is empty")
    for e in entries:
        # A table with `count` stands for that many flows.
        flows = sum(f.get("count", 1) for f in tomllib.loads(e.path.read_text())["flow"])
        result = cclab.run(e.path, set=["scenario.duration=300ms"], qlog=None)
        assert len(result.summary["flows"]) == flows, e.path
        assert result.summary["sim"]["sim_time_s"] <= 0.3 + 1e-9, e.path
        assert len({len(v) for v in result.timeseries.values()}) == 1, e.path
