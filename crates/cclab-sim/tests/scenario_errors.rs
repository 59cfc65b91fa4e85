//! Malformed scenarios and overrides: every error names the file and the key path and says
//! what was expected; nothing panics.

use cclab_sim::{Scenario, ScenarioError};

const GOOD: &str = r#"
[scenario]
name = "ok"
duration = "10s"

[path.forward]
rate = "10Mbps"
delay = "20ms"

[path.return]
rate = "1Mbps"
delay = "20ms"

[[flow]]
source = { kind = "bulk", size = "1MB" }
"#;

fn load(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_toml_str(text, "scenarios/x.toml", &sets)
}

#[track_caller]
fn fails(text: &str, sets: &[&str], key: &str, words: &str) {
    let e = load(text, sets).expect_err("must be rejected");
    assert_eq!(e.key_path(), Some(key), "{e}");
    let shown = e.to_string();
    assert!(shown.starts_with(&format!("scenarios/x.toml: {key}: ")), "{shown}");
    assert!(shown.contains(words), "{shown}");
}

#[test]
fn scenario_good_file_loads_with_defaults() {
    let s = load(GOOD, &[]).unwrap();
    assert_eq!((s.name(), s.description()), ("ok", ""));
    assert_eq!(s.config().scenario.seed, 1);
}

#[test]
fn scenario_bad_unit_names_key_and_units() {
    fails(
        &GOOD.replace("\"10Mbps\"", "\"10 furlongs\""),
        &[],
        "path.forward.rate",
        "Mbps",
    );
    fails(
        &GOOD.replace("\"10Mbps\"", "10"),
        &[],
        "path.forward.rate",
        "bare number 10",
    );
    fails(&GOOD.replace("\"10s\"", "\"10\""), &[], "scenario.duration", "unit");
}

#[test]
fn scenario_negative_rate_is_rejected() {
    fails(
        &GOOD.replace("\"1Mbps\"", "\"-1Mbps\""),
        &[],
        "path.return.rate",
        "positive",
    );
}

#[test]
fn scenario_unknown_key_is_named() {
    fails(
        &GOOD.replace("delay = \"20ms\"\n\n[path.return]", "delya = \"20ms\"\n\n[path.return]"),
        &[],
        "path.forward.delya",
        "unknown field",
    );
    fails(
        &format!("{GOOD}\n[output]\nqlgo = true\n"),
        &[],
        "output.qlgo",
        "unknown field",
    );
    fails(
        &GOOD.replace("kind = \"bulk\"", "kind = \"bulk\", sise = 3"),
        &[],
        "flow[0].source.sise",
        "expected `size`",
    );
}

#[test]
fn scenario_missing_field_is_named() {
    fails(
        &GOOD.replace("duration = \"10s\"\n", ""),
        &[],
        "scenario",
        "missing field `duration`",
    );
    fails(
        &GOOD.replace("rate = \"10Mbps\"\n", ""),
        &[],
        "path.forward.rate",
        "missing",
    );
}

#[test]
fn scenario_cross_field_rules_name_the_key() {
    let access = format!("{GOOD}access = {{ rate = \"1Gbps\", delay = \"1ms\" }}\n");
    fails(&access, &[], "flow[0].access", "dumbbell");
    fails(
        GOOD,
        &["flow[0].tcp.mss=\"1000B\""],
        "flow[0].tcp",
        "not used with profile = \"quic\"",
    );
    fails(
        GOOD,
        &["path.forward.queue={kind=\"red\",min_th=\"9KB\",max_th=\"3KB\"}"],
        "path.forward.queue",
        "min_th < max_th",
    );
    fails(
        GOOD,
        &["path.forward.loss={model=\"bernoulli\",p=1.5}"],
        "path.forward.loss",
        "between 0 and 1",
    );
}

#[test]
fn scenario_prague_over_tcp_needs_accecn() {
    // Draft-01 §2.3.1.1: Prague over TCP MUST have AccECN feedback. The TCP model feeds CE counts
    // back either way, so without `accecn` the flow used to run as if its ACKs carried them.
    let prague = ["flow[0].profile=\"tcp\"", "flow[0].cc={algorithm=\"prague\"}"];
    fails(GOOD, &prague, "flow[0].tcp.accecn", "AccECN");
    fails(
        GOOD,
        &[&prague[..], &["flow[0].tcp.accecn=false"]].concat(),
        "flow[0].tcp.accecn",
        "§2.3.1.1",
    );
    assert!(load(GOOD, &[&prague[..], &["flow[0].tcp.accecn=true"]].concat()).is_ok());
    // QUIC's ECN counts are accurate feedback (RFC 9000 §13.4.1); DCTCP (RFC 8257) has no such rule.
    assert!(load(GOOD, &prague[1..]).is_ok());
    assert!(load(GOOD, &["flow[0].profile=\"tcp\"", "flow[0].cc={algorithm=\"dctcp\"}"]).is_ok());
}

