"""Parameter sweeps: the cartesian product of overrides × seeds, from flags or a sweep file.

One row per run: ``run`` (index in the grid), one column per swept key (the values as given), for keys whose
values carry a unit also ``<key>_s``, ``<key>_bps`` or ``<key>_bytes`` with the numbers, ``seed``, ``status``
(``ok`` or ``failed``), ``error``, ``run_hash`` and the summary's scalars flattened with `flatten`
(``flows.0.goodput_bps``, ``links.path.forward.forward.drops``, ...). Rows come back in grid order whatever the
order of completion. Running and the results store are in `cclab.sweep_store`.

Example::

    from cclab import sweep

    specs = sweep.grid("s.toml", {"path.forward.rate": ["10Mbps", "50Mbps"]}, seeds=[1, 2])
    rows = sweep.run_all(specs, workers=2, store="out/sweep")
    sweep.write_parquet(rows, "out/sweep/sweep.parquet", ["path.forward.rate"])
"""

from __future__ import annotations

import itertools
import math
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cclab import _core
from cclab.api import load, run_key
from cclab.errors import SweepError

if TYPE_CHECKING:
    import polars as pl

#: File a sweep's table is written to.
SWEEP_PARQUET = "sweep.parquet"

#: The command that installs Dask as pinned in pyproject.toml. Not ``cclab[dask]``: cclab is installed from
#: this source tree, and the PyPI project of that name is someone else's.
DASK_INSTALL = "pip install 'dask[distributed]==2026.8.0'"


#: Most runs one sweep may plan. Planning a grid holds every run's spec in memory (a million take ~4 s and
#: ~0.4 GB); a grid of 1,000 by 1,000 values by 1,000 seeds used to hang in that loop until memory ran out.
MAX_RUNS = 1_000_000


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: picklable, so it can travel to a worker process or a Dask worker."""

    index: int
    """Position in the grid."""
    scenario: str
    """Absolute path of the scenario file (workers must see the same file system)."""
    overrides: tuple[str, ...]
    """Fixed overrides first, then this run's ``key=value`` for every swept key."""
    params: tuple[tuple[str, str], ...]
    """The swept ``(key, value)`` pairs."""
    seed: int | None
    """Seed, or None for the scenario's own."""
    key: str = field(default="")
    """The run's hash (`cclab.api.run_key`), filled in by `check`; names its directory in a results store."""


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep file (or the command-line flags) asks for."""

    scenario: Path
    params: dict[str, list[str]]
    seeds: list[int | None]
    overrides: list[str]

    def specs(self) -> list[RunSpec]:
        """The grid of this plan."""
        return grid(self.scenario, self.params, seeds=self.seeds, overrides=self.overrides)


def parse_param(text: str) -> tuple[str, list[str]]:
    """Parse ``"key.path=v1,v2,..."`` into ``("key.path", ["v1", "v2", ...])``."""
    key, sep, values = text.partition("=")
    key = key.strip()
    items = [v.strip() for v in values.split(",")]
    if not sep or not key or not all(items):
        raise SweepError(f"--param {text!r}: expected key.path=v1,v2,... with non-empty values")
    return key, items


def is_sweep_file(path: str | PathLike[str]) -> bool:
    """Whether ``path`` is a sweep file (top-level ``scenario = "file.toml"``) rather than a scenario."""
    try:
        doc = tomllib.loads(_core.read_scenario_text(path))
    except (_core.ScenarioError, tomllib.TOMLDecodeError):
        return False  # loading it as a scenario reports what is wrong
    return isinstance(doc.get("scenario"), str)


def load_sweep_file(path: str | PathLike[str]) -> SweepPlan:
    """Read a sweep file.

    Keys: ``scenario`` (relative to the file), ``seeds`` (N for 1..N, or a list), ``set``
    (fixed overrides) and a ``[grid]`` table of ``"key.path" = [values]``.

    Raises
    ------
    SweepError
        The file is unreadable or a key is missing or of the wrong type; the message names file and key.
    """
    p = Path(path)
    try:
        doc = tomllib.loads(_core.read_scenario_text(p))
    except _core.ScenarioError as e:  # unreadable or over the scenario size limit; names the file
        raise SweepError(str(e)) from None
    except tomllib.TOMLDecodeError as e:
        raise SweepError(f"{p}: {e}") from None
    known = {"scenario", "seeds", "set", "grid"}
    for k in doc:
        if k not in known:
            raise SweepError(f"{p}: {k}: unknown key, expected one of {', '.join(sorted(known))}")
    scenario = doc.get("scenario")
    if not isinstance(scenario, str):
        raise SweepError(f"{p}: scenario: expected the scenario file's path as a string")
    seeds_raw = doc.get("seeds")
    seeds: list[int | None]
    if seeds_raw is None:
        seeds = [None]
    elif isinstance(seeds_raw, int) and not isinstance(seeds_raw, bool) and 1 <= seeds_raw <= MAX_RUNS:
        seeds = list(range(1, seeds_raw + 1))
    elif isinstance(seeds_raw, list) and seeds_raw and all(isinstance(s, int) and s >= 0 for s in seeds_raw):
        seeds = list(seeds_raw)
    else:
        raise SweepError(f"{p}: seeds: expected a count 1 ≤ N ≤ {MAX_RUNS:,} (seeds 1..N) or a list of seeds ≥ 0")
    fixed = doc.get("set", [])
    if not isinstance(fixed, list) or not all(isinstance(s, str) for s in fixed):
        raise SweepError(f'{p}: set: expected a list of "key.path=value" strings')
    table = doc.get("grid", {})
    if not isinstance(table, dict):
        raise SweepError(f"{p}: grid: expected a table of key.path = [values]")
    params: dict[str, list[str]] = {}
    for key, values in table.items():
        if not isinstance(values, list) or not values:
            raise SweepError(f"{p}: grid.{key}: expected a non-empty list of values")
        params[key] = [_toml_text(v) for v in values]
    return SweepPlan((p.parent / scenario).resolve(), params, seeds, list(fixed))


def _toml_text(v: Any) -> str:
    """A grid value as the override text `--set` would take (strings as written, others as TOML)."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v) if isinstance(v, int | float) else str(v)


