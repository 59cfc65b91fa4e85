//! Outputs in bounded memory: the budget refuses runs whose time series would be too large,
//! and a series kept out of memory is still written in full.

use cclab_core::time::Dur;
use cclab_sim::{run, RunError, RunOptions, Scenario};

const SLOW_AND_LONG: &str = r#"
[scenario]
name = "slow-and-long"
duration = "1000000s"

[path.forward]
rate = "1kbps"
delay = "10ms"

[path.return]
rate = "1kbps"
delay = "10ms"

[[flow]]
source = { kind = "bulk", size = "1GB" }
"#;

#[test]
fn output_budget_refuses_a_time_series_larger_than_max_bytes() {
    // 10^6 s every 10 ms, 3 rows (a flow, two links) of 144 B: about 43 GB against 4 GB.
    let e = Scenario::from_toml_str(SLOW_AND_LONG, "long.toml", &[]).unwrap_err();
    assert_eq!(e.key_path(), Some("output.max_bytes"), "{e}");
    assert!(e.message().contains("43200 MB"), "{e}");
    // A coarser interval fits; a small explicit budget does not.
    let sets = ["output.timeseries_interval=10s".to_string()];
    let s = Scenario::from_toml_str(SLOW_AND_LONG, "long.toml", &sets).unwrap();
    let sets = [sets[0].clone(), "output.max_bytes=1MB".into()];
    let e = Scenario::from_toml_str(SLOW_AND_LONG, "long.toml", &sets).unwrap_err();
    assert_eq!(e.key_path(), Some("output.max_bytes"), "{e}");
    // The run checks again with the interval it is given.
    let opts = RunOptions {
        timeseries_interval: Some(Dur::from_millis(1)),
        ..Default::default()
    };
    assert!(matches!(run(&s, opts), Err(RunError::Budget(_))));
}

#[test]
fn output_discarded_series_is_still_written_in_full() {
    let text = SLOW_AND_LONG.replace("1000000s", "30s").replace("1kbps", "1Mbps");
    let s = Scenario::from_toml_str(&text, "short.toml", &[]).unwrap();
    let dir = std::env::temp_dir().join(format!("cclab-discard-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let kept = run(&s, RunOptions::default()).unwrap().timeseries;
    let opts = RunOptions {
        out_dir: Some(dir.clone()),
        discard_timeseries: true,
        ..Default::default()
    };
    let out = run(&s, opts).unwrap();
    assert!(out.timeseries.is_empty());
    let mut csv = Vec::new();
    kept.to_csv(&mut csv).unwrap();
    assert_eq!(kept.len(), 3 * 3001);
    assert_eq!(std::fs::read(dir.join("timeseries.csv")).unwrap(), csv);
    let _ = std::fs::remove_dir_all(&dir);
}
