//! A host of one endpoint marks that its endpoint may have trace events for the network to hand
//! to [`Observer::on_trace`] after the run; a link event's straight arrival runs as straight-line
//! calls (`One::run_arrival`) that mark once, at the end. An endpoint that queues its events for
//! `poll_event` (every endpoint but the built-in sender and receiver) must have each of them reach
//! the observer, in its order, as when every arrival wakes its host through the socket buffer
//! (`Network::set_hand_off(false)`).
//!
//! ```text
//!  [window sender, traced] ──1 Gbit/s, 10 µs──▶ [ACK every 2nd, traced]
//!            ◀──────────── unlimited, 10 µs ────────────
//! ```

mod common;

use cclab_core::endpoint::{Endpoint, EndpointStats, TraceEvent};
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::{Datagram, FlowId};
use cclab_sim::endpoint::AnyEndpoint;
use cclab_sim::host::{HostConfig, Side};
use cclab_sim::network::{FlowSpec, Network, Observer};
use common::{link, AckEvery, WindowSender};
use std::collections::VecDeque;

/// `inner`, queueing a trace event for each datagram it receives and sends while tracing is on.
struct Traced<E> {
    inner: E,
    on: bool,
    events: VecDeque<TraceEvent>,
}

impl<E: Endpoint> Endpoint for Traced<E> {
    fn handle_datagram(&mut self, now: Time, d: Datagram) {
        if self.on {
            let (size, packet) = (d.size, d.packet.clone());
            self.events.push_back(TraceEvent::PacketReceived {
                time: now,
                size,
                packet,
            });
        }
        self.inner.handle_datagram(now, d);
    }
    fn handle_timeout(&mut self, now: Time) {
        self.inner.handle_timeout(now);
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Datagram> {
        let d = self.inner.poll_transmit(now)?;
        if self.on {
            let (size, packet) = (d.size, d.packet.clone());
            self.events.push_back(TraceEvent::PacketSent {
                time: now,
                size,
                packet,
            });
        }
        Some(d)
    }
    fn poll_timeout(&self) -> Option<Time> {
        self.inner.poll_timeout()
    }
    fn poll_event(&mut self) -> Option<TraceEvent> {
        self.events.pop_front()
    }
    fn set_tracing(&mut self, on: bool) {
        self.on = on;
    }
    fn stats(&self) -> EndpointStats {
        self.inner.stats()
    }
    fn is_done(&self) -> bool {
        self.inner.is_done()
    }
}

fn traced(inner: impl Endpoint + 'static) -> AnyEndpoint {
    AnyEndpoint::Custom(Box::new(Traced {
        inner,
        on: false,
        events: VecDeque::new(),
    }))
}

/// Each side's events as the observer got them: kind, time and packet number.
#[derive(Default)]
struct Events(Vec<(Side, &'static str, Time, u64)>);

impl Observer for Events {
    fn on_trace(&mut self, _flow: FlowId, side: Side, ev: &TraceEvent) {
        match ev {
            TraceEvent::PacketReceived { time, packet, .. } => self.0.push((side, "received", *time, packet.pn)),
            TraceEvent::PacketSent { time, packet, .. } => self.0.push((side, "sent", *time, packet.pn)),
            _ => {}
        }
    }
}

/// Every event of a window-limited flow between two hosts of one endpoint each.
fn events(hand_off: bool) -> Vec<(Side, &'static str, Time, u64)> {
    const TOTAL: u64 = 300;
    let mut net = Network::new();
    net.set_hand_off(hand_off);
    let fwd = net.add_link(&link(1_000_000_000, Dur::from_micros(10)), 1);
    let ret = net.add_link(&link(0, Dur::from_micros(10)), 1);
    let (sender_host, receiver_host) = (
        net.add_host(&HostConfig::default(), 1),
        net.add_host(&HostConfig::default(), 1),
    );
    net.add_flow(FlowSpec {
        sender: traced(WindowSender::new(FlowId(0), 1250, 8, TOTAL)),
        receiver: traced(AckEvery::new(FlowId(0), 2, 64, TOTAL)),
        sender_host,
        receiver_host,
        forward: vec![fwd],
        reverse: vec![ret],
        start: Time::ZERO,
        trace: true,
    });
    let mut seen = Events::default();
    net.run(Time(1_000_000_000), None, &mut seen);
    seen.0
}

#[test]
fn host_single_straight_arrival_hands_every_trace_event_to_the_observer() {
    let woken = events(false);
    let straight = events(true);
    let on = |side, kind| straight.iter().filter(|e| e.0 == side && e.1 == kind).count();
    // Every data packet was received and acknowledged, each ACK received, all traced.
    assert!(
        on(Side::Receiver, "received") >= 300,
        "{}",
        on(Side::Receiver, "received")
    );
    assert!(on(Side::Sender, "received") >= 150, "{}", on(Side::Sender, "received"));
    for side in [Side::Sender, Side::Receiver] {
        let of = |v: &[(Side, &'static str, Time, u64)]| v.iter().filter(|e| e.0 == side).copied().collect::<Vec<_>>();
        assert_eq!(of(&straight), of(&woken), "{side:?}'s events");
    }
}
