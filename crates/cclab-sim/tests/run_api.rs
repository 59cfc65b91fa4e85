//! `run()` as the Python binding uses it: outputs on disk, progress and cancellation.

use cclab_sim::{run, QlogMode, RunError, RunOptions, Scenario};
use std::sync::{Arc, Mutex};

const TWO_FLOWS: &str = r#"
[scenario]
name = "api"
duration = "2s"

[path.forward]
rate = "10Mbps"
delay = "5ms"

[path.return]
rate = "10Mbps"
delay = "5ms"

[[flow]]
source = { kind = "bulk", size = "200KB" }

[[flow]]
source = { kind = "bulk", size = "200KB" }
start = "50ms"

[output]
timeseries_interval = "100ms"
"#;

fn scenario() -> Scenario {
    Scenario::from_toml_str(TWO_FLOWS, "api.toml", &[]).unwrap()
}

#[test]
fn run_writes_summary_timeseries_and_one_qlog_pair_per_flow() {
    let dir = std::env::temp_dir().join(format!("cclab-api-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = RunOptions {
        out_dir: Some(dir.clone()),
        qlog: QlogMode::Ietf,
        ..Default::default()
    };
    let out = run(&scenario(), opts).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let expected = [
        "summary.json",
        "timeseries.csv",
        "trace-flow0.sqlog",
        "trace-flow1.sqlog",
        "trace-receiver-flow0.sqlog",
        "trace-receiver-flow1.sqlog",
    ];
    assert_eq!(names, expected);
    // Both 200 KB transfers finish well inside 2 s, so the run stops early; the time series has
    // one row per flow and per link (two) per 100 ms sample up to the end.
    let end = out.summary.sim.sim_time_s;
    assert!(
        end < 1.0 && out.summary.flows.iter().all(|f| f.completion_time_s.is_some()),
        "{end}"
    );
    assert_eq!(out.timeseries.len(), 4 * ((end / 0.1).floor() as usize + 1));
    // The file, written as the run went, holds the same rows as memory.
    let mut csv = Vec::new();
    out.timeseries.to_csv(&mut csv).unwrap();
    assert_eq!(std::fs::read(dir.join("timeseries.csv")).unwrap(), csv);
    let json = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    assert_eq!(json, out.summary.to_json_pretty() + "\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn run_reports_progress_and_cancels_when_asked() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let progress = Box::new(move |f: f64| {
        log.lock().unwrap().push(f);
        true
    });
    run(
        &scenario(),
        RunOptions {
            progress: Some(progress),
            ..Default::default()
        },
    )
    .unwrap();
    let fractions = seen.lock().unwrap().clone();
    assert!(fractions.windows(2).all(|w| w[0] <= w[1]), "{fractions:?}");
    assert_eq!(fractions.last(), Some(&1.0));
    let cancel = Box::new(|f: f64| f < 0.05);
    let err = run(
        &scenario(),
        RunOptions {
            progress: Some(cancel),
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(matches!(err, RunError::Cancelled), "{err}");
}

#[test]
fn run_seed_option_overrides_the_scenario_seed() {
    let out = run(
        &scenario(),
        RunOptions {
            seed: Some(99),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(out.summary.seed, 99);
}
