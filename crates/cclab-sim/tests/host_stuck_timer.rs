//! An endpoint that asks, after doing nothing, for a wake-up at a time already past must not hold
//! the simulation at one instant: its host next runs 1 ns later (`Host::next_wake`). The loop of a
//! host of one endpoint (`host/single.rs`) works out that wake-up itself; it must be the general
//! loop's.

mod common;

use cclab_core::endpoint::{Endpoint, EndpointStats};
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::Datagram;
use cclab_sim::host::{CpuConfig, HostConfig};
use cclab_sim::network::{Network, Observer, Stop};
use common::{link, log, pair, Sink};
use std::sync::{Arc, Mutex};

const END: Time = Time(1_000);

/// Always asks for a wake-up at time zero and does nothing when woken but note when.
struct StuckTimer(Arc<Mutex<Vec<Time>>>);

impl Endpoint for StuckTimer {
    fn handle_datagram(&mut self, _now: Time, _d: Datagram) {}
    fn handle_timeout(&mut self, now: Time) {
        self.0.lock().unwrap().push(now);
    }
    fn poll_transmit(&mut self, _now: Time) -> Option<Datagram> {
        None
    }
    fn poll_timeout(&self) -> Option<Time> {
        Some(Time::ZERO)
    }
    fn stats(&self) -> EndpointStats {
        EndpointStats::default()
    }
    fn is_done(&self) -> bool {
        false
    }
}

/// Stops the run at the first check (every 65,536 events): far more than the run to `END` takes.
struct StopAtCheck;

impl Observer for StopAtCheck {
    fn keep_going(&mut self, _net: &Network) -> bool {
        false
    }
}

/// The times the endpoint was woken, and how the run stopped; with `general`, an idle state of
/// no exit latency sends its host through the general loop.
fn wake_ups(general: bool) -> (Vec<Time>, Stop) {
    let sender_host = HostConfig {
        cpu: CpuConfig {
            idle_states: common::idle_states(general),
            ..Default::default()
        },
        socket_buffer: None,
    };
    let l = link(0, Dur::from_micros(1));
    let (mut net, s, d, f, r) = pair(&l, &l, &sender_host, &HostConfig::default());
    let times = Arc::new(Mutex::new(Vec::new()));
    common::flow(&mut net, (s, d, f, r), StuckTimer(times.clone()), Sink::new(log()));
    let stop = net.run(END, None, &mut StopAtCheck);
    let times = times.lock().unwrap().clone();
    (times, stop)
}

#[test]
fn host_of_one_endpoint_moves_a_past_wake_up_on_by_a_nanosecond() {
    let (single, single_stop) = wake_ups(false);
    assert_eq!(single_stop, Stop::TimeLimit, "{} wake-ups", single.len());
    let every_ns: Vec<Time> = (0..=END.0).map(Time).collect();
    assert_eq!(single, every_ns);
    assert_eq!(wake_ups(true), (single, Stop::TimeLimit));
}
