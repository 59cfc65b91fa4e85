//! quinn-bulk end to end on loopback: both directions move exactly N bytes, both sides report,
//! and `--qlog` leaves one qlog per connection with quinn's recovery metrics.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_quinn-bulk");

/// The server child, killed if the test fails before it exits by itself.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quinn-bulk-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Starts `server --once` on an ephemeral port and returns it with its address.
fn server(qlog: &Path, cc: &str) -> (Server, String) {
    let mut child = Command::new(BIN)
        .args(["server", "--listen", "127.0.0.1:0", "--once", "--cc", cc, "--qlog"])
        .arg(qlog)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn server");
    let mut first = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let addr = first
        .trim()
        .strip_prefix("quinn-bulk: listening on ")
        .expect(&first)
        .to_string();
    (Server(child), addr)
}

fn field(line: &str, key: &str) -> String {
    let start = line
        .find(&format!("\"{key}\":"))
        .unwrap_or_else(|| panic!("{key} in {line}"))
        + key.len()
        + 3;
    line[start..]
        .split([',', '}'])
        .next()
        .unwrap()
        .trim_matches('"')
        .to_string()
}

fn transfer(direction: &str, cc: &str) {
    let qlog = scratch(&format!("{direction}-{cc}"));
    let (mut server, addr) = server(&qlog, cc);
    let out = Command::new(BIN)
        .args([
            "client",
            "--connect",
            &addr,
            "--bytes",
            "3M",
            "--timeout",
            "30",
            "--cc",
            cc,
        ])
        .args(["--direction", direction, "--qlog"])
        .arg(&qlog)
        .output()
        .expect("run client");
    assert!(out.status.success(), "client: {}", String::from_utf8_lossy(&out.stderr));
    let client = String::from_utf8(out.stdout).unwrap();
    assert_eq!(field(&client, "bytes"), "3000000", "{client}");
    assert_eq!(field(&client, "cc"), cc);
    assert!(field(&client, "goodput_bps").parse::<f64>().unwrap() > 0.0);

    let status = server.0.wait().expect("server exits after --once");
    assert!(status.success());
    let mut server_out = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut server_out)
        .unwrap();
    assert_eq!(field(&server_out, "bytes"), "3000000", "{server_out}");
    assert_eq!(field(&server_out, "direction"), direction);

    let mut names: Vec<String> = std::fs::read_dir(&qlog)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(
        names[0].starts_with("client-") && names[1].starts_with("server-"),
        "{names:?}"
    );
    // The sender's qlog carries its congestion window: the data the emulate harness ingests.
    let sender = if direction == "upload" { &names[0] } else { &names[1] };
    let text = std::fs::read_to_string(qlog.join(sender)).unwrap();
    assert!(text.contains("\"qlog_format\":\"JSON-SEQ\""));
    assert!(text.contains("recovery:metrics_updated") && text.contains("congestion_window"));
    std::fs::remove_dir_all(&qlog).unwrap();
}

#[test]
fn upload_moves_exact_bytes_and_writes_qlog() {
    transfer("upload", "cubic");
}

#[test]
fn download_moves_exact_bytes_with_newreno() {
    transfer("download", "newreno");
}

#[test]
fn client_without_server_fails_with_a_clear_error() {
    let out = Command::new(BIN)
        .args([
            "client",
            "--connect",
            "127.0.0.1:9",
            "--bytes",
            "1k",
            "--idle-timeout",
            "1",
            "--timeout",
            "5",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot connect to 127.0.0.1:9") || err.contains("--timeout"),
        "{err}"
    );
}
