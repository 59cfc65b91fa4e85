//! A qlog file that cannot be written fails the run with that file's path, whether the write fails
//! while the run goes on (the endpoints write their traces themselves, as trace sinks) or when the
//! last records go out at the end.

use cclab_sim::{run, QlogMode, RunError, RunOptions, Scenario};
use std::path::PathBuf;

const BULK: &str = r#"
[scenario]
name = "write-error"
duration = "2s"

[path.forward]
rate = "20Mbps"
delay = "10ms"

[path.return]
rate = "20Mbps"
delay = "10ms"

[[flow]]
source = { kind = "bulk", size = "SIZE" }
"#;

/// Runs a bulk transfer of `size` with the trace file `broken` pointing at `/dev/full` (every write
/// fails with ENOSPC); returns the error and the path of the broken file.
fn run_with_full_disk(size: &str, broken: &str) -> (RunError, PathBuf) {
    let text = BULK.replace("SIZE", size);
    let s = Scenario::from_toml_str(&text, "write-error.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let dir = std::env::temp_dir().join(format!("cclab-qlog-full-{broken}-{size}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(broken);
    std::os::unix::fs::symlink("/dev/full", &path).unwrap();
    let opts = RunOptions {
        out_dir: Some(dir.clone()),
        qlog: QlogMode::Draft02,
        ..Default::default()
    };
    let err = run(&s, opts).expect_err("a trace on a full disk must fail the run");
    let _ = std::fs::remove_dir_all(&dir);
    (err, path)
}

/// The run with `broken` on a full disk fails with that file's path and ENOSPC.
fn assert_fails_naming(size: &str, broken: &str) {
    let (err, path) = run_with_full_disk(size, broken);
    match err {
        RunError::Io { path: p, source } => {
            assert_eq!(p, path);
            assert_eq!(source.kind(), std::io::ErrorKind::StorageFull, "{source}");
        }
        other => panic!("expected an I/O error, got {other}"),
    }
}

#[test]
fn qlog_write_error_mid_run_names_the_file() {
    // 2 MB: the receiver's trace passes the writer's 256 KB chunk during the run.
    assert_fails_naming("2MB", "trace-receiver.sqlog");
}

#[test]
fn qlog_write_error_at_the_end_names_the_file() {
    // 20 KB: the sender's trace fits in one chunk, written when the run ends.
    assert_fails_naming("20KB", "trace.sqlog");
}
