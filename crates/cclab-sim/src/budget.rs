//! The output budget: a run whose time series would exceed `[output] max_bytes` is refused
//! before it starts, instead of filling the memory or the disk hours later.

use crate::scenario::{ScenarioFile, Topology};
use crate::timeseries::COLUMNS;
use cclab_core::time::Dur;

/// Default `[output] max_bytes`: 4 GB.
pub const DEFAULT_MAX_BYTES: u64 = 4_000_000_000;

/// Bytes one time-series row takes in memory (f64 per column); its CSV line is about as long.
pub const ROW_BYTES: u64 = 8 * COLUMNS.len() as u64;

/// Links of `file`'s network: the two shared ones, plus two per flow with an access link.
fn link_count(file: &ScenarioFile) -> u64 {
    let access = file.flow.iter().filter(|f| f.access.is_some()).count() as u64;
    2 + if file.scenario.topology == Topology::Dumbbell {
        2 * access
    } else {
        0
    }
}

/// Size of the time series of a full-length run sampled every `interval`: rows for every flow
/// and link at every multiple of `interval` up to the duration.
pub fn timeseries_bytes(file: &ScenarioFile, interval: Dur) -> u64 {
    let rounds = (file.scenario.duration.as_nanos() / interval.as_nanos().max(1)).saturating_add(1);
    let rows_per_round = file.flow.len() as u64 + link_count(file);
    rounds.saturating_mul(rows_per_round).saturating_mul(ROW_BYTES)
}

/// An error message when the time series sampled every `interval` would exceed the budget.
pub fn check(file: &ScenarioFile, interval: Dur) -> Result<(), String> {
    let need = timeseries_bytes(file, interval);
    let max = file.output.max_bytes.map_or(DEFAULT_MAX_BYTES, |b| b.0);
    if need > max {
        return Err(format!(
            "the time series would take about {} MB ({} s every {} ms, {} B per row) but the budget is {} MB; \
             raise output.max_bytes or output.timeseries_interval, or shorten scenario.duration",
            need / 1_000_000,
            file.scenario.duration.as_secs_f64(),
            interval.as_secs_f64() * 1e3,
            ROW_BYTES,
            max / 1_000_000,
        ));
    }
    Ok(())
}
