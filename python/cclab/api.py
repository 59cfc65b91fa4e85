"""The Python API: `load` a scenario, `run` it, read the `Result`."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from cclab import _core

if TYPE_CHECKING:
    # numpy and polars load on first use: `cclab run` must not pay for them at start-up.
    import numpy as np
    import numpy.typing as npt
    import polars as pl

StrPath = str | PathLike[str]
#: qlog formats: ``"0.3"`` (what qvis reads; ``"draft-02"`` is the same) and ``"ietf"``.
QlogFormat = Literal["0.3", "draft-02", "ietf"]

#: File the `Result` time series is written to, next to the simulator's own outputs.
TIMESERIES_PARQUET = "timeseries.parquet"
#: The scenario as run: the file's TOML with every override applied.
RESOLVED_TOML = "scenario.resolved.toml"
#: What identifies a run: seed, overrides, scenario hash, cclab version (see `run_record`).
RUN_JSON = "run.json"
#: Every name a run writes into its directory; a new run removes them first so no stale file survives.
RUN_OUTPUTS = (
    "summary.json",
    "timeseries.csv",
    TIMESERIES_PARQUET,
    RESOLVED_TOML,
    RUN_JSON,
    "report.html",
    "plots",
    "trace.sqlog",
    "trace-receiver.sqlog",
    "trace-flow*.sqlog",
    "trace-receiver-flow*.sqlog",
    "trace*.sqlog.gz",
    "tcp_info.csv",
)
#: The simulator's time-series file, written while the run goes on.
TIMESERIES_CSV = "timeseries.csv"
#: Integer id columns; empty on rows of the other kind (flow rows have no link and vice versa).
ID_COLUMNS = ("flow", "link")
#: Largest ``timeseries.csv`` turned into parquet without polars (`Result.write_parquet`): ~8,000 rows, which
#: `cclab.parquet` converts in about the time polars takes to import.
SMALL_CSV_BYTES = 1 << 20


class Scenario:
    """A scenario file with its overrides applied, parsed and validated by the simulator.

    Parameters are not set directly: use `load`. The path and overrides are kept so that a worker
    process can load the same scenario again (see `cclab.sweep`).
    """

    __slots__ = ("_sc", "overrides", "path")

    _sc: _core.Scenario
    path: Path
    overrides: tuple[str, ...]

    @classmethod
    def _from_core(cls, sc: _core.Scenario, path: Path, overrides: tuple[str, ...]) -> Scenario:
        self = cls.__new__(cls)
        self._sc, self.path, self.overrides = sc, path, overrides
        return self

    @property
    def name(self) -> str:
        """The scenario's ``[scenario].name``."""
        return self._sc.name

    @property
    def description(self) -> str:
        """The one-line ``[scenario].description``."""
        return self._sc.description

    @property
    def resolved_toml(self) -> str:
        """The scenario as TOML with every override applied; loading it without overrides gives this scenario."""
        return self._sc.resolved_toml

    @property
    def wants_qlog(self) -> bool:
        """The scenario's ``[output] qlog``: whether it asks for qlog traces."""
        import tomllib

        return bool(tomllib.loads(self.resolved_toml).get("output", {}).get("qlog", False))

    @property
    def hash(self) -> str:
        """SHA-256 (hex) of `resolved_toml`: equal for equal scenarios, whatever file and overrides made them."""
        import hashlib

        return hashlib.sha256(self.resolved_toml.encode()).hexdigest()

    def __repr__(self) -> str:
        return f"Scenario(name={self.name!r}, path={str(self.path)!r}, overrides={list(self.overrides)!r})"


def _overrides(values: Iterable[str]) -> tuple[str, ...]:
    # A lone string is one override, not an iterable of one-character ones.
    return (values,) if isinstance(values, str) else tuple(values)


def load(path: StrPath, set: Iterable[str] = ()) -> Scenario:  # noqa: A002 - mirrors the CLI's --set
    """Load and validate a scenario file.

    Parameters
    ----------
    path
        The scenario's TOML file.
    set
        Overrides ``"key.path=value"``, applied in order before validation (values use TOML syntax, and
        bare unit strings such as ``20ms`` are accepted).

    Raises
    ------
    ScenarioError
        The file, a key or an override is invalid; the message names the file and the key.

    Examples
    --------
    >>> cclab.load("missing.toml")  # doctest: +SKIP
    Traceback (most recent call last):
    cclab.ScenarioError: missing.toml: ...
    """
    overrides = _overrides(set)
    p = Path(path)
    return Scenario._from_core(_core.load(p, list(overrides)), p, overrides)


