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
