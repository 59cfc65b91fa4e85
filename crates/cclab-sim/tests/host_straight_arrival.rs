//! A datagram that is its link event's only arrival, at the end of its route, for a free host with
//! an empty socket buffer, goes from the link's ring straight into its endpoint
//! (`Network::hand_straight`, `Host::act`'s arrival) instead of through the socket buffer. The
//! endpoints must see the same calls, in the same order and at the same times, as when every
//! arrival wakes its host in an event of its own (`Network::set_hand_off(false)`), where every
//! datagram passes through the socket buffer.
//!
//! ```text
//!  [window sender 0] ─┐                         ┌─▶ [ACK every 2nd (flow 0)]
//!                     ├─ 1 Gbit/s, 10 µs, shared ┤    one receiver host
//!  [window sender 1] ─┘                         └─▶ [ACK every 3rd (flow 1)]
//!         ◀──────────── unlimited, 10 µs ─────────────
//! ```
//! Two senders share the forward link, so the receiver host gets arrivals from one link for two
//! slots; the ACKs come back on a link without a rate, so a sender host may be polled before or
//! after its ACK depending on its send turn.

mod common;

use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::FlowId;
use cclab_sim::host::HostConfig;
use cclab_sim::network::{FlowSpec, Network};
use common::{link, recorded, AckEvery, Call, Calls, WindowSender};

/// Every endpoint call of two window-limited flows into one receiver host, and the run's events.
fn calls(hand_off: bool) -> (Vec<Call>, u64) {
    const TOTAL: u64 = 400;
    let mut net = Network::new();
    net.set_hand_off(hand_off);
    let fwd = net.add_link(&link(1_000_000_000, Dur::from_micros(10)), 1);
    let ret = net.add_link(&link(0, Dur::from_micros(10)), 1);
    let receiver_host = net.add_host(&HostConfig::default(), 1);
    let calls = Calls::default();
    for (f, (window, k)) in [(8, 2), (5, 3)].into_iter().enumerate() {
        let f = f as u32;
        let sender_host = net.add_host(&HostConfig::default(), 1);
        net.add_flow(FlowSpec {
            sender: recorded(2 * f, WindowSender::new(FlowId(f), 1250, window, TOTAL), &calls, false),
            receiver: recorded(2 * f + 1, AckEvery::new(FlowId(f), k, 64, TOTAL), &calls, false),
            sender_host,
            receiver_host,
            forward: vec![fwd],
            reverse: vec![ret],
            start: Time::ZERO,
            trace: false,
        });
    }
    net.run(Time(1_000_000_000), None, &mut ());
    let calls = calls.lock().unwrap().clone();
    (calls, net.events())
}

#[test]
fn host_straight_arrival_makes_the_wake_up_paths_calls_in_its_order() {
    let (woken, woken_events) = calls(false);
    let (straight, straight_events) = calls(true);
    let received = |c: &[Call]| c.iter().filter(|c| c.2 == "datagram").count();
    // Every data packet and ACK of both flows arrived, in either run.
    assert!(received(&woken) > 800, "{} datagrams received", received(&woken));
    assert!(
        straight_events < woken_events,
        "{straight_events} vs {woken_events} events"
    );
    let first_difference = woken.iter().zip(&straight).position(|(a, b)| a != b);
    assert_eq!(
        first_difference.map(|i| (woken[i], straight[i])),
        None,
        "endpoint calls differ"
    );
    assert_eq!(straight.len(), woken.len(), "endpoint calls");
}
