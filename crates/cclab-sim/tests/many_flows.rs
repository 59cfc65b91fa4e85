//! Many flows on one pair of hosts: past 16 endpoints a host polls only those that may send
//! (`host/wakeups.rs`). Every transfer must still complete, byte for byte, and runs must repeat.

use cclab_sim::{run, RunOptions, Scenario};

/// `n` paced BBR and unpaced CUBIC flows of 60 KB on one 100 Mbit/s path, started 1 ms apart.
fn shared_path(n: usize) -> String {
    let mut s = String::from(
        "[scenario]\nname = \"many\"\nduration = \"20s\"\n\
         [path.forward]\nrate = \"100Mbps\"\ndelay = \"5ms\"\nqueue = { kind = \"droptail\", limit = \"200KB\" }\n\
         [path.return]\nrate = \"100Mbps\"\ndelay = \"5ms\"\n",
    );
    for i in 0..n {
        let cc = if i % 2 == 0 { "cubic" } else { "bbr" };
        s += &format!(
            "[[flow]]\nstart = \"{i}ms\"\nsource = {{ kind = \"bulk\", size = \"60KB\" }}\ncc = {{ algorithm = \"{cc}\" }}\n"
        );
    }
    s
}

#[test]
fn many_flows_on_one_host_all_complete_and_repeat() {
    let text = shared_path(40);
    let s = Scenario::from_toml_str(&text, "many.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let a = run(&s, RunOptions::default()).unwrap();
    for f in &a.summary.flows {
        assert_eq!(f.bytes_delivered, 60_000, "flow {}", f.flow);
        assert!(f.completion_time_s.is_some(), "flow {}", f.flow);
    }
    // The whole run stopped when the last transfer completed, long before the 20 s limit.
    assert!(a.summary.sim.sim_time_s < 5.0, "{}", a.summary.sim.sim_time_s);
    let b = run(&s, RunOptions::default()).unwrap();
    assert_eq!(a.summary.deterministic_json(), b.summary.deterministic_json());
    // Compared as CSV: empty values are NaN in memory, and NaN != NaN.
    let csv = |t: &cclab_sim::timeseries::TimeSeries| {
        let mut v = Vec::new();
        t.to_csv(&mut v).unwrap();
        v
    };
    assert_eq!(csv(&a.timeseries), csv(&b.timeseries));
}

/// From 12 flows on, links prefetch the state of their next packets' endpoints (`Network::warm_ahead`),
/// through addresses noted per route: on a shared pair of hosts (many slots each) and on a dumbbell (a
/// host per endpoint), with cross traffic on the bottleneck, every transfer completes byte for byte.
#[test]
fn past_the_warm_up_threshold_every_flow_completes_on_both_topologies() {
    for topology in ["p2p", "dumbbell"] {
        let mut text = shared_path(70).replacen(
            "duration = \"20s\"\n",
            &format!("duration = \"20s\"\ntopology = \"{topology}\"\n"),
            1,
        );
        text = text.replacen(
            "limit = \"200KB\" }\n",
            "limit = \"200KB\" }\ncross_traffic = { kind = \"cbr\", rate = \"10Mbps\", size = \"1200B\" }\n",
            1,
        );
        let s = Scenario::from_toml_str(&text, "warm.toml", &[]).unwrap_or_else(|e| panic!("{topology}: {e}"));
        let out = run(&s, RunOptions::default()).unwrap();
        assert_eq!(out.summary.flows.len(), 70);
        for f in &out.summary.flows {
            assert_eq!(f.bytes_delivered, 60_000, "{topology} flow {}", f.flow);
        }
    }
}
