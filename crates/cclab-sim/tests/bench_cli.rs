//! `cclab-bench`'s command line: `--repeat N` runs a case N times and reports its cheapest run with the
//! median beside it; a count it cannot use is a usage error, not a panic.

use std::process::Command;

fn bench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cclab-bench"))
        .args(args)
        .output()
        .expect("cclab-bench runs")
}

fn tiny() -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("cclab-bench-cli-{}.toml", std::process::id()));
    std::fs::write(
        &path,
        "[scenario]\nname = \"tiny\"\nduration = \"1s\"\n[path.forward]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n\
         [path.return]\nrate = \"10Mbps\"\ndelay = \"5ms\"\n[[flow]]\nsource = { kind = \"bulk\", size = \"100KB\" }\n",
    )
    .unwrap();
    path
}

#[test]
fn repeat_reports_the_cheapest_run_and_the_median() {
    let path = tiny();
    let once = bench(&["--scenario", path.to_str().unwrap()]);
    assert!(once.status.success(), "{once:?}");
    let once = String::from_utf8(once.stdout).unwrap();
    assert!(once.contains("ns/pkt") && !once.contains("median"), "{once}");

    let thrice = bench(&["--repeat", "3", "--scenario", path.to_str().unwrap()]);
    assert!(thrice.status.success(), "{thrice:?}");
    let thrice = String::from_utf8(thrice.stdout).unwrap();
    assert!(thrice.contains("median of 3"), "{thrice}");
    // The runs are the same simulation: the cheapest one reports the same events and packets as a single run.
    let counts = |line: &str| {
        let words: Vec<&str> = line.split_whitespace().collect();
        let before = |w: &str| words[words.iter().position(|x| *x == w).unwrap() - 1].to_owned();
        (before("events"), before("pkts"))
    };
    assert_eq!(counts(&once), counts(&thrice));
    let _ = std::fs::remove_file(path);
}

#[test]
fn repeat_counts_it_cannot_use_are_usage_errors() {
    for bad in ["0", "-1", "x", "1001"] {
        let out = bench(&["--repeat", bad, "--scenario", "/nonexistent.toml"]);
        assert_eq!(out.status.code(), Some(2), "--repeat {bad}: {out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(&format!("--repeat {bad}")), "{err}");
    }
}
