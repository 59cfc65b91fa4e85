//! A host of one endpoint notes its ACK-only packets for the ACK intervals only on a receiver's
//! side, and its loop's copy for a data sender leaves the note out (`host/single.rs`). The built-in
//! receiver's intervals must be what the general loop notes, and a data sender can never be a
//! flow's receiver, where that copy would miss them.
//!
//! ```text
//!  [bulk sender] ──100 Mbit/s, 2 ms──▶ [receiver, ACK every 2nd]
//!        ◀────────── 100 Mbit/s, 2 ms ──────────
//! ```

use cclab_core::cc::{CcConfig, NewRenoConfig};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::time::Time;
use cclab_core::units::Bytes;
use cclab_core::wire::packet::FlowId;
use cclab_core::wire::size::Profile;
use cclab_sim::endpoint::AnyEndpoint;
use cclab_sim::host::HostConfig;
use cclab_sim::network::{FlowSpec, Network};
use cclab_sim::{run, RunOptions, Scenario};

/// The flow's ACK-interval mean, median and 99th percentile, with both hosts free (the loop of one
/// endpoint) or, with `general`, each given an idle state of no exit latency (the general loop).
fn intervals(general: bool) -> (Option<f64>, Option<f64>, Option<f64>) {
    let idle = if general {
        "[hosts.sender.cpu]\nidle_states = [{ residency = \"1us\", exit_latency = \"0s\" }]\n\
         [hosts.receiver.cpu]\nidle_states = [{ residency = \"1us\", exit_latency = \"0s\" }]\n"
    } else {
        ""
    };
    let text = format!(
        r#"
[scenario]
name = "ack-intervals"
duration = "2s"

[path.forward]
rate = "100Mbps"
delay = "2ms"

[path.return]
rate = "100Mbps"
delay = "2ms"

{idle}
[[flow]]
source = {{ kind = "bulk", size = "2MB" }}
"#
    );
    let s = Scenario::from_toml_str(&text, "ack-intervals.toml", &[]).unwrap();
    let out = run(&s, RunOptions::default()).unwrap();
    let f = &out.summary.flows[0];
    (f.ack_interval_mean_s, f.ack_interval_p50_s, f.ack_interval_p99_s)
}

#[test]
fn host_single_loop_notes_the_receivers_ack_intervals_as_the_general_loop_does() {
    let single = intervals(false);
    assert!(single.0.is_some_and(|m| m > 0.0), "no ACK intervals noted: {single:?}");
    assert_eq!(single, intervals(true));
}

#[test]
#[should_panic(expected = "a flow's receiver is not a data sender")]
fn host_single_loop_refuses_a_data_sender_as_a_flows_receiver() {
    let mut net = Network::new();
    let sender = || {
        let source = SourceConfig::Bulk { size: Bytes(1_000_000) };
        let profile = Profile::Quic(Default::default());
        let (cfg, cc) = (SenderConfig::default(), CcConfig::NewReno(NewRenoConfig::default()));
        AnyEndpoint::Sender(Box::new(Sender::new(
            FlowId(0),
            profile,
            &cfg,
            &cc,
            &source,
            Time::ZERO,
        )))
    };
    let (a, b) = (
        net.add_host(&HostConfig::default(), 1),
        net.add_host(&HostConfig::default(), 1),
    );
    net.add_flow(FlowSpec {
        sender: sender(),
        receiver: sender(),
        sender_host: a,
        receiver_host: b,
        forward: vec![],
        reverse: vec![],
        start: Time::ZERO,
        trace: false,
    });
}
