//! `[output] qlog_flows`: traces of chosen flows of a many-flow run, the same bytes as when every
//! flow is traced, and a run that is otherwise unchanged.

use cclab_sim::{run, QlogMode, RunOptions, Scenario};
use std::path::{Path, PathBuf};

const THREE: &str = r#"
[scenario]
name = "chosen"
duration = "1s"

[path.forward]
rate = "50Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = "60KB" }

[path.return]
rate = "50Mbps"
delay = "5ms"

[[flow]]
count = 3
stagger = "20ms"
source = { kind = "bulk", size = "1MB" }
cc = { algorithm = "cubic" }
"#;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cclab-qflows-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs THREE with `sets` into `dir`, tracing; returns its summary without the machine's timings.
fn run_to(dir: &Path, sets: &[String]) -> String {
    let s = Scenario::from_toml_str(THREE, "chosen.toml", sets).unwrap_or_else(|e| panic!("{e}"));
    let opts = RunOptions {
        out_dir: Some(dir.to_path_buf()),
        qlog: QlogMode::Draft02,
        ..Default::default()
    };
    run(&s, opts).unwrap().summary.deterministic_json()
}

fn traces(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("sqlog"))
        .collect();
    names.sort();
    names
}

#[test]
fn qlog_flows_traces_only_the_flows_listed_and_changes_nothing_else() {
    let (all, two) = (tmp("all"), tmp("two"));
    let sum_all = run_to(&all, &[]);
    let sum_two = run_to(&two, &["output.qlog_flows=[2, 0]".into()]);
    assert_eq!(traces(&all).len(), 6);
    assert_eq!(
        traces(&two),
        [
            "trace-flow0.sqlog",
            "trace-flow2.sqlog",
            "trace-receiver-flow0.sqlog",
            "trace-receiver-flow2.sqlog"
        ]
    );
    for name in traces(&two) {
        let (a, b) = (
            std::fs::read(all.join(&name)).unwrap(),
            std::fs::read(two.join(&name)).unwrap(),
        );
        assert!(a.len() > 10_000, "{name}: {} bytes", a.len());
        assert!(
            a == b,
            "{name} differs from the trace of the run that traced every flow"
        );
    }
    assert_eq!(sum_all, sum_two, "tracing fewer flows changed the run");
    let _ = (std::fs::remove_dir_all(&all), std::fs::remove_dir_all(&two));
}

#[test]
fn qlog_flows_must_name_existing_flows_once() {
    let err = |v: &str| {
        let sets = [format!("output.qlog_flows={v}")];
        let e = Scenario::from_toml_str(THREE, "chosen.toml", &sets).unwrap_err();
        (e.key_path().map(str::to_string), e.to_string())
    };
    let (key, msg) = err("[1, 3]");
    assert_eq!(key.as_deref(), Some("output.qlog_flows[1]"), "{msg}");
    assert!(msg.contains("below 3"), "{msg}");
    let (key, msg) = err("[1, 2, 1]");
    assert_eq!(key.as_deref(), Some("output.qlog_flows[2]"), "{msg}");
    assert!(msg.contains("twice"), "{msg}");
    let (key, _) = err("[]");
    assert_eq!(key.as_deref(), Some("output.qlog_flows"));
    let (key, _) = err("[-1]");
    assert!(key.is_some_and(|k| k.starts_with("output.qlog_flows")));
}
