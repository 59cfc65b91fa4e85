//! The trace hand-off from endpoints to qlog writers: a host drains its endpoints one at a time
//! (`Host::drain_events`), so with two flows on the same hosts each file must still get exactly
//! its own endpoint's events, in time order.

use cclab_sim::{run, QlogMode, RunOptions, Scenario};

/// Two overlapping transfers over one path: both senders share a host, as do both receivers.
const TWO_FLOWS: &str = r#"
[scenario]
name = "handoff"
duration = "2s"

[path.forward]
rate = "20Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = "30KB" }

[path.return]
rate = "20Mbps"
delay = "5ms"

[[flow]]
source = { kind = "bulk", size = "300KB" }

[[flow]]
source = { kind = "bulk", size = "300KB" }
start = "20ms"
"#;

/// Per record of a JSON-SEQ qlog file: its `time` (ms) and `name`; the header record is skipped.
fn records(text: &str) -> Vec<(f64, String)> {
    let field = |r: &str, key: &str| -> Option<String> {
        let at = r.find(key)? + key.len();
        let rest = &r[at..];
        let end = rest.find([',', '}']).unwrap_or(rest.len());
        Some(rest[..end].trim_matches('"').to_string())
    };
    text.split('\u{1e}')
        .filter(|r| r.starts_with("{\"time\""))
        .map(|r| {
            let time = field(r, "\"time\":").unwrap().parse().unwrap();
            (time, field(r, "\"name\":").unwrap())
        })
        .collect()
}

#[test]
fn qlog_handoff_two_flows_on_shared_hosts_keep_each_trace_whole_and_ordered() {
    let dir = std::env::temp_dir().join(format!("cclab-qlog-handoff-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let scenario = Scenario::from_toml_str(TWO_FLOWS, "handoff.toml", &[]).unwrap();
    let opts = RunOptions {
        out_dir: Some(dir.clone()),
        qlog: QlogMode::Draft02,
        ..Default::default()
    };
    let out = run(&scenario, opts).unwrap();
    for f in &out.summary.flows {
        assert!(f.completion_time_s.is_some(), "flow {} did not finish", f.flow);
        let read = |name: String| records(&std::fs::read_to_string(dir.join(name)).unwrap());
        let sender = read(format!("trace-flow{}.sqlog", f.flow));
        let receiver = read(format!("trace-receiver-flow{}.sqlog", f.flow));
        for (side, recs) in [("sender", &sender), ("receiver", &receiver)] {
            assert!(
                recs.windows(2).all(|w| w[0].0 <= w[1].0),
                "flow {} {side}: times go backwards",
                f.flow
            );
        }
        let count = |recs: &[(f64, String)], name: &str| recs.iter().filter(|r| r.1 == name).count() as u64;
        // Every ACK the receiver sent is in its own trace, and every data packet reached it once at least.
        assert_eq!(
            count(&receiver, "transport:packet_sent"),
            f.acks_sent,
            "flow {}",
            f.flow
        );
        let data_received = count(&receiver, "transport:packet_received");
        assert!(
            data_received >= f.data_packets_sent - f.lost_packets && data_received <= f.data_packets_sent,
            "flow {}: {data_received} received of {} sent",
            f.flow,
            f.data_packets_sent
        );
        // The sender sends data packets and, now and then, an ACK of the receiver's ACKs.
        assert!(
            count(&sender, "transport:packet_sent") >= f.data_packets_sent,
            "flow {}",
            f.flow
        );
        assert!(count(&sender, "transport:packet_received") > 0, "flow {}", f.flow);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
