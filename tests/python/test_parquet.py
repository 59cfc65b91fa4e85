"""`cclab.parquet`: the import-free writer of ``timeseries.parquet`` gives the frame polars' own writer gives."""

from __future__ import annotations

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import cclab
from cclab import api, parquet
from conftest import write_scenario


def _polars_parquet(csv, path):
    api._typed(pl.scan_csv(csv, schema=api._csv_schema(csv))).sink_parquet(path)


@pytest.fixture(scope="module")
def run_csv(tmp_path_factory):
    out = tmp_path_factory.mktemp("parquet")
    cclab.run(write_scenario(out), out=out / "run")
    return out / "run" / "timeseries.csv"


def test_small_series_parquet_matches_polars(run_csv, tmp_path):
    ours = pl.read_parquet(run_csv.parent / "timeseries.parquet")
    _polars_parquet(run_csv, tmp_path / "polars.parquet")
    assert_frame_equal(ours, pl.read_parquet(tmp_path / "polars.parquet"))
    assert ours["flow"].dtype == pl.UInt32 and ours["srtt_s"].null_count() > 0
    assert ours["link"].null_count() > 0 and ours["flow"].null_count() > 0


def test_row_groups_nan_and_empty_series(run_csv, tmp_path, monkeypatch):
    # Several row groups, a NaN cell (null, as polars reads it after `_typed`), and a header-only file.
    monkeypatch.setattr(parquet, "ROWS_PER_GROUP", 7)
    lines = run_csv.read_text().splitlines()
    lines[3] = lines[3].rsplit(",", 1)[0] + ",NaN"
    for name, text in (("nan.csv", lines), ("empty.csv", lines[:1])):
        csv = tmp_path / name
        csv.write_text("\n".join(text) + "\n")
        parquet.csv_to_parquet(csv, tmp_path / "ours.parquet", api.ID_COLUMNS)
        _polars_parquet(csv, tmp_path / "polars.parquet")
        ours = pl.read_parquet(tmp_path / "ours.parquet")
        assert_frame_equal(ours, pl.read_parquet(tmp_path / "polars.parquet"))
        assert ours.height == len(text) - 1


def test_large_series_still_go_through_polars(run_csv, tmp_path, monkeypatch):
    # Above SMALL_CSV_BYTES the polars path writes the file; both paths give one frame.
    monkeypatch.setattr(api, "SMALL_CSV_BYTES", 0)
    cclab.run(write_scenario(tmp_path), out=tmp_path / "big")
    big = pl.read_parquet(tmp_path / "big" / "timeseries.parquet")
    assert_frame_equal(big, pl.read_parquet(run_csv.parent / "timeseries.parquet"))
    assert b"cclab" not in (tmp_path / "big" / "timeseries.parquet").read_bytes()[-200:]
    assert b"cclab" in (run_csv.parent / "timeseries.parquet").read_bytes()[-200:]


def test_a_short_row_is_an_error_naming_the_file(tmp_path):
    csv = tmp_path / "bad.csv"
    csv.write_text("time_s,flow\n0.0\n")
    with pytest.raises(ValueError, match=r"bad\.csv:2: 1 cells"):
        parquet.csv_to_parquet(csv, tmp_path / "bad.parquet", api.ID_COLUMNS)