#[test]
fn scenario_set_overrides_values_and_creates_tables() {
    let s = load(
        GOOD,
        &[
            "scenario.seed=7",
            "path.forward.rate=50Mbps",
            "flow[0].cc.algorithm=cubic",
            "flow.0.start=1s",
        ],
    )
    .unwrap();
    assert_eq!(s.config().scenario.seed, 7);
    assert_eq!(
        format!("{:?}", s.config().path.forward.rate),
        "Some(Limited(Rate(50000000)))"
    );
    assert!(format!("{:?}", s.config().flow[0].cc).contains("Cubic"));
    assert_eq!(s.config().flow[0].start.0, 1_000_000_000);
}

#[test]
fn scenario_bad_set_is_an_error_not_a_panic() {
    fails(
        GOOD,
        &["path.forward.rate=fast"],
        "path.forward.rate",
        "expected a rate",
    );
    fails(
        GOOD,
        &["scenario.name.x=1"],
        "scenario.name.x",
        "scenario.name is a string, not a table",
    );
    fails(GOOD, &["flow[3].start=1s"], "flow[3].start", "out of range");
    for bad in ["novalue", "=3", "a..b=1", "flow[x]=1", "flow[0=1"] {
        let e = load(GOOD, &[bad]).expect_err(bad);
        assert!(e.to_string().starts_with("scenarios/x.toml: --set"), "{e}");
    }
}

#[test]
fn scenario_toml_syntax_error_names_the_file_and_line() {
    let e = load("[scenario\nname = 1", &[]).unwrap_err();
    assert!(
        e.to_string().starts_with("scenarios/x.toml: ") && e.to_string().contains("line 1"),
        "{e}"
    );
}

#[test]
fn scenario_errors_name_the_exact_key_and_the_set_that_caused_them() {
    // An unknown top-level table or key: named once, not doubled, and traced to its --set.
    fails(
        GOOD,
        &["nosuchtable.x=1"],
        "nosuchtable",
        "(from --set nosuchtable.x=1)",
    );
    fails(GOOD, &["duration=60s"], "duration", "(from --set duration=60s)");
    // Inside an internally tagged table, serde stops at the table; the key is the one whose value is quoted.
    fails(
        GOOD,
        &["flow[0].cc.algorithm=cubik"],
        "flow[0].cc.algorithm",
        "unknown variant `cubik`",
    );
    fails(
        &GOOD.replace(
            "delay = \"20ms\"\n\n[path.return]",
            "delay = \"20ms\"\nqueue = { kind = \"droptail\", limit_packets = \"many\" }\n\n[path.return]",
        ),
        &[],
        "path.forward.queue.limit_packets",
        "invalid type",
    );
    // A value from the file itself does not claim a --set.
    let e = load(&GOOD.replace("size = \"1MB\"", "size = \"1MB\", sise = 3"), &[]).unwrap_err();
    assert!(!e.to_string().contains("--set"), "{e}");
}

#[test]
fn scenario_packets_above_the_ip_limit_name_the_key() {
    // Issue #14: these made IP packets over 65,535 bytes without an error.
    fails(
        GOOD,
        &["flow[0].quic.max_udp_payload=65508B"],
        "flow[0].quic.max_udp_payload",
        "at most 65507B",
    );
    fails(
        GOOD,
        &["flow[0].quic={max_udp_payload=\"65528B\",ipv6=true}"],
        "flow[0].quic.max_udp_payload",
        "at most 65527B",
    );
    fails(
        GOOD,
        &["flow[0].profile=tcp", "flow[0].tcp.mss=65484B"],
        "flow[0].tcp.mss",
        "at most 65483B",
    );
    fails(
        GOOD,
        &[
            "flow[0].profile=dccp",
            "flow[0].source={kind=\"cbr\",packet_size=\"65500B\",rate=\"1Mbps\"}",
        ],
        "flow[0].source.packet_size",
        "at most 65499B",
    );
    // The largest sizes that fit are accepted.
    for set in ["flow[0].quic.max_udp_payload=65507B", "flow[0].tcp={mss=\"65483B\"}"] {
        let profile = if set.contains("tcp") { "tcp" } else { "quic" };
        load(GOOD, &[&format!("flow[0].profile={profile}"), set]).unwrap();
    }
}

