//! The qlog reader (`cclab_sim::qlog::read`) on the simulator's own traces and on arbitrary input.
//!
//! Its equality with the Python reader, float for float, is tested from Python
//! (`tests/python/doctor/test_qlog_rust.py`); here: what it reads agrees with the run's own counters, gzip
//! and plain give the same tables, and (the proptest twin of fuzz target `qlog_read`) no input panics it.

use cclab_sim::qlog::read::{read_seq, read_seq_from, ReadError};
use cclab_sim::{run, QlogMode, RunOptions, Scenario};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// A lossy 20 Mbit/s path: losses, PTOs (bursts of ~20 lost packets) and recovery within 0.5 s.
const LOSSY: &str = r#"
[scenario]
name = "lossy"
duration = "0.5s"

[path.forward]
rate = "20Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = "60KB" }
loss = { model = "gilbert-elliott", p = 0.05, r = 0.05 }

[path.return]
rate = "20Mbps"
delay = "10ms"

[[flow]]
source = { kind = "bulk", size = "10MB" }
cc = { algorithm = "cubic" }
"#;

fn run_to(name: &str, extra: &[&str], qlog: QlogMode) -> (PathBuf, cclab_sim::summary::Summary) {
    let dir = std::env::temp_dir().join(format!("cclab-qlog-read-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let overrides: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let s = Scenario::from_toml_str(LOSSY, "lossy.toml", &overrides).unwrap();
    let out = run(
        &s,
        RunOptions {
            out_dir: Some(dir.clone()),
            qlog,
            ..Default::default()
        },
    )
    .unwrap();
    (dir, out.summary)
}

#[test]
fn qlog_read_tables_agree_with_the_run_summary() {
    for (name, mode) in [("draft02", QlogMode::Draft02), ("ietf", QlogMode::Ietf)] {
        let (dir, summary) = run_to(name, &[], mode);
        let flow = &summary.flows[0];
        let sender = read_seq(&dir.join("trace.sqlog"), None).unwrap();
        let receiver = read_seq(&dir.join("trace-receiver.sqlog"), None).unwrap();
        assert_eq!(sender.sent.len() as u64, flow.data_packets_sent, "{name}");
        assert_eq!(sender.lost.len() as u64, flow.lost_packets, "{name}");
        assert!(
            flow.lost_packets > 10 && !sender.pto_expired_s.is_empty(),
            "{name}: the path must lose"
        );
        let ack_only = receiver.sent.names.iter().position(|&n| n == "ack_only").unwrap();
        let acks_sent = receiver.sent.columns[ack_only].iter().filter(|&&v| v == 1.0).count() as u64;
        assert_eq!(acks_sent, flow.acks_sent, "{name}");
        // Every data packet the receiver got was acknowledged to the sender, or is still in flight.
        let newly = sender.acks.names.iter().position(|&n| n == "newly_acked").unwrap();
        let acked: f64 = sender.acks.columns[newly].iter().sum();
        assert!(acked > 0.0 && acked <= sender.sent.len() as f64, "{name}");
        assert_eq!(sender.vantage, "client");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn qlog_read_gzip_gives_the_plain_tables() {
    let (plain, _) = run_to("plain", &[], QlogMode::Draft02);
    let (gz, _) = run_to("gz", &["output.qlog_compression=\"gzip\""], QlogMode::Draft02);
    let a = read_seq(&plain.join("trace.sqlog"), None).unwrap();
    let b = read_seq(&gz.join("trace.sqlog.gz"), None).unwrap();
    // Debug text: NaN (metrics before their first value) compares unequal to itself under `==`.
    assert!(format!("{a:?}") == format!("{b:?}"), "gzip and plain tables differ");
    assert!(a.sent.len() > 100);
    // A cut gzip file is an error that names it, not a panic or a short table.
    let bytes = std::fs::read(gz.join("trace.sqlog.gz")).unwrap();
    let err = read_seq_from(std::io::Cursor::new(bytes[..bytes.len() / 2].to_vec()), None).unwrap_err();
    assert!(err.message(Path::new("cut.sqlog.gz")).contains("gzip"), "{err:?}");
    let _ = std::fs::remove_dir_all(&plain);
    let _ = std::fs::remove_dir_all(&gz);
}

#[test]
fn qlog_read_errors_name_the_line() {
    let header = "\x1e{\"trace\": {}}\n";
    let cases = [
        (
            format!("{header}\x1e{{\"time\": 1, \"name\": \"a:b\"}}\n\x1e{{\"time\": 2, \"na"),
            3,
            "truncated record",
        ),
        (
            format!("{header}\x1e{{\"time\": 1 \"name\": \"a:b\"}}\n"),
            2,
            "malformed record",
        ),
        (format!("{header}\x1e[1]\n"), 2, "record is not a JSON object"),
        (
            format!("{header}\x1e{{\"name\": \"x\"}}\n"),
            2,
            "without a name and a numeric time",
        ),
        (
            format!("{header}\x1e{{\"time\": 1, \"name\": \"packet_sent\", \"data\": {{\"frames\": 5}}}}\n"),
            2,
            "not read in Rust",
        ),
        ("\x1e{\"title\": 1}\n".to_string(), 1, "not a qlog header"),
    ];
    for (text, line, what) in cases {
        let err = read_seq_from(std::io::Cursor::new(text.into_bytes()), None).unwrap_err();
        let msg = err.message(Path::new("x.sqlog"));
        assert!(
            msg.starts_with(&format!("x.sqlog:{line}: ")) && msg.contains(what),
            "{msg}"
        );
    }
    let err = read_seq_from(std::io::Cursor::new(b"{\"traces\": []}".to_vec()), None).unwrap_err();
    assert!(matches!(err, ReadError::NotSeq));
    let err = read_seq_from(std::io::Cursor::new(header.as_bytes().to_vec()), None).unwrap_err();
    assert!(err.message(Path::new("x.sqlog")).contains("no qlog events"));
}

proptest! {
    /// Twin of fuzz target `qlog_read`: records built from qlog-like pieces, cut and spliced anywhere.
    #[test]
    fn qlog_read_never_panics(pieces in prop::collection::vec(prop::sample::select(vec![
        "\x1e", "\n", "\r", "{", "}", "[", "]", ",", ":", "\"time\"", "\"name\"", "\"data\"", "\"frames\"",
        "\"header\"", "\"packet_number\"", "\"acked_ranges\"", "\"frame_type\"", "\"ack\"", "\"stream\"",
        "\"transport:packet_sent\"", "\"packet_received\"", "\"packet_lost\"", "\"metrics_updated\"",
        "\"smoothed_rtt\"", "\"trace\"", "0", "-0", "1.5", "0.333", "1e400", "18446744073709551616", "-3", "null",
        "true", "\"\\ud800\"", "\"x\"", " ",
    ]), 0..200), cut in 0usize..2000) {
        let text: String = pieces.concat();
        let bytes = text.as_bytes();
        let bytes = &bytes[..cut.min(bytes.len())];
        match read_seq_from(std::io::Cursor::new(bytes.to_vec()), None) {
            Ok(t) => {
                prop_assert!(t.event_counts.iter().map(|(_, n)| n).sum::<u64>() > 0);
                for table in [&t.sent, &t.received, &t.metrics, &t.lost, &t.acks] {
                    prop_assert!(table.columns.iter().all(|c| c.len() == table.len()));
                }
            }
            Err(e) => prop_assert!(e.message(Path::new("p.sqlog")).starts_with("p.sqlog")),
        }
    }
}
