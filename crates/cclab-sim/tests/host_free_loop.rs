//! A host whose CPU costs nothing runs a loop of its own (`host/free.rs`) that skips the job
//! bookkeeping; it must call the endpoints exactly as the general loop does. An idle state with
//! no exit latency changes nothing in the model but sends a host through the general loop, so the
//! two runs below must give byte-identical outputs.
//!
//! ```text
//!  p2p:      [20 senders] ──20 Mbps, 5 ms──▶ [20 receivers]   (more than 16 endpoints per host)
//!  dumbbell: [S0..S2] ─1 Gbps─▶ ──20 Mbps, 5 ms, RED/ECN──▶ ─▶ [R0..R2]
//! ```

use cclab_sim::{run, QlogMode, RunOptions, Scenario};
use std::path::{Path, PathBuf};

/// Sends both hosts through the general loop without changing what they do.
const GENERAL_LOOP: &str = r#"
[hosts.sender]
cpu = { idle_states = [{ residency = "1us", exit_latency = "0s" }] }
[hosts.receiver]
cpu = { idle_states = [{ residency = "1us", exit_latency = "0s" }] }
"#;

fn p2p_many_flows() -> String {
    let mut s = String::from(
        "[scenario]\nname = \"p2p\"\nduration = \"2s\"\n\
         [path.forward]\nrate = \"20Mbps\"\ndelay = \"5ms\"\nqueue = { kind = \"droptail\", limit = \"60KB\" }\n\
         [path.return]\nrate = \"20Mbps\"\ndelay = \"5ms\"\n",
    );
    for k in 0..20 {
        let cc = ["newreno", "cubic", "bbr"][k % 3];
        s += &format!(
            "[[flow]]\nstart = \"{}ms\"\nsource = {{ kind = \"bulk\", size = \"200KB\" }}\ncc = {{ algorithm = \"{cc}\" }}\n",
            k * 20
        );
    }
    s
}

const DUMBBELL: &str = r#"
[scenario]
name = "dumbbell"
duration = "2s"
topology = "dumbbell"

[path.forward]
rate = "20Mbps"
delay = "5ms"
queue = { kind = "red", min_th = "15KB", max_th = "45KB", ecn = true }

[path.return]
rate = "20Mbps"
delay = "5ms"

[[flow]]
source = { kind = "bulk", size = "1MB" }
cc = { algorithm = "cubic" }
sender = { ecn = true }
access = { rate = "1Gbps", delay = "1ms" }

[[flow]]
start = "50ms"
source = { kind = "bulk", size = "1MB" }
cc = { algorithm = "bbr" }
access = { rate = "1Gbps", delay = "3ms" }

[[flow]]
start = "80ms"
profile = "tcp"
source = { kind = "bulk", size = "1MB" }
cc = { algorithm = "newreno" }
access = { rate = "1Gbps", delay = "2ms" }
"#;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cclab-free-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs `toml` into `dir` with qlog on; returns the summary without its CPU-time fields and
/// without the host CPU keys (`cpu_utilisation_*`, `cpu_waking_*`: written only when a host has a
/// CPU model, always 0 here).
fn run_to(toml: &str, dir: &Path) -> String {
    let s = Scenario::from_toml_str(toml, "free.toml", &[]).unwrap();
    let opts = RunOptions {
        out_dir: Some(dir.to_path_buf()),
        qlog: QlogMode::Draft02,
        ..Default::default()
    };
    let json = run(&s, opts).unwrap().summary.deterministic_json();
    json.lines()
        .filter(|l| !l.contains("\"cpu_"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn assert_loops_agree(name: &str, toml: &str) {
    let (a, b) = (tmp(&format!("{name}-free")), tmp(&format!("{name}-general")));
    let free = run_to(toml, &a);
    let general = run_to(&format!("{toml}{GENERAL_LOOP}"), &b);
    assert!(free.contains("\"completion_time_s\""), "{name}: no flow completed");
    let first_diff = free.lines().zip(general.lines()).find(|(x, y)| x != y);
    assert_eq!(first_diff, None, "{name}: summaries differ");
    assert_eq!(free.len(), general.len(), "{name}: summaries differ in length");
    let mut files: Vec<_> = std::fs::read_dir(&a).unwrap().map(|e| e.unwrap().file_name()).collect();
    files.sort();
    assert!(files.len() >= 3, "{name}: {files:?}");
    for f in files.iter().filter(|f| *f != "summary.json") {
        let (x, y) = (std::fs::read(a.join(f)).unwrap(), std::fs::read(b.join(f)).unwrap());
        assert!(x.len() > 1000, "{name}: {f:?} is too small to prove anything");
        assert!(x == y, "{name}: {f:?} differs");
    }
    for d in [a, b] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn host_free_loop_matches_general_loop_with_many_endpoints_per_host() {
    assert_loops_agree("p2p", &p2p_many_flows());
}

#[test]
fn host_free_loop_matches_general_loop_on_a_dumbbell() {
    assert_loops_agree("dumbbell", DUMBBELL);
}
