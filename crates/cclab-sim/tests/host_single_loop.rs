//! A free host with one endpoint runs a loop of its own (`host/single.rs`); its endpoint must get
//! the calls the general loop makes, in the same order and at the same times. An idle state with
//! no exit latency changes nothing in the model but sends a host through the general loop, so
//! every call of the two runs below must agree.
//!
//! ```text
//!  [window sender, GSO 4] ──10 Gbit/s, 20 µs──▶ [ACK every 3rd, GRO 4]   starts at 2 ms
//!  [CBR, 1 per 7 µs, timers] ──unlimited, 20 µs──▶ [sink]                starts at 2 ms
//!            ◀──────────── unlimited, 20 µs (both flows' ACKs) ────────────
//! ```
//! The window sender's bursts of four arrive together over the unlimited link of the second pair
//! and wait in the socket buffer for a receive batch; the CBR source is woken by its timer.

mod common;

use cclab_core::endpoint::{Endpoint, EndpointStats};
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::{Datagram, FlowId};
use cclab_sim::endpoint::AnyEndpoint;
use cclab_sim::host::{BatchConfig, CpuConfig, HostConfig, IdleStateConfig};
use cclab_sim::network::{FlowSpec, Network};
use common::{link, AckEvery, Cbr, Sink, WindowSender};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};

/// One call an endpoint got: (time, endpoint, what, packet number or result).
type Call = (Time, u32, &'static str, Option<u64>);
type Calls = Arc<Mutex<Vec<Call>>>;

/// Forwards every call to `inner` and notes it, with the time the host last gave it.
struct Recorder<E> {
    id: u32,
    inner: E,
    calls: Calls,
    now: Time,
}

impl<E: Endpoint> Recorder<E> {
    fn note(&self, now: Time, what: &'static str, n: Option<u64>) {
        self.calls.lock().unwrap().push((now, self.id, what, n));
    }
}

impl<E: Endpoint> Endpoint for Recorder<E> {
    fn handle_datagram(&mut self, now: Time, d: Datagram) {
        self.now = now;
        self.note(now, "datagram", Some(d.packet.pn));
        self.inner.handle_datagram(now, d);
    }
    fn handle_timeout(&mut self, now: Time) {
        self.now = now;
        self.note(now, "timeout", None);
        self.inner.handle_timeout(now);
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Datagram> {
        self.now = now;
        let d = self.inner.poll_transmit(now);
        self.note(now, "poll", d.as_ref().map(|d| d.packet.pn));
        d
    }
    fn poll_timeout(&self) -> Option<Time> {
        let t = self.inner.poll_timeout();
        self.note(self.now, "poll_timeout", t.map(|t| t.0));
        t
    }
    fn stats(&self) -> EndpointStats {
        self.inner.stats()
    }
    fn is_done(&self) -> bool {
        let done = self.inner.is_done();
        self.note(self.now, "is_done", Some(done as u64));
        done
    }
}

fn recorded(id: u32, inner: impl Endpoint + 'static, calls: &Calls) -> AnyEndpoint {
    AnyEndpoint::Custom(Box::new(Recorder {
        id,
        inner,
        calls: calls.clone(),
        now: Time::ZERO,
    }))
}

/// A host whose CPU costs nothing, with GSO and GRO batches of `batch`; with `general`, an idle
/// state of no exit latency sends it through the general loop.
fn host(batch: u32, general: bool) -> HostConfig {
    let b = Some(BatchConfig {
        max_segments: NonZeroU32::new(batch).unwrap(),
        fixed: Dur::ZERO,
    });
    let idle = IdleStateConfig {
        residency: Dur::from_micros(1),
        exit_latency: Dur::ZERO,
    };
    HostConfig {
        cpu: CpuConfig {
            gso: b.clone(),
            gro: b,
            idle_states: if general { vec![idle] } else { vec![] },
            ..Default::default()
        },
        socket_buffer: None,
    }
}

/// Every endpoint call of the two flows above.
fn calls(general: bool) -> Vec<Call> {
    const TOTAL: u64 = 300;
    let mut net = Network::new();
    let fast = net.add_link(&link(10_000_000_000, Dur::from_micros(20)), 1);
    let unlimited = net.add_link(&link(0, Dur::from_micros(20)), 1);
    let back = net.add_link(&link(0, Dur::from_micros(20)), 1);
    let calls = Calls::default();
    let start = Time::ZERO + Dur::from_millis(2);
    let window = recorded(0, WindowSender::new(FlowId(0), 1250, 16, TOTAL), &calls);
    let cbr = Cbr::new(FlowId(1), 1250, Dur::from_micros(7), TOTAL, start);
    let flows = [
        (
            window,
            recorded(1, AckEvery::new(FlowId(0), 3, 64, TOTAL), &calls),
            unlimited,
        ),
        (
            recorded(2, cbr, &calls),
            recorded(3, Sink::new(Default::default()), &calls),
            fast,
        ),
    ];
    for (sender, receiver, forward) in flows {
        let sender_host = net.add_host(&host(4, general), 1);
        let receiver_host = net.add_host(&host(4, general), 1);
        net.add_flow(FlowSpec {
            sender,
            receiver,
            sender_host,
            receiver_host,
            forward: vec![forward],
            reverse: vec![back],
            start,
            trace: false,
        });
    }
    net.run(Time(1_000_000_000), None, &mut ());
    let calls = calls.lock().unwrap().clone();
    calls
}

#[test]
fn host_single_loop_makes_the_general_loops_calls_in_its_order() {
    let general = calls(true);
    let single = calls(false);
    let count = |c: &[Call], what| c.iter().filter(|c| c.2 == what).count();
    // Both flows' packets and ACKs arrived, the CBR source woke on its timers, and polls were refused.
    assert!(
        count(&general, "datagram") > 600,
        "{} datagrams",
        count(&general, "datagram")
    );
    assert!(
        count(&general, "timeout") > 100,
        "{} timeouts",
        count(&general, "timeout")
    );
    let refused = general.iter().filter(|c| c.2 == "poll" && c.3.is_none()).count();
    assert!(refused > 100, "{refused} refused polls");
    // Each endpoint's own calls: the general loop's idle state takes an event of its own at the
    // same instant, which may move hosts' runs at one instant against each other.
    for id in 0..4 {
        let of = |c: &[Call]| c.iter().filter(|c| c.1 == id).copied().collect::<Vec<_>>();
        let (general, single) = (of(&general), of(&single));
        let first_difference = general.iter().zip(&single).position(|(a, b)| a != b);
        assert_eq!(
            first_difference.map(|i| (&general[i.saturating_sub(3)..=i], single[i])),
            None,
            "endpoint {id}'s calls differ"
        );
        assert_eq!(single.len(), general.len(), "endpoint {id}'s calls");
    }
}