#[test]
fn scenario_limits_that_never_deliver_name_the_key() {
    let never = "never lets a packet through";
    fails(
        GOOD,
        &["path.forward.queue={kind=\"droptail\",limit=\"0B\"}"],
        "path.forward.queue.limit",
        never,
    );
    fails(
        GOOD,
        &["path.return.queue={kind=\"droptail\",limit_packets=0}"],
        "path.return.queue.limit_packets",
        never,
    );
    fails(
        GOOD,
        &["path.forward.queue={kind=\"codel\",limit_packets=0}"],
        "path.forward.queue.limit_packets",
        never,
    );
    fails(
        GOOD,
        &["path.forward.queue={kind=\"red\",min_th=\"3KB\",max_th=\"9KB\",limit=\"0B\"}"],
        "path.forward.queue.limit",
        never,
    );
    fails(GOOD, &["path.forward.rate=0Mbps"], "path.forward.rate", "positive");
    fails(
        GOOD,
        &["hosts.receiver.socket_buffer=0B"],
        "hosts.receiver.socket_buffer",
        "drops every datagram",
    );
    // Both means 0 made the stall process spin forever at one instant.
    fails(
        GOOD,
        &["hosts.sender.cpu.stall={mean_interval=\"0s\",mean_duration=\"0s\"}"],
        "hosts.sender.cpu.stall.mean_interval",
        "expected at least 1.000us",
    );
    fails(
        GOOD,
        &["path.forward.cross_traffic={kind=\"cbr\",rate=\"1Mbps\",size=\"0B\"}"],
        "path.forward.cross_traffic.size",
        "1B to 65535B",
    );
    // On and off both 0 sent every packet at one instant without advancing (simulation fuzz target).
    fails(
        GOOD,
        &["path.forward.cross_traffic={kind=\"onoff\",rate=\"4Mbps\",on=\"0ms\",off=\"0s\",exponential=true}"],
        "path.forward.cross_traffic.on",
        "on period above 0",
    );
}

#[test]
fn scenario_rates_in_bit_units_load_and_byte_units_say_what_to_write() {
    // Issue #15 defect 10: cclab prints "50Mbit/s"; "50MBps" silently meant 400 Mbit/s.
    load(GOOD, &["path.forward.rate=50Mbit/s"]).unwrap();
    fails(
        GOOD,
        &["path.forward.rate=50MBps"],
        "path.forward.rate",
        "\"400Mbit/s\"",
    );
}

#[test]
fn stall_means_below_a_microsecond_are_errors_giving_the_smallest() {
    // Before: 1 ns means loaded, and the stall process drew a period per 2 ns of the run, busy or idle
    // (1.8 s of CPU per simulated second on one host).
    let stall = |i: &str, d: &str| format!("hosts.receiver.cpu.stall={{mean_interval=\"{i}\",mean_duration=\"{d}\"}}");
    let why = "expected at least 1.000us (a scheduling stall is the OS taking the core";
    fails(
        GOOD,
        &[&stall("1ns", "1ms")],
        "hosts.receiver.cpu.stall.mean_interval",
        why,
    );
    fails(
        GOOD,
        &[&stall("1ms", "999ns")],
        "hosts.receiver.cpu.stall.mean_duration",
        "got 999ns",
    );
    assert!(load(GOOD, &[&stall("1us", "1us")]).is_ok());
}

#[test]
fn batches_of_zero_segments_are_errors_not_one() {
    // Before: `max_segments = 0` loaded and ran as batches of one datagram.
    for (host, batch) in [("sender", "gso"), ("receiver", "gro")] {
        let set = format!("hosts.{host}.cpu.{batch}={{max_segments=0}}");
        fails(
            GOOD,
            &[&set],
            &format!("hosts.{host}.cpu.{batch}.max_segments"),
            "expected a nonzero u32",
        );
    }
    assert!(load(GOOD, &["hosts.sender.cpu.gso={max_segments=1}"]).is_ok());
}
