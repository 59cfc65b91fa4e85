//! What kernel mode says it ignores: keys Linux TCP cannot be given, named before the run, so that a
//! kernel run is never compared with a simulation that used a parameter the kernel silently did not.

use cclab_kernel::notices;
use cclab_sim::Scenario;

const TCP: &str = r#"
[scenario]
name = "notices"
duration = "1s"
[path.forward]
rate = "10Mbps"
delay = "5ms"
[path.return]
rate = "10Mbps"
delay = "5ms"
[[flow]]
profile = "tcp"
source = { kind = "bulk", size = "1MB" }
cc = { algorithm = "cubic" }
"#;

fn notices_for(sets: &[&str]) -> Vec<String> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let s = Scenario::from_toml_str(TCP, "notices.toml", &sets).unwrap_or_else(|e| panic!("{e}"));
    notices(s.config())
}

#[test]
fn a_plain_tcp_flow_gets_no_notice() {
    assert_eq!(notices_for(&[]), Vec::<String>::new());
    // Keys kernel mode maps are not ignored.
    assert_eq!(
        notices_for(&["flow[0].sender.ecn=true", "flow[0].sender.receive_window=\"1MB\""]),
        Vec::<String>::new()
    );
}

#[test]
fn unmapped_keys_are_named() {
    let n = notices_for(&[
        "flow[0].cc.beta=0.5",
        "flow[0].sender.packet_threshold=5",
        "flow[0].receiver.max_ack_ranges=4",
    ])
    .join("\n");
    for key in [
        "flow[0].cc's parameters",
        "flow[0].sender.packet_threshold",
        "flow[0].receiver.max_ack_ranges",
    ] {
        assert!(n.contains(key), "{key} missing from: {n}");
    }
    assert!(!n.contains("initial_rtt"), "{n}");
}

#[test]
fn tso_sysctls_are_mapped_and_the_device_size_is_named() {
    // win_divisor, min_segs and rtt_log become the namespace's sysctls; Linux sends GSO aggregates anyway.
    let mapped = "flow[0].sender.tso={enabled=true,win_divisor=4,min_segs=3,rtt_log=8}";
    assert_eq!(notices_for(&[mapped]), Vec::<String>::new());
    let n = notices_for(&["flow[0].sender.tso={enabled=true,gso_max_size=32768}"]).join("\n");
    assert!(n.contains("flow[0].sender.tso.gso_max_size"), "{n}");
}

#[test]
fn a_tcp_handshake_is_the_kernels_own_and_gets_no_notice() {
    // Linux always makes its SYN exchange: the key says the model makes it too, so nothing is ignored.
    assert_eq!(notices_for(&["flow[0].handshake=true"]), Vec::<String>::new());
}

#[test]
fn the_rfc_rule_for_a_lost_syn_is_not_the_kernels() {
    // Linux cuts its initial window only after a second SYN retransmission (`tcp_init_transfer`):
    // "linux" describes the kernel's run; "rfc5681", said explicitly, cannot be given to it.
    let n = notices_for(&["flow[0].handshake={ syn_loss_window = \"rfc5681\" }"]).join("\n");
    assert!(n.contains("flow[0].handshake.syn_loss_window"), "{n}");
    let linux = notices_for(&["flow[0].handshake={ syn_loss_window = \"linux\" }"]);
    assert_eq!(linux, Vec::<String>::new());
}

#[test]
fn a_qlog_request_is_answered() {
    let n = notices_for(&["output.qlog=true"]).join("\n");
    assert!(n.contains("writes no qlog"), "{n}");
}
