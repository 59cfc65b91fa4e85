//! A run the observer stops (`Observer::keep_going`, asked every 65,536 events) may stop right
//! after a link event that handed a datagram to its host, before that host's run, which follows
//! the event in the same turn of `Network::run`'s loop. The next `run` must start with that host's
//! run: stopped and resumed at every check, the endpoints see the same calls, at the same times,
//! as in one uninterrupted run.
//!
//! ```text
//!  [window sender] ── 1 Gbit/s, 10 µs ──▶ [ACK every 2nd]
//!         ◀──────── unlimited, 10 µs ────────
//! ```
//! At the checked events the link's arrival is not handed straight from its ring
//! (`Network::hand_straight`) but put in the socket buffer and its host handed off
//! (`Network::arrive`), so each check comes between an event and a handed-off host's run.

mod common;

use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::FlowId;
use cclab_sim::host::HostConfig;
use cclab_sim::network::{FlowSpec, Network, Observer, Stop};
use common::{link, pair, recorded, AckEvery, Call, Calls, WindowSender};

const TOTAL: u64 = 100_000;
const END: Time = Time(10_000_000_000);

/// Stops the run at every check.
struct StopEach {
    stops: u32,
}

impl Observer for StopEach {
    fn keep_going(&mut self, _net: &Network) -> bool {
        self.stops += 1;
        false
    }
}

/// Every endpoint call of one window-limited flow, the run's events and how often it was stopped.
fn calls(stop_each: bool) -> (Vec<Call>, u64, u32) {
    let (mut net, s, d, f, r) = pair(
        &link(1_000_000_000, Dur::from_micros(10)),
        &link(0, Dur::from_micros(10)),
        &HostConfig::default(),
        &HostConfig::default(),
    );
    let calls = Calls::default();
    net.add_flow(FlowSpec {
        sender: recorded(0, WindowSender::new(FlowId(0), 1250, 16, TOTAL), &calls, false),
        receiver: recorded(1, AckEvery::new(FlowId(0), 2, 64, TOTAL), &calls, false),
        sender_host: s,
        receiver_host: d,
        forward: vec![f],
        reverse: vec![r],
        start: Time::ZERO,
        trace: false,
    });
    let mut observer = StopEach { stops: 0 };
    let stop = if stop_each {
        loop {
            match net.run(END, None, &mut observer) {
                Stop::Cancelled => continue,
                stop => break stop,
            }
        }
    } else {
        net.run(END, None, &mut ())
    };
    assert_eq!(stop, Stop::AllDone);
    let calls = calls.lock().unwrap().clone();
    (calls, net.events(), observer.stops)
}

#[test]
fn run_stopped_after_a_hand_off_resumes_with_the_handed_off_hosts_run() {
    let (whole, whole_events) = {
        let (c, e, _) = calls(false);
        (c, e)
    };
    let (resumed, resumed_events, stops) = calls(true);
    assert!(stops >= 2, "stopped {stops} times in {resumed_events} events");
    let received = whole.iter().filter(|c| c.2 == "datagram").count();
    assert!(received as u64 > TOTAL, "{received} datagrams received");
    assert_eq!(resumed_events, whole_events);
    assert_eq!(resumed.len(), whole.len());
    if let Some(i) = (0..whole.len()).find(|&i| resumed[i] != whole[i]) {
        panic!("call {i}: {:?} resumed, {:?} in one run", resumed[i], whole[i]);
    }
}
