"""cclab: a congestion-control laboratory.

Load a TOML scenario, run the deterministic simulator, and get the summary and time series back::

    import cclab

    result = cclab.run("scenarios/bulk-newreno.toml", seed=7, out="out/example")
    result.summary["flows"][0]["goodput_bps"]
    result.timeseries["cwnd_bytes"]  # numpy array, one row per (sample time, flow)

Importing ``cclab`` loads only the compiled core; numpy, polars and matplotlib load on first use.
"""

from cclab._core import KernelUnavailable, RunError, ScenarioError, __version__
from cclab.api import Result, Scenario, load, run

__all__ = ["KernelUnavailable", "Result", "RunError", "Scenario", "ScenarioError", "__version__", "load", "run"]
