//! Plain traces go to disk with `O_DIRECT` in blocks the qlog writer hands over whole
//! (`qlog::DirectFile`): the file must hold exactly the bytes the buffered gzip path writes, across
//! several blocks and the unaligned end.

use cclab_sim::{run, QlogMode, RunOptions, Scenario};
use flate2::read::GzDecoder;
use std::io::Read;
use std::path::PathBuf;

const BULK: &str = r#"
[scenario]
name = "direct"
duration = "2s"

[path.forward]
rate = "1Gbps"
delay = "1ms"
queue = { kind = "droptail", limit = "250KB" }

[path.return]
rate = "1Gbps"
delay = "1ms"

[[flow]]
source = { kind = "bulk", size = "20MB" }
"#;

fn traced_run(sets: &[String], name: &str) -> PathBuf {
    let s = Scenario::from_toml_str(BULK, "direct.toml", sets).unwrap_or_else(|e| panic!("{e}"));
    let dir = std::env::temp_dir().join(format!("cclab-direct-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = RunOptions {
        out_dir: Some(dir.clone()),
        qlog: QlogMode::Ietf,
        ..Default::default()
    };
    let out = run(&s, opts).unwrap();
    assert!(out.summary.sim.cpu_s > 0.0);
    dir
}

#[test]
fn qlog_direct_trace_holds_the_bytes_of_the_buffered_path() {
    let plain = traced_run(&[], "plain");
    let gz = traced_run(&["output.qlog_compression=\"gzip\"".into()], "gzip");
    for name in ["trace.sqlog", "trace-receiver.sqlog"] {
        let got = std::fs::read(plain.join(name)).unwrap();
        let mut want = Vec::new();
        let packed = std::fs::read(gz.join(format!("{name}.gz"))).unwrap();
        GzDecoder::new(&packed[..]).read_to_end(&mut want).unwrap();
        // Several of the direct path's ~2 MB blocks, and an end that is not a whole page.
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
