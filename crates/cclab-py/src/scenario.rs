//! `Scenario`: a parsed, validated scenario file.

use std::path::PathBuf;

use pyo3::prelude::*;

use crate::error::scenario_error;

/// A scenario loaded from TOML with its overrides applied (opaque handle; see `cclab.Scenario`).
#[pyclass(name = "Scenario", module = "cclab._core", frozen)]
#[repr(transparent)]
pub(crate) struct PyScenario {
    pub(crate) inner: cclab_sim::Scenario,
}

impl From<cclab_sim::Scenario> for PyScenario {
    fn from(inner: cclab_sim::Scenario) -> Self {
        Self { inner }
    }
}

#[pymethods]
impl PyScenario {
    /// The scenario's `[scenario].name`.
    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// The one-line `[scenario].description`.
    #[getter]
    fn description(&self) -> &str {
        self.inner.description()
    }

    /// The scenario as TOML with every override applied (written to `scenario.resolved.toml`).
    #[getter]
    fn resolved_toml(&self) -> &str {
        self.inner.resolved_toml()
    }

    fn __repr__(&self) -> String {
        format!("Scenario(name={:?})", self.inner.name())
    }
}

/// Parses and validates `path`, applying `overrides` (`"key.path=value"` strings) in order.
#[pyfunction]
#[pyo3(signature = (path, overrides = Vec::new()))]
pub(crate) fn load(py: Python<'_>, path: PathBuf, overrides: Vec<String>) -> PyResult<PyScenario> {
    py.detach(|| cclab_sim::load_scenario(&path, &overrides))
        .map(PyScenario::from)
        .map_err(scenario_error)
}

/// The text of the scenario (or sweep) file at `path`, refused past `cclab_sim::MAX_SCENARIO_BYTES` before it is
/// read, so Python's own TOML reads are bounded as the simulator's are.
#[pyfunction]
pub(crate) fn read_scenario_text(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    py.detach(|| cclab_sim::read_scenario_text(&path))
        .map_err(scenario_error)
}
