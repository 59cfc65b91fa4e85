//! `[output] qlog_compression = "gzip"`: `trace.sqlog.gz` holds exactly the bytes of the plain trace;
//! and a plain trace, which goes to disk with `O_DIRECT` in blocks the qlog writer hands over whole
//! (`qlog::DirectFile`), holds exactly the bytes of the buffered gzip path.

use cclab_sim::{run, QlogMode, RunOptions, Scenario};
use flate2::read::GzDecoder;
use std::io::Read;
use std::path::PathBuf;

const BULK: &str = r#"
[scenario]
name = "gz"
duration = "2s"

[path.forward]
rate = "20Mbps"
delay = "10ms"
queue = { kind = "droptail", limit = "30KB" }

[path.return]
rate = "20Mbps"
delay = "10ms"

[[flow]]
source = { kind = "bulk", size = "1MB" }
"#;

/// Runs `BULK` with `sets` and qlog on into a fresh directory.
fn traced_run(sets: &[String], name: &str, format: QlogMode) -> PathBuf {
    let s = Scenario::from_toml_str(BULK, "gz.toml", sets).unwrap_or_else(|e| panic!("{e}"));
    let dir = std::env::temp_dir().join(format!("cclab-gz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = RunOptions {
        out_dir: Some(dir.clone()),
        qlog: format,
        ..Default::default()
    };
    run(&s, opts).unwrap();
    dir
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    GzDecoder::new(bytes).read_to_end(&mut out).unwrap();
    out
}

#[test]
fn qlog_gzip_decompresses_to_the_plain_trace() {
    for (format, tag) in [(QlogMode::Draft02, "v03"), (QlogMode::Ietf, "ietf")] {
        let plain = traced_run(&[], &format!("plain-{tag}"), format);
        let gz = traced_run(
            &["output.qlog_compression=\"gzip\"".into()],
            &format!("gzip-{tag}"),
            format,
        );
        for name in ["trace.sqlog", "trace-receiver.sqlog"] {
            let want = std::fs::read(plain.join(name)).unwrap();
            let packed = std::fs::read(gz.join(format!("{name}.gz"))).unwrap();
            assert!(!gz.join(name).exists(), "{name}: a gzip run writes no plain trace");
            // RFC 1952 §2.3.1: ID1 ID2 = 1f 8b, CM = 8 (deflate).
            assert_eq!(packed[..3], [0x1f, 0x8b, 8], "{name}");
            assert!(
                want.len() > 100_000,
                "{name}: {} bytes, too short a trace to test",
                want.len()
            );
            assert!(
                packed.len() * 4 < want.len(),
                "{name}: {} of {} bytes",
                packed.len(),
                want.len()
            );
            assert!(
                gunzip(&packed) == want,
                "{name} ({tag}): decompressed bytes differ from the plain trace"
            );
        }
        let _ = std::fs::remove_dir_all(&plain);
        let _ = std::fs::remove_dir_all(&gz);
    }
}

#[test]
fn qlog_direct_trace_holds_the_bytes_of_the_buffered_path() {
    // 20 MB at 1 Gbit/s: several of the direct path's ~2 MB blocks per trace.
    let big: Vec<String> = [
        "path.forward.rate=\"1Gbps\"",
        "path.return.rate=\"1Gbps\"",
        "path.forward.delay=\"1ms\"",
        "path.return.delay=\"1ms\"",
        "path.forward.queue.limit=\"250KB\"",
        "flow[0].source.size=\"20MB\"",
    ]
    .map(String::from)
    .into();
    let plain = traced_run(&big, "direct-plain", QlogMode::Ietf);
    let gz_sets = [&big[..], &["output.qlog_compression=\"gzip\"".to_string()]].concat();
    let gz = traced_run(&gz_sets, "direct-gzip", QlogMode::Ietf);
    for name in ["trace.sqlog", "trace-receiver.sqlog"] {
        let got = std::fs::read(plain.join(name)).unwrap();
        let want = gunzip(&std::fs::read(gz.join(format!("{name}.gz"))).unwrap());
        assert!(
            want.len() > 4_200_000,
            "{name}: {} bytes, too short to test",
            want.len()
        );
        assert_ne!(want.len() % 4096, 0, "{name}: pick a size whose trace ends mid-page");
        assert!(
            got == want,
            "{name}: {} bytes, the buffered path {}",
            got.len(),
            want.len()
        );
    }
    let _ = std::fs::remove_dir_all(&plain);
    let _ = std::fs::remove_dir_all(&gz);
}

#[test]
fn qlog_gzip_is_deterministic() {
    let sets = ["output.qlog_compression=\"gzip\"".to_string()];
    let a = traced_run(&sets, "det-a", QlogMode::Draft02);
    let b = traced_run(&sets, "det-b", QlogMode::Draft02);
    let read = |d: &PathBuf| std::fs::read(d.join("trace.sqlog.gz")).unwrap();
    assert!(read(&a) == read(&b), "the same run gave different gzip bytes");
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

#[test]
fn qlog_compression_rejects_unknown_names() {
    let sets = ["output.qlog_compression=\"zip\"".to_string()];
    let e = Scenario::from_toml_str(BULK, "gz.toml", &sets).unwrap_err();
    assert_eq!(e.key_path(), Some("output.qlog_compression"), "{e}");
    assert!(e.to_string().contains("gzip"), "{e}");
}