class Result:
    """What a run returns: the summary and the sampled time series.

    The time series is in long form: one row per (sample time, flow) with ``flow`` set, then one per
    (sample time, link) with ``link`` set (see docs/outputs.md for the columns and units). A value that
    does not exist is NaN in numpy and null in polars/parquet: the other kind's columns, and RTTs and
    the pacing rate before the first RTT sample.

    A run with an output directory keeps the series only in ``timeseries.csv`` and reads it back on
    first use, so a long run's series never has to fit in memory twice.
    """

    def __init__(
        self,
        out: _core.RunOutput,
        out_dir: Path | None = None,
        files: tuple[str, ...] = (),
        csv: Path | None = None,
    ) -> None:
        self._out = out
        self._csv = csv
        self.out_dir = out_dir
        """The output directory, if the run wrote one."""
        self.files = files
        """Names of the files this run wrote into `out_dir` (sorted)."""

    @cached_property
    def summary(self) -> dict[str, Any]:
        """The run summary (the content of ``summary.json``) as a dict."""
        summary: dict[str, Any] = json.loads(self._out.summary_json())
        return summary

    @cached_property
    def timeseries(self) -> dict[str, npt.NDArray[np.float64]]:
        """The time series as ``{column: float64 array}``; all arrays have the same length."""
        if self._csv is None:
            return self._out.timeseries()
        import polars as pl

        df = pl.read_csv(self._csv, schema=_csv_schema(self._csv))
        return {c: df[c].to_numpy() for c in df.columns}

    def to_polars(self) -> pl.DataFrame:
        """The time series as a polars DataFrame (``flow`` and ``link`` as integer columns, no value as null)."""
        import polars as pl

        if self._csv is not None:
            return _typed(pl.read_csv(self._csv, schema=_csv_schema(self._csv)).lazy()).collect()
        return _typed(pl.DataFrame(self.timeseries).lazy()).collect()

    def to_pandas(self) -> Any:
        """The time series as a pandas DataFrame (``flow`` and ``link`` as nullable integers; needs pandas).

        Raises
        ------
        ImportError
            pandas is not installed; the message gives the command.
        """
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("Result.to_pandas needs pandas: pip install pandas") from e
        df = pd.DataFrame(self.timeseries)
        for col in ("flow", "link"):
            if col in df.columns:
                df[col] = df[col].astype("UInt32")
        return df

    def plot(self, out: StrPath | None = None) -> list[Path]:
        """Draw the per-run figures (see `cclab.plot.plot_dir`) and return their paths.

        Parameters
        ----------
        out
            Where to write them; by default ``plots/`` in the run's output directory.

        Raises
        ------
        ValueError
            The run wrote no output directory and no ``out`` was given.
        """
        from cclab.plot import plot_frame

        if out is None and self.out_dir is None:
            raise ValueError("Result.plot needs out=DIR for a run without an output directory")
        dest = Path(out) if out is not None else Path(self.out_dir or ".") / "plots"
        return plot_frame(self.to_polars(), dest, self.summary)

    def write_parquet(self, path: StrPath) -> None:
        """Write the time series to a parquet file (streamed from ``timeseries.csv`` when there is one).

        A small CSV (up to `SMALL_CSV_BYTES`) goes through `cclab.parquet`, which needs no import: polars' own
        import would cost a short run most of its CPU. A larger one streams through polars, faster per row.
        """
        if self._csv is not None and self._csv.stat().st_size <= SMALL_CSV_BYTES:
            from cclab.parquet import csv_to_parquet

            csv_to_parquet(self._csv, Path(path), ID_COLUMNS)
            return
        import polars as pl

        if self._csv is not None:
            _typed(pl.scan_csv(self._csv, schema=_csv_schema(self._csv))).sink_parquet(Path(path))
        else:
            self.to_polars().write_parquet(Path(path))

    def __repr__(self) -> str:
        s = self.summary
        return f"Result(scenario={s.get('scenario')!r}, seed={s.get('seed')!r}, flows={len(s.get('flows', []))})"


