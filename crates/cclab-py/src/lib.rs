//! cclab-py: the private extension module `cclab._core`.
//!
//! Thin wrappers over `cclab-sim` and nothing else: no model logic lives here. Long work (`load`, `run`) releases
//! the GIL and polls for Ctrl-C; the public, documented surface is the pure-Python package `cclab`.

mod emulate;
mod error;
mod kernel;
mod qlog_read;
mod real;
mod run;
mod scenario;
mod units;

use pyo3::prelude::*;

/// glibc, with huge pages for the heap of runs with many flows, as in `cclab-bench` (`cclab_alloc`,
/// ARCHITECTURE.md); a run that has them sets glibc's heap parameters for the Python process while it lasts.
#[global_allocator]
static ALLOC: cclab_alloc::HugePageAlloc = cclab_alloc::HugePageAlloc;

/// The `cclab._core` module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("ScenarioError", py.get_type::<error::ScenarioError>())?;
    m.add("RunError", py.get_type::<error::RunError>())?;
    m.add("KernelUnavailable", py.get_type::<error::KernelUnavailable>())?;
    m.add("QlogReadError", py.get_type::<error::QlogReadError>())?;
    m.add_class::<scenario::PyScenario>()?;
    m.add_class::<run::PyRunOutput>()?;
    m.add_function(wrap_pyfunction!(scenario::load, m)?)?;
    m.add_function(wrap_pyfunction!(scenario::read_scenario_text, m)?)?;
    m.add("MAX_SCENARIO_BYTES", cclab_sim::MAX_SCENARIO_BYTES)?;
    m.add_function(wrap_pyfunction!(run::run, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::run_kernel, m)?)?;
    m.add_class::<emulate::PyEmulation>()?;
    m.add_function(wrap_pyfunction!(emulate::start_emulation, m)?)?;
    m.add_function(wrap_pyfunction!(real::run_real, m)?)?;
    m.add_function(wrap_pyfunction!(qlog_read::read_qlog_seq, m)?)?;
    m.add_function(wrap_pyfunction!(units::parse_duration_ns, m)?)?;
    m.add_function(wrap_pyfunction!(units::parse_rate_bps, m)?)?;
    m.add_function(wrap_pyfunction!(units::parse_size_bytes, m)?)?;
    Ok(())
}
