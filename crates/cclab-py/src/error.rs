//! Python exceptions for the simulator's errors (one place maps every Rust error type).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::PyErr;

create_exception!(
    cclab,
    ScenarioError,
    PyException,
    "A scenario file or a `--set` override is invalid; the message reads `file: key.path: expected ...`."
);
create_exception!(
    cclab,
    RunError,
    PyException,
    "A simulation run failed or was cancelled by its progress callback."
);

/// `cclab_sim::ScenarioError` → `cclab.ScenarioError`, keeping the full message.
pub(crate) fn scenario_error(e: cclab_sim::ScenarioError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// `cclab_sim::RunError` → `cclab.RunError`, keeping the full message.
pub(crate) fn run_error(e: cclab_sim::RunError) -> PyErr {
    RunError::new_err(e.to_string())
}
