//! `run_kernel`: one scenario on the Linux kernel's TCP through the emulated path, GIL released.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use cclab_core::Dur;
use cclab_kernel::{run_kernel as kernel_run, KernelOptions};
use pyo3::prelude::*;

use crate::error::kernel_error;
use crate::run::{progress_hook, PyRunOutput};
use crate::scenario::PyScenario;

/// Runs `scenario`'s TCP flow on the kernel (see `cclab_kernel`), writing `summary.json`
/// (`mode: "kernel"`), `timeseries.csv` and `tcp_info.csv` into `out_dir`.
#[pyfunction]
#[pyo3(signature = (scenario, *, seed = None, out_dir = None, timeseries_interval_ns = None, progress = None))]
pub(crate) fn run_kernel(
    py: Python<'_>,
    scenario: PyRef<'_, PyScenario>,
    seed: Option<u64>,
    out_dir: Option<PathBuf>,
    timeseries_interval_ns: Option<u64>,
    progress: Option<Py<PyAny>>,
) -> PyResult<PyRunOutput> {
    let error = Arc::new(Mutex::new(None));
    let options = KernelOptions {
        seed,
        out_dir,
        timeseries_interval: timeseries_interval_ns.map(Dur::from_nanos),
        deadline: None,
        progress: Some(progress_hook(progress, Arc::clone(&error))),
    };
    let scenario = &scenario.inner;
    let result = py.detach(|| kernel_run(scenario, options));
    if let Some(e) = error.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(e);
    }
    result.map(|inner| PyRunOutput { inner }).map_err(kernel_error)
}
