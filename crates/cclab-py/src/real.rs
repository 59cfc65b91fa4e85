//! `run_real`: one scenario on real UDP sockets (`cclab run --real`), with the GIL released.

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use cclab_core::Dur;
use cclab_real::{RealError, RealOptions};
use pyo3::prelude::*;

use crate::error::RunError;
use crate::run::{progress_hook, qlog_mode, PyRunOutput};
use crate::scenario::PyScenario;

/// Runs `scenario` for real: its flows' endpoints on UDP sockets bound to `bind` (loopback by
/// default), through the real-time path emulator unless the path is plain loopback.
///
/// The arguments are `run`'s, plus `bind` (an IP address) and `deadline_ns` (wall-clock limit;
/// default the scenario's duration + 2 s). Outputs in `out_dir` are the simulator's, with
/// `"mode": "real"`. Ctrl-C stops the run within about 50 ms; the outputs so far are written first.
#[pyfunction]
#[pyo3(signature = (scenario, *, seed = None, out_dir = None, qlog = None, timeseries_interval_ns = None, progress = None, bind = None, deadline_ns = None))]
pub(crate) fn run_real(
    py: Python<'_>,
    scenario: PyRef<'_, PyScenario>,
    seed: Option<u64>,
    out_dir: Option<PathBuf>,
    qlog: Option<&str>,
    timeseries_interval_ns: Option<u64>,
    progress: Option<Py<PyAny>>,
    bind: Option<&str>,
    deadline_ns: Option<u64>,
) -> PyResult<PyRunOutput> {
    let error = Arc::new(Mutex::new(None));
    let mut options = RealOptions {
        seed,
        out_dir,
        qlog: qlog_mode(qlog)?,
        timeseries_interval: timeseries_interval_ns.map(Dur::from_nanos),
        deadline: deadline_ns.map(Dur::from_nanos),
        progress: Some(progress_hook(progress, Arc::clone(&error))),
        ..RealOptions::default()
    };
    if let Some(b) = bind {
        options.bind = b.parse::<IpAddr>().map_err(|_| {
            RunError::new_err(format!(
                "--bind: expected an IP address such as 127.0.0.1 or ::1, got {b:?}"
            ))
        })?;
    }
    let scenario = &scenario.inner;
    let result = py.detach(|| cclab_real::run_real(scenario, options));
    if let Some(e) = error.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(e);
    }
    match result {
        Ok(inner) => Ok(PyRunOutput::from(inner)),
        Err(RealError::Cancelled(_)) => Err(RunError::new_err("real run cancelled (outputs so far were written)")),
        Err(e) => Err(RunError::new_err(e.to_string())),
    }
}
