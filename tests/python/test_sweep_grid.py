"""Sweep specification without simulation: parsing, grid order, table typing."""

import tomllib
from pathlib import Path

import pytest

from cclab import _core, sweep


def test_param_parses_key_and_values():
    assert sweep.parse_param("links.bottleneck.rate = 10Mbps, 50Mbps") == (
        "links.bottleneck.rate",
        ["10Mbps", "50Mbps"],
    )
    for bad in ("novalue", "=1,2", "k=", "k=1,,2"):
        with pytest.raises(sweep.SweepError):
            sweep.parse_param(bad)


def test_grid_is_the_cartesian_product_with_seeds_fastest(tmp_path):
    path = tmp_path / "s.toml"
    specs = sweep.grid(path, {"a": ["1", "2", "3"], "b.c": ["x", "y"]}, seeds=[7, 8], overrides=["z=0"])
    assert len(specs) == 3 * 2 * 2
    assert [s.index for s in specs] == list(range(12))
    assert [s.seed for s in specs[:4]] == [7, 8, 7, 8]
    assert specs[0].overrides == ("z=0", "a=1", "b.c=x")
    assert specs[2].params == (("a", "1"), ("b.c", "y"))
    assert specs[-1].params == (("a", "3"), ("b.c", "y"))
    assert specs[0].scenario == str(path.resolve())


def test_table_types_numeric_params_and_keeps_unit_strings():
    rows = [
        {"run": 0, "n": "1", "x": "0.5", "rate": "10Mbps", "seed": 1},
        {"run": 1, "n": "20", "x": "2", "rate": "50Mbps", "seed": 1},
    ]
    df = sweep.to_polars(rows, ["n", "x", "rate"])
    assert df["n"].to_list() == [1, 20]
    assert df["x"].to_list() == [0.5, 2.0]
    assert df["rate"].to_list() == ["10Mbps", "50Mbps"]


def test_dask_backend_without_dask_gives_the_pinned_install_command(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name.startswith("dask"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    from cclab import sweep_store

    with pytest.raises(sweep.SweepError) as err:
        sweep_store._run_dask([], "tcp://127.0.0.1:1", None, None, lambda row: None)
    assert "cclab[dask]" not in str(err.value)
    # The hint installs exactly the version pyproject.toml pins for the dev environment.
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    pin = next(d for d in project["optional-dependencies"]["dev"] if d.startswith("dask"))
    assert f"pip install '{pin}'" in str(err.value)


def test_summary_flattens_to_stable_dotted_keys():
    from cclab.api import flatten

    summary = {
        "seed": 3,
        "sim": {"events": 10},
        "flows": [{"flow": 0, "goodput_bps": 1.0}, {"flow": 2, "goodput_bps": 2.0}],
        "links": [{"name": "bn", "direction": "forward", "drops": 4}],
    }
    flat = flatten(summary)
    assert flat["sim.events"] == 10
    assert flat["flows.2.goodput_bps"] == 2.0
    assert flat["links.bn.forward.drops"] == 4
    assert "flows" not in flat


def test_grid_past_the_run_bound_is_refused_before_planning(tmp_path):
    # 1,000 by 1,000 values by 1,000 seeds used to loop until memory ran out; now an error naming the shape.
    values = [str(i) for i in range(1000)]
    with pytest.raises(sweep.SweepError, match=r"1000 \(a\) × 1000 \(b\) × 1000 seeds = 1,000,000,000 runs"):
        sweep.grid(tmp_path / "s.toml", {"a": values, "b": values}, seeds=list(range(1000)))


def test_grid_at_the_run_bound_is_planned(tmp_path, monkeypatch):
    monkeypatch.setattr(sweep, "MAX_RUNS", 6)
    assert len(sweep.grid(tmp_path / "s.toml", {"a": ["1", "2", "3"]}, seeds=[1, 2])) == 6
    with pytest.raises(sweep.SweepError, match="= 9 runs, more than 6"):
        sweep.grid(tmp_path / "s.toml", {"a": ["1", "2", "3"]}, seeds=[1, 2, 3])


def test_sweep_file_seed_count_past_the_bound_names_the_key(tmp_path):
    (tmp_path / "w.toml").write_text('scenario = "s.toml"\nseeds = 100000000000\n')
    with pytest.raises(sweep.SweepError, match=r"w.toml: seeds: expected a count 1 ≤ N ≤ 1,000,000"):
        sweep.load_sweep_file(tmp_path / "w.toml")


def test_sweep_file_over_the_scenario_size_limit_is_refused_unparsed(tmp_path):
    # The file's tail is not TOML: only a refusal before parsing gives the size error.
    limit = _core.MAX_SCENARIO_BYTES
    path = tmp_path / "w.toml"
    path.write_text('scenario = "s.toml"\n' + "x" * limit)
    with pytest.raises(sweep.SweepError, match=rf"w.toml: {limit + 20} bytes, over the limit of {limit} bytes"):
        sweep.load_sweep_file(path)
    assert not sweep.is_sweep_file(path)  # so cclab sweep loads it as a scenario, which reports the size
