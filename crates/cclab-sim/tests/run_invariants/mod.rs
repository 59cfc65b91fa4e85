//! Invariants of one whole run, shared by `tests/prop_scenarios.rs` and `fuzz/fuzz_targets/simulation.rs`
//! (included with `#[path]`): the run is deterministic, every byte delivered was sent and crossed the
//! forward path, a completed transfer delivered exactly its size, time never runs backwards in the outputs,
//! and correct endpoints never refuse each other's datagrams.

use cclab_core::endpoint::source::SourceConfig;
use cclab_sim::scenario::ProfileKind;
use cclab_sim::{run, RunError, RunOptions, RunOutput, Scenario};

/// One run with at most about `max_events` events (checked every 65,536).
fn run_capped(s: &Scenario, max_events: u64) -> Result<RunOutput, RunError> {
    run(
        s,
        RunOptions {
            max_events: Some(max_events),
            ..Default::default()
        },
    )
}

/// The summary without its wall-clock fields (the only ones allowed to differ between two runs).
fn deterministic_json(out: &RunOutput) -> String {
    out.summary.deterministic_json()
}

/// Runs `s` twice within `max_events` and checks the invariants; the error says which one broke.
pub(crate) fn check(s: &Scenario, max_events: u64) -> Result<(), String> {
    let (a, b) = (run_capped(s, max_events), run_capped(s, max_events));
    let (a, b) = match (a, b) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(RunError::EventLimit(x)), Err(RunError::EventLimit(y))) if x == y => return Ok(()),
        (a, b) => return Err(format!("two runs ended differently: {:?} / {:?}", a.err(), b.err())),
    };
    // As CSV text: a series holds NaN (no value), which never equals itself.
    let csv = |o: &RunOutput| {
        let mut v = Vec::new();
        o.timeseries.to_csv(&mut v).map(|()| v).map_err(|e| e.to_string())
    };
    if deterministic_json(&a) != deterministic_json(&b) || csv(&a)? != csv(&b)? {
        return Err("two runs of the same scenario and seed differ".into());
    }
    let file = s.config();
    let duration_s = file.scenario.duration.as_secs_f64();
    if a.summary.sim.sim_time_s > duration_s {
        return Err(format!("ran to {} s, past the duration", a.summary.sim.sim_time_s));
    }
    let columns = a.timeseries.columns();
    let times = columns.iter().find(|c| c.0 == "time_s").map_or(&[][..], |c| c.1);
    if times.windows(2).any(|w| w[1] < w[0]) || times.iter().any(|&t| t > duration_s) {
        return Err("time-series times go backwards or past the duration".into());
    }
    let mut delivered = 0;
    for (f, cfg) in a.summary.flows.iter().zip(&file.flow) {
        delivered += f.bytes_delivered;
        if f.protocol_violations > 0 {
            return Err(format!(
                "flow {}: {} protocol violations between correct endpoints",
                f.flow, f.protocol_violations
            ));
        }
        if f.retransmitted_packets > f.data_packets_sent {
            return Err(format!("flow {}: more retransmissions than data packets", f.flow));
        }
        if let SourceConfig::Bulk { size } = cfg.source {
            // DCCP is unreliable: its transfer completes when the last packet arrives, losses or not.
            let complete = f.completion_time_s.is_some() && cfg.profile != ProfileKind::Dccp;
            if f.bytes_delivered > size.0 || (complete && f.bytes_delivered != size.0) {
                return Err(format!(
                    "flow {}: delivered {} B of {} B (complete: {complete})",
                    f.flow, f.bytes_delivered, size.0
                ));
            }
        }
    }
    // Every delivered byte crossed the bottleneck's forward link inside a larger IP packet.
    let forward = a
        .summary
        .links
        .iter()
        .filter(|l| l.direction == "forward")
        .map(|l| l.bytes)
        .max();
    if delivered > forward.unwrap_or(0) {
        return Err(format!(
            "{delivered} B delivered but at most {forward:?} B crossed a forward link"
        ));
    }
    Ok(())
}
