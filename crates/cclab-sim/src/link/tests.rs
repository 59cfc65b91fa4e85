//! The link's own tests: which links share their ring and take the ring's paths, and those paths
//! against the general ones.

use super::*;
use crate::queue::{CodelConfig, QueueConfig};
use cclab_core::units::Rate;

#[test]
fn link_shares_its_queue_ring_only_where_queue_and_propagation_keep_one_order() {
    let plain = LinkConfig::new(LinkRate::Limited(Rate(10_000_000)), Dur::from_millis(1));
    let mut jitter = plain.clone();
    jitter.jitter = Dur::from_micros(10);
    let mut codel = plain.clone();
    codel.queue = QueueConfig::Codel(CodelConfig::default());
    let mut reorder = plain.clone();
    reorder.reorder = Some(ReorderConfig {
        p: crate::loss::Probability(0.0),
        delay: Dur::ZERO,
    });
    let unlimited = LinkConfig::new(LinkRate::Unlimited, Dur::from_millis(1));
    let shared = |c: &LinkConfig| Link::new(0, c, 1).shared;
    assert!(shared(&plain));
    assert!(!shared(&jitter) && !shared(&codel) && !shared(&reorder) && !shared(&unlimited));
}

#[test]
fn ring_push_only_where_nothing_takes_or_copies_a_packet_before_the_queue() {
    let plain = LinkConfig::new(LinkRate::Limited(Rate(10_000_000)), Dur::from_millis(1));
    let mut thinned = plain.clone();
    thinned.thin_acks = 2;
    let mut lossy = plain.clone();
    lossy.loss = crate::loss::LossConfig::Bernoulli(crate::loss::BernoulliConfig {
        p: crate::loss::Probability(0.01),
    });
    let mut duplicating = plain.clone();
    duplicating.duplicate = Some(crate::loss::Probability(0.01));
    let ring_push = |c: &LinkConfig| Link::new(0, c, 1).ring_push;
    assert!(ring_push(&plain));
    assert!(!ring_push(&thinned) && !ring_push(&lossy) && !ring_push(&duplicating));
}

#[test]
fn ring_push_makes_the_general_push_s_changes() {
    // 10 Mbit/s (1,000 bytes in 0.8 ms), a queue of 4 packets: bursts that queue, overflow and
    // drain, gaps that leave the serialiser idle. The same pushes into a link made to take the
    // general path must return the same wake-ups, deliver the same packets at the same times
    // and count the same.
    let mut cfg = LinkConfig::new(LinkRate::Limited(Rate(10_000_000)), Dur::from_millis(1));
    cfg.queue = QueueConfig::Droptail(crate::queue::DropTailConfig {
        limit: None,
        limit_packets: Some(4),
    });
    let mut fast = Link::new(0, &cfg, 1);
    let mut general = Link::new(0, &cfg, 1);
    general.ring_push = false;
    let packet = |size: u32, now: Time| {
        let dgram = cclab_core::wire::packet::Datagram {
            flow: cclab_core::wire::packet::FlowId(0),
            size,
            ecn: cclab_core::wire::packet::Ecn::NotEct,
            packet: cclab_core::wire::packet::Packet::default(),
        };
        InFlight::new(dgram, 0, 0, now)
    };
    let mut now = Time::ZERO;
    let mut delivered = 0;
    for i in 0..300u64 {
        now += Dur::from_micros((i * 7919) % 3000);
        for k in 0..1 + (i % 6) {
            let size = 600 + ((i + k) % 3) as u32 * 400;
            assert_eq!(fast.push(now, packet(size, now)), general.push(now, packet(size, now)));
        }
        fast.advance(now);
        general.advance(now);
        while let Some(a) = fast.pop_arrived() {
            let b = general.pop_arrived().expect("the general path delivers it too");
            assert_eq!((a.enqueued, a.size()), (b.enqueued, b.size()));
            delivered += 1;
        }
        assert!(general.pop_arrived().is_none());
        assert_eq!(fast.next_wake(), general.next_wake());
        assert_eq!(fast.stats(), general.stats());
    }
    let stats = fast.stats();
    assert!(
        delivered > 300 && stats.queue.dropped_packets > 0,
        "{delivered} delivered, {stats:?}"
    );
}

#[test]
fn advance_to_arrivals_defers_departures_and_changes_nothing_read() {
    // 10 Mbit/s and 1 ms (1,000 bytes in 0.8 ms), one or two packets pushed at every event: the
    // queue grows, so packets propagate while others wait to depart. Against `advance`: the same arrivals and next wake-up at every
    // event, the same counts once caught up, and departures left for later at some events.
    let cfg = LinkConfig::new(LinkRate::Limited(Rate(10_000_000)), Dur::from_millis(1));
    let (mut lazy, mut eager) = (Link::new(0, &cfg, 1), Link::new(0, &cfg, 1));
    let packet = |now: Time| {
        let dgram = cclab_core::wire::packet::Datagram {
            flow: cclab_core::wire::packet::FlowId(0),
            size: 1000,
            ecn: cclab_core::wire::packet::Ecn::NotEct,
            packet: cclab_core::wire::packet::Packet::default(),
        };
        InFlight::new(dgram, 0, 0, now)
    };
    let (mut now, mut deferred, mut delivered) = (Time::ZERO, 0, 0);
    for i in 0..400u64 {
        for _ in 0..1 + i % 2 {
            assert_eq!(lazy.push(now, packet(now)), eager.push(now, packet(now)));
        }
        let Some(t) = eager.next_wake() else {
            now += Dur::from_micros(300);
            continue;
        };
        now = t;
        let lazy_wake = lazy.advance_to_arrivals(now);
        eager.advance(now);
        assert_eq!(lazy_wake, eager.next_wake(), "the wake-up an event returns");
        deferred += usize::from(lazy.stats().dequeued_packets < eager.stats().dequeued_packets);
        while let Some(a) = eager.pop_arrived() {
            let b = lazy.pop_arrived().expect("the deferring link delivers it too");
            assert_eq!(a.enqueued, b.enqueued);
            delivered += 1;
        }
        assert!(lazy.pop_arrived().is_none());
        assert_eq!(lazy.next_wake(), eager.next_wake());
        lazy.catch_up(now);
        assert_eq!(lazy.stats(), eager.stats());
        assert_eq!(lazy.queue_bytes(), eager.queue_bytes());
    }
    assert!(
        deferred > 50 && delivered > 150,
        "{deferred} events deferred, {delivered} delivered"
    );
}
