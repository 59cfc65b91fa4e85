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
