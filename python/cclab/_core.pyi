"""Type stubs for the compiled module ``cclab._core`` (crates/cclab-py). Private: use ``cclab``."""

from collections.abc import Callable
from os import PathLike
from typing import Any

import numpy as np
import numpy.typing as npt

__version__: str
#: Most bytes of scenario text (file plus --set values) the simulator reads.
MAX_SCENARIO_BYTES: int

class ScenarioError(Exception):
    """A scenario file or override is invalid; the message reads ``file: key.path: expected ...``."""

class RunError(Exception):
    """A simulation run failed or was cancelled by its progress callback."""

class KernelUnavailable(RunError):
    """Kernel mode cannot run: the machine forbids network namespaces or tun devices."""

class QlogReadError(ValueError):
    """The Rust qlog reader did not read a file (malformed, truncated, or a value it leaves to Python)."""

class Scenario:
    """A parsed and validated scenario."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def resolved_toml(self) -> str: ...

class RunOutput:
    """A finished run."""

    def summary_json(self) -> str: ...
    def timeseries(self) -> dict[str, npt.NDArray[np.float64]]: ...

def load(path: str | PathLike[str], overrides: list[str] = ...) -> Scenario: ...
def read_scenario_text(path: str | PathLike[str]) -> str: ...
def run(
    scenario: Scenario,
    *,
    seed: int | None = None,
    out_dir: str | PathLike[str] | None = None,
    qlog: str | None = None,
    timeseries_interval_ns: int | None = None,
    progress: Callable[[float], bool | None] | None = None,
    keep_timeseries: bool = True,
) -> RunOutput: ...
def run_real(
    scenario: Scenario,
    *,
    seed: int | None = None,
    out_dir: str | PathLike[str] | None = None,
    qlog: str | None = None,
    timeseries_interval_ns: int | None = None,
    progress: Callable[[float], bool | None] | None = None,
    bind: str | None = None,
    deadline_ns: int | None = None,
) -> RunOutput: ...
def read_qlog_seq(path: str | PathLike[str], rtt_unit_s: float | None = None) -> dict[str, Any] | None: ...
def parse_duration_ns(s: str) -> int: ...
def parse_rate_bps(s: str) -> int: ...
def parse_size_bytes(s: str) -> int: ...
def run_kernel(
    scenario: Scenario,
    *,
    seed: int | None = None,
    out_dir: str | PathLike[str] | None = None,
    timeseries_interval_ns: int | None = None,
    progress: Callable[[float], bool | None] | None = None,
) -> RunOutput: ...

class Emulation:
    """A running emulated path between a third-party client and server."""

    @property
    def server_addr(self) -> str: ...
    @property
    def listen_addr(self) -> str: ...
    def stop(self) -> tuple[str, str]: ...

def start_emulation(
    scenario: Scenario, *, seed: int | None = None, interval_ns: int | None = None, bind: str = "127.0.0.1"
) -> Emulation: ...
