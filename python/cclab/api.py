"""The Python API: `load` a scenario, `run` it, read the `Result`."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from functools import cached_property
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from cclab import _core

if TYPE_CHECKING:
    import polars as pl

StrPath = str | PathLike[str]
QlogFormat = Literal["draft-02", "ietf"]

#: File the `Result` time series is written to, next to the simulator's own outputs.
TIMESERIES_PARQUET = "timeseries.parquet"


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

    The time series is in long form: one row per (sample time, flow), with columns ``time_s``, ``flow``,
    ``cwnd_bytes``, ``bytes_in_flight``, ``srtt_s``, ``min_rtt_s``, ``pacing_rate_bps``,
    ``delivery_rate_bps``, ``bytes_sent`` and ``bytes_acked`` (units in the names; see docs/outputs.md).
    """

    def __init__(self, out: _core.RunOutput) -> None:
        self._out = out

    @cached_property
    def summary(self) -> dict[str, Any]:
        """The run summary (the content of ``summary.json``) as a dict."""
        summary: dict[str, Any] = json.loads(self._out.summary_json())
        return summary

    @cached_property
    def timeseries(self) -> dict[str, npt.NDArray[np.float64]]:
        """The time series as ``{column: float64 array}``; all arrays have the same length."""
        return self._out.timeseries()

    def to_polars(self) -> pl.DataFrame:
        """The time series as a polars DataFrame (``flow`` as an integer column)."""
        import polars as pl

        df = pl.DataFrame(self.timeseries)
        return df.with_columns(pl.col("flow").cast(pl.UInt32)) if "flow" in df.columns else df

    def write_parquet(self, path: StrPath) -> None:
        """Write the time series to a parquet file."""
        self.to_polars().write_parquet(Path(path))

    def __repr__(self) -> str:
        s = self.summary
        return f"Result(scenario={s.get('scenario')!r}, seed={s.get('seed')!r}, flows={len(s.get('flows', []))})"


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
    qlog: QlogFormat | None = "draft-02",
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
        Output directory: the simulator writes ``summary.json``, ``timeseries.csv`` and the qlog traces
        (``trace.sqlog`` and ``trace-receiver.sqlog``, or ``trace[-receiver]-flow<i>.sqlog`` per flow when there
        are several), and this function adds ``timeseries.parquet``.
    qlog
        qlog flavour of the traces; None writes none unless the scenario says ``[output] qlog = true``.
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
    out_dir = Path(out) if out is not None else None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    if bind is not None and not real:
        raise ValueError("bind= applies only to real runs (real=True)")
    if kernel and real:
        raise ValueError("kernel=True and real=True are two different modes; choose one")
    if kernel:
        core_out = _core.run_kernel(
            sc._sc,
            seed=seed,
            out_dir=out_dir,
            timeseries_interval_ns=interval_ns(timeseries_interval),
            progress=progress,
        )
    else:
        common = {
            "seed": seed,
            "out_dir": out_dir,
            "qlog": qlog,
            "timeseries_interval_ns": interval_ns(timeseries_interval),
            "progress": progress,
        }
        core_out = _core.run_real(sc._sc, bind=bind, **common) if real else _core.run(sc._sc, **common)
    result = Result(core_out)
    if out_dir is not None:
        result.write_parquet(out_dir / TIMESERIES_PARQUET)
    return result


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