def grid(
    scenario: str | PathLike[str],
    params: Mapping[str, Sequence[str]],
    *,
    seeds: Sequence[int | None] = (None,),
    overrides: Iterable[str] = (),
) -> list[RunSpec]:
    """The cartesian product of ``params`` values × ``seeds`` (seeds vary fastest).

    Raises `SweepError` when the product has more than `MAX_RUNS` runs, before any is planned.
    """
    keys = list(params)
    sizes = [len(params[k]) for k in keys] + [len(seeds)]
    if math.prod(sizes) > MAX_RUNS:
        shape = " × ".join(f"{len(params[k])} ({k})" for k in keys) + f" × {len(seeds)} seeds"
        raise SweepError(f"the grid makes {shape} = {math.prod(sizes):,} runs, more than {MAX_RUNS:,}: split the sweep")
    fixed = tuple(overrides)
    path = str(Path(scenario).resolve())
    combos = itertools.product(itertools.product(*(params[k] for k in keys)), seeds)
    specs = []
    for i, (values, seed) in enumerate(combos):
        pairs = tuple(zip(keys, values, strict=True))
        specs.append(RunSpec(i, path, fixed + tuple(f"{k}={v}" for k, v in pairs), pairs, seed))
    return specs


def check(specs: Sequence[RunSpec]) -> list[RunSpec]:
    """Check every distinct parameter combination and return the specs with their run hashes.

    Each combination is loaded once, so a bad value fails before any run starts.

    Raises `cclab.ScenarioError` naming the key.
    """
    hashes = {o: load(specs[0].scenario, o).hash for o in dict.fromkeys(s.overrides for s in specs)}
    return [replace(s, key=run_key(hashes[s.overrides], s.seed, None)) for s in specs]


def run_all(specs: Sequence[RunSpec], **kwargs: Any) -> list[dict[str, Any]]:
    """Run every spec and return the rows in grid order; see `cclab.sweep_store.run_all` for the options."""
    from cclab import sweep_store

    return sweep_store.run_all(specs, **kwargs)


#: Unit suffix of a swept key's numeric column, and the parser that gives the number in that unit.
_UNITS = (
    ("_s", lambda v: _core.parse_duration_ns(v) / 1e9),
    ("_bps", lambda v: float(_core.parse_rate_bps(v))),
    ("_bytes", lambda v: float(_core.parse_size_bytes(v))),
)


def unit_column(values: Sequence[str]) -> tuple[str, list[float]] | None:
    """``(suffix, numbers)`` when every value is a duration, a rate or a size with its unit; else None."""
    for suffix, parse in _UNITS:
        try:
            return suffix, [parse(v) for v in values]
        except ValueError:
            continue
    return None


def to_polars(rows: Sequence[Mapping[str, Any]], params: Iterable[str] = ()) -> pl.DataFrame:
    """Rows as a DataFrame.

    Swept columns become numbers when all their values are plain numbers; values with
    units stay as given and gain a numeric column named with the unit (``path.forward.rate_bps``).
    """
    import polars as pl

    df = pl.from_dicts(list(rows), infer_schema_length=None)
    for key in params:
        if key not in df.columns or df[key].dtype != pl.String:
            continue
        as_float = df[key].cast(pl.Float64, strict=False)
        if as_float.null_count() == df[key].null_count():
            as_int = df[key].cast(pl.Int64, strict=False)
            df = df.with_columns(as_int if as_int.null_count() == df[key].null_count() else as_float)
            continue
        numeric = unit_column(df[key].to_list())
        if numeric is not None:
            suffix, numbers = numeric
            df = df.with_columns(pl.Series(f"{key}{suffix}", numbers, dtype=pl.Float64))
    return df


def write_parquet(rows: Sequence[Mapping[str, Any]], path: str | PathLike[str], params: Iterable[str] = ()) -> Path:
    """Write the rows to a parquet file (creating its directory) and return its path."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    to_polars(rows, params).write_parquet(p)
    return p
