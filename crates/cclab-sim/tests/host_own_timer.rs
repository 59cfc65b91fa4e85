//! The loop of a host of one endpoint (`host/single.rs`) fires the endpoint's timer when its own
//! wake-up, the `poll_timeout` it read at the end of the endpoint's last run, comes due, without
//! asking `poll_timeout` again (nothing calls the endpoint between runs); a wake-up that is the
//! endpoint's start is not the endpoint's own, so the timer fires then only if `poll_timeout` says so.
//! Either way the endpoint is woken at the times the general loop (`Host::fire_due_timers`) wakes it.

mod common;

use cclab_core::endpoint::{Endpoint, EndpointStats};
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::Datagram;
use cclab_sim::endpoint::AnyEndpoint;
use cclab_sim::host::{CpuConfig, HostConfig};
use cclab_sim::network::FlowSpec;
use common::{link, log, pair, Sink};
use std::sync::{Arc, Mutex};

const END: Time = Time(1_000_000);

/// What a ticker saw: the times its timer fired, and how often it was asked for its wake-up.
#[derive(Default)]
struct Seen {
    fired: Vec<Time>,
    asked: u64,
}

/// Wakes every 10 µs from `first` on, sending nothing.
struct Ticker {
    next: Time,
    seen: Arc<Mutex<Seen>>,
}

impl Endpoint for Ticker {
    fn handle_datagram(&mut self, _now: Time, _d: Datagram) {}
    fn handle_timeout(&mut self, now: Time) {
        self.seen.lock().unwrap().fired.push(now);
        if now >= self.next {
            self.next = now + Dur::from_micros(10);
        }
    }
    fn poll_transmit(&mut self, _now: Time) -> Option<Datagram> {
        None
    }
    fn poll_timeout(&self) -> Option<Time> {
        self.seen.lock().unwrap().asked += 1;
        Some(self.next)
    }
    fn stats(&self) -> EndpointStats {
        EndpointStats::default()
    }
    fn is_done(&self) -> bool {
        false
    }
}

/// A ticker started at `start` whose first wake-up is `first`, run to `END`; with `general`, an idle
/// state of no exit latency sends its host through the general loop.
fn run(start: Time, first: Time, general: bool) -> Seen {
    let sender_host = HostConfig {
        cpu: CpuConfig {
            idle_states: common::idle_states(general),
            ..Default::default()
        },
        socket_buffer: None,
    };
    let l = link(0, Dur::from_micros(1));
    let (mut net, s, d, f, r) = pair(&l, &l, &sender_host, &HostConfig::default());
    let seen = Arc::new(Mutex::new(Seen::default()));
    let ticker = Ticker {
        next: first,
        seen: seen.clone(),
    };
    net.add_flow(FlowSpec {
        sender: AnyEndpoint::Custom(Box::new(ticker)),
        receiver: AnyEndpoint::Custom(Box::new(Sink::new(log()))),
        sender_host: s,
        receiver_host: d,
        forward: vec![f],
        reverse: vec![r],
        start,
        trace: false,
    });
    net.run(END, None, &mut ());
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    seen
}

#[test]
fn host_of_one_endpoint_fires_its_own_wake_up_without_asking_again() {
    let single = run(Time::ZERO, Time::ZERO, false);
    let general = run(Time::ZERO, Time::ZERO, true);
    let every_10us: Vec<Time> = (0..=100).map(|i| Time(i * 10_000)).collect();
    assert_eq!(single.fired, every_10us);
    assert_eq!(general.fired, single.fired);
    // Asked once a wake-up, after the timer fired, and once at the start; asking again before each
    // timer fires, as the general loop does, would be twice that.
    assert_eq!(single.asked, single.fired.len() as u64 + 1);
    assert!(
        general.asked > 2 * single.fired.len() as u64 - 2,
        "the general loop asked {}",
        general.asked
    );
}

#[test]
fn host_of_one_endpoint_asks_at_its_start_whether_the_timer_is_due() {
    // The host wakes at the start, 5 µs, but the first wake-up the ticker asks for is 8 µs.
    let start = Time(5_000);
    let single = run(start, Time(8_000), false);
    assert_eq!(single.fired.first(), Some(&Time(8_000)));
    assert_eq!(single.fired, run(start, Time(8_000), true).fired);
}
