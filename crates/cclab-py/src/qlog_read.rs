//! `read_qlog_seq`: the Rust JSON-SEQ qlog reader (`cclab_sim::qlog::read`) for `cclab.traces.qlog`.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

use cclab_sim::qlog::read::{read_seq, QlogTables, ReadError, Table};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::error::QlogReadError;

/// Reads a JSON-SEQ qlog file into `{table: {column: float64 array}, ...}` (the fields of `QlogTrace`, with
/// `param_records` for Python to merge); `None` when the file is not JSON-SEQ. Errors, and values this
/// reader leaves to Python, raise `QlogReadError` naming the file and line. The GIL is released while reading.
#[pyfunction]
#[pyo3(signature = (path, rtt_unit_s=None))]
pub(crate) fn read_qlog_seq(py: Python<'_>, path: PathBuf, rtt_unit_s: Option<f64>) -> PyResult<Option<Py<PyDict>>> {
    // A panic is a bug, but never one that crosses into Python as anything but this module's error.
    let result = py.detach(|| catch_unwind(AssertUnwindSafe(|| read_seq(&path, rtt_unit_s))));
    match result {
        Ok(Ok(tables)) => Ok(Some(to_dict(py, tables)?.unbind())),
        Ok(Err(ReadError::NotSeq)) => Ok(None),
        Ok(Err(e)) => Err(QlogReadError::new_err(e.message(&path))),
        Err(_) => Err(QlogReadError::new_err(format!(
            "{}: internal error in the qlog reader",
            path.display()
        ))),
    }
}

fn to_dict(py: Python<'_>, t: QlogTables) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("vantage", t.vantage)?;
    d.set_item("protocol", t.protocol)?;
    d.set_item("schema", t.schema)?;
    d.set_item("param_records", PyList::new(py, t.param_records)?)?;
    for (name, table) in [
        ("sent", t.sent),
        ("received", t.received),
        ("metrics", t.metrics),
        ("lost", t.lost),
        ("acked_after_loss", t.acked_after_loss),
        ("ack_frequency", t.ack_frequency),
        ("acks", t.acks),
    ] {
        d.set_item(name, table_dict(py, table)?)?;
    }
    d.set_item("lost_triggers", PyList::new(py, t.lost_triggers)?)?;
    d.set_item("pto_expired_s", PyArray1::from_vec(py, t.pto_expired_s))?;
    d.set_item("nofeedback_expired_s", PyArray1::from_vec(py, t.nofeedback_expired_s))?;
    d.set_item("states", PyList::new(py, t.states)?)?;
    let counts = PyDict::new(py);
    for (name, n) in t.event_counts {
        counts.set_item(name, n)?;
    }
    d.set_item("event_counts", counts)?;
    Ok(d)
}

/// `{column: float64 array}` in column order; each array takes over the Rust buffer (no copy).
fn table_dict(py: Python<'_>, table: Table) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for (name, column) in table.names.iter().zip(table.columns) {
        d.set_item(*name, PyArray1::from_vec(py, column))?;
    }
    Ok(d)
}
