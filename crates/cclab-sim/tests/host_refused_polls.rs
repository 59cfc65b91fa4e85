//! A host asks an endpoint `may_transmit` before each poll and skips the polls it refuses
//! (`Endpoint::may_transmit`): a refusing endpoint is never polled, one that keeps the default is
//! polled as before, and neither is polled before its start.
//!
//! ```text
//!  [Cbr: 50 × 1250 B, one per 10 µs] ──unlimited, 50 µs──▶ [sink: counts its polls]
//! ```

mod common;

use cclab_core::endpoint::{Endpoint, EndpointStats};
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::{Datagram, FlowId};
use cclab_sim::endpoint::AnyEndpoint;
use cclab_sim::host::HostConfig;
use cclab_sim::network::FlowSpec;
use common::{flow, link, pair, Cbr};
use std::sync::{Arc, Mutex};

/// Calls counted by a sink: (may_transmit, poll_transmit, datagrams received).
type Calls = Arc<Mutex<(u64, u64, u64)>>;

/// Receives and never sends; with `refuses`, says so through `may_transmit`. Notes the time of
/// its first call of any kind.
struct CountingSink {
    refuses: bool,
    calls: Calls,
    first_call: Arc<Mutex<Option<Time>>>,
}

impl CountingSink {
    fn called(&self, now: Time) {
        self.first_call.lock().unwrap().get_or_insert(now);
    }
}

impl Endpoint for CountingSink {
    fn handle_datagram(&mut self, _now: Time, _d: Datagram) {
        self.calls.lock().unwrap().2 += 1;
    }
    fn handle_timeout(&mut self, _now: Time) {}
    fn poll_transmit(&mut self, now: Time) -> Option<Datagram> {
        self.called(now);
        self.calls.lock().unwrap().1 += 1;
        None
    }
    /// Exact either way: its poll always returns `None` and changes nothing the run reads.
    fn may_transmit(&mut self, now: Time) -> bool {
        self.called(now);
        self.calls.lock().unwrap().0 += 1;
        !self.refuses
    }
    fn poll_timeout(&self) -> Option<Time> {
        None
    }
    fn stats(&self) -> EndpointStats {
        EndpointStats::default()
    }
    fn is_done(&self) -> bool {
        false
    }
}

/// Runs 50 datagrams into a sink; returns its counted calls.
fn run(refuses: bool) -> (u64, u64, u64) {
    let l = link(0, Dur::from_micros(50));
    let (mut net, s, d, f, r) = pair(&l, &l, &HostConfig::default(), &HostConfig::default());
    let calls = Calls::default();
    let sink = CountingSink {
        refuses,
        calls: calls.clone(),
        first_call: Default::default(),
    };
    flow(
        &mut net,
        (s, d, f, r),
        Cbr::new(FlowId(0), 1250, Dur::from_micros(10), 50, Time::ZERO),
        sink,
    );
    net.run(Time::ZERO + Dur::from_millis(10), None, &mut ());
    let calls = *calls.lock().unwrap();
    calls
}

#[test]
fn host_skips_the_polls_an_endpoint_refuses() {
    let (asked, polled, received) = run(true);
    assert_eq!(received, 50);
    // At its start and after each datagram, at least: every question refused, no poll made.
    assert!(asked > 50, "asked {asked}");
    assert_eq!(polled, 0, "the host polled a refusing endpoint");
}

#[test]
fn host_polls_an_endpoint_that_keeps_the_default() {
    let (asked_refusing, _, _) = run(true);
    let (asked, polled, received) = run(false);
    assert_eq!(received, 50);
    // The same questions, every one answered yes and followed by the poll.
    assert_eq!(asked, asked_refusing);
    assert_eq!(polled, asked);
}

#[test]
fn host_polls_no_endpoint_before_its_start() {
    // One endpoint per host: the host runs at time zero, and its endpoints start at 5 ms.
    let start = Time::ZERO + Dur::from_millis(5);
    let l = link(0, Dur::from_micros(50));
    let (mut net, s, d, f, r) = pair(&l, &l, &HostConfig::default(), &HostConfig::default());
    let first_call = Arc::new(Mutex::new(None));
    let sink = CountingSink {
        refuses: false,
        calls: Calls::default(),
        first_call: first_call.clone(),
    };
    net.add_flow(FlowSpec {
        sender: AnyEndpoint::Custom(Box::new(Cbr::new(FlowId(0), 1250, Dur::from_micros(10), 5, start))),
        receiver: AnyEndpoint::Custom(Box::new(sink)),
        sender_host: s,
        receiver_host: d,
        forward: vec![f],
        reverse: vec![r],
        start,
        trace: false,
    });
    net.run(start + Dur::from_millis(1), None, &mut ());
    assert_eq!(*first_call.lock().unwrap(), Some(start));
}
