//! Unit-string parsing shared with scenario files, so the CLI accepts exactly what TOML accepts.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Parses a duration such as `"10ms"` or `"1.5s"` into integer nanoseconds.
#[pyfunction]
pub(crate) fn parse_duration_ns(s: &str) -> PyResult<u64> {
    cclab_core::units::parse_duration(s)
        .map(|d| d.as_nanos())
        .map_err(PyValueError::new_err)
}

/// Parses a rate such as `"50Mbps"` into bits per second (`"unlimited"` is an error here).
#[pyfunction]
pub(crate) fn parse_rate_bps(s: &str) -> PyResult<u64> {
    cclab_core::units::parse_rate(s)
        .map(|r| r.0)
        .map_err(PyValueError::new_err)
}

/// Parses a size such as `"1MB"` into bytes.
#[pyfunction]
pub(crate) fn parse_size_bytes(s: &str) -> PyResult<u64> {
    cclab_core::units::parse_bytes(s)
        .map(|b| b.0)
        .map_err(PyValueError::new_err)
}