def read_timeseries(run_dir: StrPath) -> pl.DataFrame | None:
    """A run directory's time series as `Result.to_polars` gives it, or None when it holds none.

    ``timeseries.parquet`` when there is one, else ``timeseries.csv`` (all ``cclab-bench --out`` writes, and all a
    run leaves when it is cut short) read with the same columns and dtypes: float64, ``flow`` and ``link`` as
    uint32, no value as null.
    """
    import polars as pl

    pq, csv = Path(run_dir) / TIMESERIES_PARQUET, Path(run_dir) / TIMESERIES_CSV
    if pq.is_file():
        return pl.read_parquet(pq)
    if csv.is_file():
        return _typed(pl.read_csv(csv, schema=_csv_schema(csv)).lazy()).collect()
    return None


def _csv_schema(csv: Path) -> dict[str, Any]:
    """Every column of the simulator's CSV is float64 (an empty cell is null)."""
    import polars as pl

    with csv.open() as f:
        header = f.readline().strip().split(",")
    return dict.fromkeys(header, pl.Float64)


def _typed(lf: pl.LazyFrame) -> pl.LazyFrame:
    """NaN (no value) as null, and the id columns as integers."""
    import polars as pl

    ids = [c for c in ID_COLUMNS if c in lf.collect_schema().names()]
    return lf.with_columns(pl.selectors.float().fill_nan(None)).with_columns(pl.col(ids).cast(pl.UInt32))


def interval_ns(interval: str | float | None) -> int | None:
    """Convert a sampling interval (``"10ms"`` or seconds as a number) to integer nanoseconds."""
    if interval is None:
        return None
    if isinstance(interval, str):
        ns = _core.parse_duration_ns(interval)
    else:
        if not math.isfinite(interval):
            raise ValueError(f"timeseries_interval must be finite, got {interval!r}")
        ns = round(interval * 1e9)
    if ns <= 0:
        raise ValueError(f"timeseries_interval must be positive, got {interval!r}")
    return ns


def run(
    scenario: Scenario | StrPath,
    *,
    set: Iterable[str] = (),  # noqa: A002 - mirrors the CLI's --set
    seed: int | None = None,
    out: StrPath | None = None,
    qlog: bool | QlogFormat | None = None,
    timeseries_interval: str | float | None = None,
    progress: Callable[[float], bool | None] | None = None,
    real: bool = False,
    bind: str | None = None,
    kernel: bool = False,
) -> Result:
    """Run a scenario to completion, simulated or for real.

    The run happens without the GIL. Ctrl-C raises `KeyboardInterrupt` within about 50 ms.

    Parameters
    ----------
    scenario
        A `Scenario` from `load`, or the path of a scenario file.
    set
        Overrides, only with a path (see `load`).
    seed
        Overrides the scenario's seed.
    out
        Output directory. The run first removes what an earlier run left there (`RUN_OUTPUTS`), then the
        simulator writes ``summary.json``, ``timeseries.csv`` and the qlog traces (``trace.sqlog`` and
        ``trace-receiver.sqlog``, or ``trace[-receiver]-flow<i>.sqlog`` per flow when there are several), and
        this function adds ``timeseries.parquet``, ``scenario.resolved.toml`` and ``run.json``.
    qlog
        Whether to write qlog traces (with ``out``): None (the default) lets the scenario's ``[output] qlog``
        decide, True or a format (``"0.3"``, ``"ietf"``) writes them, False writes none.
    timeseries_interval
        Sampling interval, as ``"10ms"`` or seconds; the scenario's by default.
    progress
        Called about every 50 ms with the completed fraction (0..1); returning False cancels the run
        (raises `RunError`), and an exception it raises propagates.
    real
        Run the flows' endpoints on real UDP sockets with the wall clock, through the real-time path emulator
        (unless the path is plain loopback); the outputs are the simulation's with ``"mode": "real"``.
    bind
        With ``real``: the IP address every socket binds (default ``127.0.0.1``; ``::1`` for IPv6 profiles).
    kernel
        Run the scenario's TCP flow on the Linux kernel's TCP between two network namespaces, through the
        real-time emulator (needs root; see docs/outputs.md, "Kernel mode"). ``summary.json`` then has
        ``mode: "kernel"``, and ``tcp_info.csv`` holds the TCP_INFO fields the time series has no column for;
        no qlog is written.

    Returns
    -------
    Result
        The summary and time series.

    Raises
    ------
    ScenarioError
        The scenario (from a path) is invalid.
    RunError
        The run failed or was cancelled.
    KernelUnavailable
        With ``kernel=True``: this machine forbids network namespaces or tun devices (a `RunError`).
    """
    overrides = _overrides(set)
    if isinstance(scenario, Scenario):
        if overrides:
            raise ValueError("set= applies only when scenario is a path; pass the overrides to cclab.load")
        sc = scenario
    else:
        sc = load(scenario, overrides)
    qlog_arg = {None: None, False: "off", True: "0.3"}.get(qlog, qlog)  # type: ignore[call-overload]
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        clear_outputs(out_dir)
        others = {p.name for p in out_dir.iterdir()}
    if bind is not None and not real:
        raise ValueError("bind= applies only to real runs (real=True)")
    if kernel and real:
        raise ValueError("kernel=True and real=True are two different modes; choose one")
    if seed is not None and not 0 <= seed < 2**64:
        raise ValueError(f"seed={seed}: expected 0 to 2**64 - 1 (the simulator's random streams take a u64)")
    if kernel and qlog not in (None, False):
        raise ValueError("qlog= cannot be given with kernel=True: Linux TCP keeps no qlog (tcp_info.csv has TCP_INFO)")
    common = {
        "seed": seed,
        "out_dir": out_dir,
        "timeseries_interval_ns": interval_ns(timeseries_interval),
        "progress": progress,
    }
    if kernel:
        core_out = _core.run_kernel(sc._sc, **common)
    elif real:
        core_out = _core.run_real(sc._sc, bind=bind, qlog=qlog_arg, **common)
    else:
        # With an output directory the series lives in its file, not in memory as well.
        core_out = _core.run(sc._sc, keep_timeseries=out_dir is None, qlog=qlog_arg, **common)
    csv = out_dir / TIMESERIES_CSV if out_dir is not None else None
    result = Result(core_out, out_dir, csv=csv)
    if out_dir is not None:
        result.write_parquet(out_dir / TIMESERIES_PARQUET)
        (out_dir / RESOLVED_TOML).write_text(sc.resolved_toml)
        record = run_record(sc, result.summary, seed, timeseries_interval)
        (out_dir / RUN_JSON).write_text(json.dumps(record, indent=2) + "\n")
        result.files = tuple(sorted(p.name for p in out_dir.iterdir() if p.is_file() and p.name not in others))
    return result


