//! `[output] qlog_window`: a trace of a time window of a long run.

use cclab_sim::{run, QlogMode, RunOptions, Scenario};

const BULK: &str = r#"
[scenario]
name = "window"
duration = "2s"

[path.forward]
rate = "20Mbps"
delay = "10ms"

[path.return]
rate = "20Mbps"
delay = "10ms"

[[flow]]
source = { kind = "bulk", size = "2MB" }
"#;

/// Event times (ms) of the records after the header in `text`.
fn event_times_ms(text: &str) -> Vec<f64> {
    text.split('\u{1e}')
        .filter(|r| !r.trim().is_empty())
        .skip(1)
        .map(|r| {
            serde_json::from_str::<serde_json::Value>(r).unwrap()["time"]
                .as_f64()
                .unwrap()
        })
        .collect()
}

fn sender_trace(sets: &[String], name: &str) -> String {
    let s = Scenario::from_toml_str(BULK, "window.toml", sets).unwrap_or_else(|e| panic!("{e}"));
    let dir = std::env::temp_dir().join(format!("cclab-window-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = RunOptions {
        out_dir: Some(dir.clone()),
        qlog: QlogMode::Draft02,
        ..Default::default()
    };
    run(&s, opts).unwrap();
    let text = std::fs::read_to_string(dir.join("trace.sqlog")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    text
}

#[test]
fn qlog_window_keeps_only_events_inside_it() {
    let full = event_times_ms(&sender_trace(&[], "full"));
    let window = event_times_ms(&sender_trace(
        &["output.qlog_window=[\"200ms\", \"400ms\"]".into()],
        "part",
    ));
    // The parameter events at time 0 open every trace; then only events in [200, 400) ms.
    let inside: Vec<f64> = window.iter().copied().filter(|&t| t > 0.0).collect();
    assert!(
        !inside.is_empty() && inside.iter().all(|&t| (200.0..400.0).contains(&t)),
        "{inside:?}"
    );
    let expected = full.iter().filter(|&&t| (200.0..400.0).contains(&t)).count();
    // Metrics records may differ by their first one (written in full in the window); packets do not.
    assert!(inside.len().abs_diff(expected) <= 1, "{} vs {expected}", inside.len());
    assert!(full.len() > 2 * window.len());
}

#[test]
fn qlog_window_must_start_before_it_ends() {
    let sets = ["output.qlog_window=[\"2s\", \"1s\"]".to_string()];
    let e = Scenario::from_toml_str(BULK, "window.toml", &sets).unwrap_err();
    assert_eq!(e.key_path(), Some("output.qlog_window"), "{e}");
}
