"""Result.to_pandas: the same rows as to_polars, ids as nullable integers (link rows have no flow)."""

from pathlib import Path

import cclab

ROOT = Path(__file__).resolve().parents[2]


def test_to_pandas_matches_to_polars():
    r = cclab.run(ROOT / "scenarios" / "bulk-newreno.toml", set=['flow[0].source.size="1MB"'])
    pdf, pl_df = r.to_pandas(), r.to_polars()
    assert len(pdf) == len(pl_df) and list(pdf.columns) == pl_df.columns
    assert str(pdf["flow"].dtype) == "UInt32"
    assert pdf["flow"].isna().sum() == pl_df["flow"].null_count()
    assert pdf["cwnd_bytes"].sum(skipna=True) == pl_df["cwnd_bytes"].sum()
