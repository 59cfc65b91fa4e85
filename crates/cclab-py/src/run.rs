//! `run`: one simulation with the GIL released, and its `RunOutput`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cclab_core::Dur;
use cclab_sim::{QlogMode, RunOptions};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::run_error;
use crate::scenario::PyScenario;

/// How often (wall clock) the progress hook re-acquires the GIL to poll Ctrl-C and call back into Python.
const POLL_EVERY: Duration = Duration::from_millis(50);

/// What a finished run returns: the summary and the sampled time series (opaque handle; see `cclab.Result`).
#[pyclass(name = "RunOutput", module = "cclab._core", frozen)]
#[repr(transparent)]
pub(crate) struct PyRunOutput {
    pub(crate) inner: cclab_sim::RunOutput,
}

impl From<cclab_sim::RunOutput> for PyRunOutput {
    fn from(inner: cclab_sim::RunOutput) -> Self {
        PyRunOutput { inner }
    }
}

#[pymethods]
impl PyRunOutput {
    /// The run summary as pretty-printed JSON (the same text as `summary.json`).
    fn summary_json(&self) -> String {
        self.inner.summary.to_json_pretty()
    }

    /// The time series as `{column: float64 array}`, in column order; each array is one copy of the Rust buffer.
    fn timeseries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, values) in self.inner.timeseries.columns() {
            dict.set_item(name, PyArray1::from_slice(py, values))?;
        }
        Ok(dict)
    }
}

pub(crate) fn qlog_mode(qlog: Option<&str>) -> PyResult<QlogMode> {
    match qlog {
        None => Ok(QlogMode::Off),
        Some("off") => Ok(QlogMode::Never),
        // docs/outputs.md names the format by its qlog_version, 0.3; draft-02 is its main-schema draft.
        Some("0.3" | "draft-02") => Ok(QlogMode::Draft02),
        Some("ietf") => Ok(QlogMode::Ietf),
        Some(other) => Err(PyValueError::new_err(format!(
            "qlog must be \"0.3\" (alias \"draft-02\"), \"ietf\", \"off\" or None, got {other:?}"
        ))),
    }
}

/// Builds the hook the simulator calls with the completed fraction of the run. At most every `POLL_EVERY` it
/// re-acquires the GIL, runs pending signal handlers (Ctrl-C raises `KeyboardInterrupt` there) and calls the
/// optional Python callback; a callback result that is not `None` and falsy cancels the run. A raised exception
/// is parked in `error` and cancels the run, so the caller re-raises it instead of the simulator's error.
pub(crate) fn progress_hook(
    callback: Option<Py<PyAny>>,
    error: Arc<Mutex<Option<PyErr>>>,
) -> Box<dyn FnMut(f64) -> bool + Send> {
    let mut last = Instant::now();
    Box::new(move |fraction: f64| {
        if fraction < 1.0 && last.elapsed() < POLL_EVERY {
            return true;
        }
        last = Instant::now();
        let verdict = Python::attach(|py| -> PyResult<bool> {
            py.check_signals()?;
            match &callback {
                Some(cb) => {
                    let answer = cb.bind(py).call1((fraction,))?;
                    Ok(answer.is_none() || answer.is_truthy()?)
                }
                None => Ok(true),
            }
        });
        verdict.unwrap_or_else(|e| {
            *error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
            false
        })
    })
}

/// Runs `scenario` to completion with the GIL released.
///
/// `seed` overrides the scenario's seed; with `out_dir` the simulator writes `summary.json`, `timeseries.csv`
/// and, when qlog is on, `trace.sqlog` / `trace-receiver.sqlog` there: `qlog` None lets the scenario's
/// `[output] qlog` decide, "off" writes none, "0.3"/"draft-02" or "ietf" write that format. `timeseries_interval_ns` overrides
/// the sampling interval (ns). `progress(fraction) -> bool | None` is called about every 50 ms. With
/// `keep_timeseries=False` the series is only written to `timeseries.csv`, not kept in memory.
#[pyfunction]
#[pyo3(signature = (scenario, *, seed = None, out_dir = None, qlog = None, timeseries_interval_ns = None, progress = None, keep_timeseries = true))]
pub(crate) fn run(
    py: Python<'_>,
    scenario: PyRef<'_, PyScenario>,
    seed: Option<u64>,
    out_dir: Option<PathBuf>,
    qlog: Option<&str>,
    timeseries_interval_ns: Option<u64>,
    progress: Option<Py<PyAny>>,
    keep_timeseries: bool,
) -> PyResult<PyRunOutput> {
    let error = Arc::new(Mutex::new(None));
    let options = RunOptions {
        seed,
        out_dir,
        qlog: qlog_mode(qlog)?,
        timeseries_interval: timeseries_interval_ns.map(Dur::from_nanos),
        progress: Some(progress_hook(progress, Arc::clone(&error))),
        discard_timeseries: !keep_timeseries,
        max_events: None,
    };
    let scenario = &scenario.inner;
    let result = py.detach(|| cclab_sim::run(scenario, options));
    if let Some(e) = error.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(e);
    }
    result.map(|inner| PyRunOutput { inner }).map_err(run_error)
}
