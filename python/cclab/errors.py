"""Errors of cclab's Python layer that every command maps to an exit code (``cli/_common.user_errors``).

The simulator's own (`ScenarioError`, `RunError`, `KernelUnavailable`) come from ``cclab._core``. `SweepError`
lives here rather than in `cclab.sweep` so that commands which never sweep can catch it without importing the
sweep planner (tomllib and dataclasses: ~6 ms, 5 % of a one-packet ``cclab run``'s CPU time, issue #14).
"""


class SweepError(Exception):
    """A sweep is mis-specified, or its backend is unavailable."""
