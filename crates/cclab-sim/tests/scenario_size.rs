//! Scenario text is bounded before the TOML parser reads it (the parser held ~80 bytes of memory per byte of
//! text: a 50 MB file took 4.1 GB). What real scenarios need still loads: 10,000 flows written as 10,000
//! `[[flow]]` tables.

use cclab_sim::{load_scenario, Scenario, MAX_SCENARIO_BYTES};

const HEAD: &str = r#"
[scenario]
name = "size"
duration = "1s"
topology = "dumbbell"

[path.forward]
rate = "1Gbps"
delay = "10ms"

[path.return]
rate = "1Gbps"
delay = "10ms"
"#;

/// One flow as a table of its own, with the keys a hand-written or generated file gives each flow.
fn flow_table(i: usize) -> String {
    format!(
        "[[flow]]\nname = \"client-{i:05}\"\nstart = \"{i}us\"\nprofile = \"quic\"\n\
         source = {{ kind = \"cbr\", packet_size = \"1200B\", rate = \"10Mbps\", duration = \"900ms\" }}\n\
         cc = {{ algorithm = \"cubic\" }}\nsender = {{ packet_threshold = 3 }}\n"
    )
}

#[track_caller]
fn assert_size_error(shown: &str, origin: &str, bytes: &str) {
    assert!(shown.starts_with(&format!("{origin}: {bytes}")), "{shown}");
    for words in [format!("limit of {MAX_SCENARIO_BYTES} bytes"), "count = N".to_string()] {
        assert!(shown.contains(&words), "{words:?} not in {shown}");
    }
}

#[test]
fn scenario_size_ten_thousand_flow_tables_load() {
    let text: String = std::iter::once(HEAD.to_string())
        .chain((0..10_000).map(flow_table))
        .collect();
    assert!(text.len() > 2_000_000, "{} bytes", text.len());
    let s = Scenario::from_toml_str(&text, "many.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.config().flow.len(), 10_000);
}

#[test]
fn scenario_size_over_the_limit_is_refused_before_parsing() {
    // Valid TOML throughout: a comment longer than the limit loaded (and was parsed) before.
    let mut text = format!("{HEAD}{}", flow_table(0));
    let comment = MAX_SCENARIO_BYTES as usize + 1 - text.len() - 2;
    text.push('#');
    text.push_str(&"x".repeat(comment));
    text.push('\n');
    let e = Scenario::from_toml_str(&text, "big.toml", &[]).expect_err("over the limit");
    assert_eq!(e.key_path(), None);
    assert_size_error(
        &e.to_string(),
        "big.toml",
        &format!("{} bytes,", MAX_SCENARIO_BYTES + 1),
    );
    text.truncate(text.len() - 2);
    text.push('\n');
    assert!(
        Scenario::from_toml_str(&text, "big.toml", &[]).is_ok(),
        "at the limit it loads"
    );
}

#[test]
fn scenario_size_counts_set_values() {
    let text = format!("{HEAD}{}", flow_table(0));
    let long = format!("scenario.description=\"{}\"", "d".repeat(MAX_SCENARIO_BYTES as usize));
    let e = Scenario::from_toml_str(&text, "s.toml", std::slice::from_ref(&long)).expect_err("over the limit");
    let shown = e.to_string();
    assert_size_error(
        &shown,
        "s.toml",
        &format!("{} bytes and {} bytes of --set values", text.len(), long.len()),
    );
}

#[test]
fn scenario_size_file_is_refused_by_its_size_before_reading() {
    let dir = std::env::temp_dir().join(format!("cclab-scenario-size-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sparse.toml");
    // A sparse file: its zeros would be read (and fail to parse as TOML) if the size were not checked first.
    std::fs::File::create(&path)
        .and_then(|f| f.set_len(MAX_SCENARIO_BYTES * 4))
        .unwrap();
    let e = load_scenario(&path, &[]).expect_err("over the limit");
    std::fs::remove_dir_all(&dir).unwrap();
    assert_size_error(
        &e.to_string(),
        &path.display().to_string(),
        &format!("{} bytes,", MAX_SCENARIO_BYTES * 4),
    );
}

#[cfg(unix)]
#[test]
fn scenario_size_endless_stream_stops_one_byte_past_the_limit() {
    // A device has no size to check first; reading it to the end never finished.
    let e = load_scenario(std::path::Path::new("/dev/zero"), &[]).expect_err("over the limit");
    assert_size_error(
        &e.to_string(),
        "/dev/zero",
        &format!("{} bytes,", MAX_SCENARIO_BYTES + 1),
    );
}