def clear_outputs(out_dir: Path) -> None:
    """Remove what an earlier run wrote into ``out_dir`` (only `RUN_OUTPUTS` names; other files stay)."""
    import shutil

    for pattern in RUN_OUTPUTS:
        for p in out_dir.glob(pattern):
            if p.is_dir():
                shutil.rmtree(p)
            else:
                p.unlink()


def run_key(scenario_hash: str, seed: int | None, interval_ns_: int | None) -> str:
    """The run hash, which names a run in a results store.

    SHA-256 over the scenario hash, the seed argument (None: the scenario's own, which the
    scenario hash covers) and the sampling interval. Equal hashes give byte-identical deterministic outputs.
    """
    import hashlib

    return hashlib.sha256(json.dumps([scenario_hash, seed, interval_ns_]).encode()).hexdigest()


def run_record(
    sc: Scenario, summary: Mapping[str, Any], seed: int | None, interval: str | float | None
) -> dict[str, Any]:
    """The content of ``run.json``.

    What reproduces the run (file, overrides, seed), its hashes, the cclab
    version, and each flow's name, controller and ACK policy.
    """
    return {
        "cclab_version": _core.__version__,
        "scenario": sc.name,
        "scenario_file": str(sc.path),
        "overrides": list(sc.overrides),
        "seed": summary.get("seed", seed),
        "timeseries_interval_ns": interval_ns(interval),
        "scenario_hash": sc.hash,
        "run_hash": run_key(sc.hash, seed, interval_ns(interval)),
        "flows": [{k: f.get(k) for k in ("flow", "name", "cc", "ack_policy")} for f in summary.get("flows", [])],
    }


def flatten(summary: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Flatten a summary into ``{"a.b.c": scalar}``.

    List items are keyed by their ``flow`` id, or ``name.direction`` for links, or else their index:
    ``flows.0.goodput_bps``, ``links.path.forward.forward.drops``.
    """
    flat: dict[str, Any] = {}
    for key, value in summary.items():
        path = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flat.update(flatten(value, f"{path}."))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, Mapping):
                    flat.update(flatten(item, f"{path}.{_item_key(item, i)}."))
                else:
                    flat[f"{path}.{i}"] = item
        else:
            flat[path] = value
    return flat


def _item_key(item: Mapping[str, Any], index: int) -> str:
    if "flow" in item:
        return str(item["flow"])
    if "name" in item:
        return f"{item['name']}.{item['direction']}" if "direction" in item else str(item["name"])
    return str(index)
