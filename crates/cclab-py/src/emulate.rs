//! `Emulation`: the real-time emulated path between third-party UDP programs (`cclab emulate`).

use std::net::IpAddr;

use cclab_core::Dur;
use cclab_emulate::Emulation;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::scenario::PyScenario;

/// A running emulated path; `stop()` ends it and returns `(report_json, series_csv)`.
#[pyclass(name = "Emulation", module = "cclab._core")]
pub(crate) struct PyEmulation {
    inner: Option<Emulation>,
}

#[pymethods]
impl PyEmulation {
    /// Where the client sends (`host:port`).
    #[getter]
    fn server_addr(&self) -> PyResult<String> {
        Ok(self.running()?.server_addr().to_string())
    }

    /// Where the server must listen (`host:port`).
    #[getter]
    fn listen_addr(&self) -> PyResult<String> {
        Ok(self.running()?.listen_addr().to_string())
    }

    /// Stops the path (GIL released while the relay thread finishes).
    fn stop(&mut self, py: Python<'_>) -> PyResult<(String, String)> {
        let e = self
            .inner
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("emulation already stopped"))?;
        let report = py.detach(|| e.stop());
        Ok((report.to_json().to_string(), report.series.to_csv()))
    }
}

impl PyEmulation {
    fn running(&self) -> PyResult<&Emulation> {
        self.inner
            .as_ref()
            .ok_or_else(|| PyRuntimeError::new_err("emulation already stopped"))
    }
}

/// Starts `scenario`'s path between a client and a server on `bind` (loopback by default).
#[pyfunction]
#[pyo3(signature = (scenario, *, seed = None, interval_ns = None, bind = "127.0.0.1"))]
pub(crate) fn start_emulation(
    scenario: PyRef<'_, PyScenario>,
    seed: Option<u64>,
    interval_ns: Option<u64>,
    bind: &str,
) -> PyResult<PyEmulation> {
    let ip: IpAddr = bind
        .parse()
        .map_err(|_| PyValueError::new_err(format!("bind: {bind:?} is not an IP address")))?;
    let e = Emulation::start(&scenario.inner, seed, interval_ns.map(Dur::from_nanos), ip)
        .map_err(|e| PyRuntimeError::new_err(format!("emulator sockets: {e}")))?;
    Ok(PyEmulation { inner: Some(e) })
}
