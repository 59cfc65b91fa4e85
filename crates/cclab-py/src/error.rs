//! Python exceptions for the simulator's errors (one place maps every Rust error type).

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
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

create_exception!(
    cclab,
    QlogReadError,
    PyValueError,
    "The Rust qlog reader did not read a file: malformed, truncated, or a value it leaves to the Python reader."
);

create_exception!(
    cclab,
    KernelUnavailable,
    RunError,
    "This machine does not allow the network namespaces or tun devices kernel mode needs (one-line reason)."
);

/// `cclab_kernel::KernelError` → `KernelUnavailable` (forbidden here), `ScenarioError` (cannot be mapped to the
/// kernel, names the key) or `RunError`.
pub(crate) fn kernel_error(e: cclab_kernel::KernelError) -> PyErr {
    use cclab_kernel::KernelError as K;
    match e {
        K::Forbidden(m) => KernelUnavailable::new_err(m),
        K::Unsupported(m) => ScenarioError::new_err(m),
        other => RunError::new_err(other.to_string()),
    }
}

/// `cclab_sim::ScenarioError` → `cclab.ScenarioError`, keeping the full message.
pub(crate) fn scenario_error(e: cclab_sim::ScenarioError) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// `cclab_sim::RunError` → `cclab.RunError`, keeping the full message.
pub(crate) fn run_error(e: cclab_sim::RunError) -> PyErr {
    RunError::new_err(e.to_string())
}
