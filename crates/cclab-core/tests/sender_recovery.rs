//! Sender loss recovery against RFC 9002: packet and time thresholds (§6.1), the PTO and its
//! backoff (§6.2.1), persistent congestion (§7.6).
//!
//! Topology (unless a test says otherwise): 100 Mbit/s bottleneck, 10 ms one way, so a
//! 1500-byte datagram takes 120 µs on the link and an unqueued RTT is 20 ms + 120 µs.

mod sender_pair;

use cclab_core::cc::NewRenoConfig;
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::{Endpoint, TraceEvent};
use cclab_core::time::{Dur, Time};
use cclab_core::units::Bytes;
use cclab_core::wire::packet::{AckFrame, Datagram, Ecn, FlowId, Packet};
use sender_pair::{ack_of, sender, unpaced, Pair, MSS};

const RATE: u64 = 100_000_000;
const TX: Dur = Dur::from_micros(120);
const LATENCY: Dur = Dur::from_millis(10);

fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

fn lost_event(p: &Pair, pn: u64) -> Option<(Time, &'static str)> {
    p.events.iter().find_map(|e| match *e {
        TraceEvent::PacketLost { time, pn: q, trigger } if q == pn => Some((time, trigger)),
        _ => None,
    })
}

/// Bytes of stream data in the first 7 packets of the initial window: with pn_len 1 and DCID 8
/// a 1472-byte packet carries 1442 bytes at offset 0 (4-byte STREAM header) and 1440 after
/// (6-byte header with a 2-byte offset).
const SEVEN_PACKETS: u64 = 1442 + 6 * 1440;

#[test]
fn loss_detected_by_packet_threshold_three_acks_later() {
    let s = sender(
        &unpaced(),
        &NewRenoConfig::default(),
        &SourceConfig::Bulk { size: Bytes(30_000) },
    );
    let mut p = Pair::new(s, LATENCY, RATE);
    p.drop_data = Box::new(|_, d| d.packet.pn == 3);
    p.run_until(ms(2000), |p| p.sender.is_done());
    // The IW (10 packets) leaves at t=0; pn 3 is dropped before the bottleneck, so the ACK of
    // pn k > 3 arrives at k·TX + 2·LATENCY. pn 3 is lost once pn 6 = 3 + kPacketThreshold is acked.
    let expect = Time(0) + TX * 6 + LATENCY * 2;
    assert_eq!(lost_event(&p, 3), Some((expect, "reordering_threshold")));
    let ack = p.acks.iter().find(|a| a.lost.contains(&3)).unwrap();
    assert_eq!(ack.acked, vec![6]);
    assert_eq!(p.sender.stats().lost_packets, 1);
    // Its data went out again in a new packet, and the stream arrived intact.
    let chunk = p.sent[3].packet.data.unwrap();
    let resent: Vec<_> = p
        .sent
        .iter()
        .filter(|s| s.pn > 3 && s.packet.data.is_some_and(|c| c.offset == chunk.offset))
        .collect();
    assert_eq!(resent.len(), 1);
    assert_eq!(resent[0].packet.data.unwrap().len, chunk.len);
    assert_eq!(p.sender.stats().retransmitted_packets, 1);
    assert!(p.receiver.complete(30_000));
}

#[test]
fn loss_detected_by_time_threshold_timer() {
    let s = sender(
        &unpaced(),
        &NewRenoConfig::default(),
        &SourceConfig::Bulk {
            size: Bytes(SEVEN_PACKETS),
        },
    );
    let mut p = Pair::new(s, LATENCY, RATE);
    p.drop_data = Box::new(|_, d| d.packet.pn == 5);
    // Run until the ACK of the last packet (pn 6) is processed.
    p.run_until(ms(1000), |p| p.acks.iter().any(|a| a.acked.contains(&6)));
    assert_eq!(p.sent.len(), 7);
    assert!(p.sent.iter().all(|s| s.time == Time::ZERO), "all 7 packets in the IW");
    // Only one newer packet is acked: no packet-threshold loss; the timer is armed for
    // time_sent(5) + 9/8 · max(smoothed_rtt, latest_rtt) (§6.1.2).
    let r = *p.sender.rtt();
    let delay = Dur(r.smoothed().max(r.latest()).as_nanos() * 9 / 8);
    assert_eq!(r.latest(), TX * 6 + LATENCY * 2, "pn 5 never reached the bottleneck");
    assert_eq!(p.sender.poll_timeout(), Some(Time::ZERO + delay));
    assert_eq!(lost_event(&p, 5), None);
    p.run_until(ms(1000), |p| p.sender.is_done());
    assert_eq!(lost_event(&p, 5), Some((Time::ZERO + delay, "time_threshold")));
    assert!(p.receiver.complete(SEVEN_PACKETS));
}

/// One 1000-byte transfer driven by hand: no ACK ever arrives.
fn lone_packet() -> cclab_core::endpoint::sender::Sender {
    let mut s = sender(
        &Default::default(),
        &NewRenoConfig::default(),
        &SourceConfig::Bulk { size: Bytes(1000) },
    );
    assert_eq!(s.poll_transmit(Time::ZERO).unwrap().packet.pn, 0);
    assert!(s.poll_transmit(Time::ZERO).is_none());
    s
}

#[test]
fn pto_doubles_on_consecutive_expiries() {
    let mut s = lone_packet();
    // No RTT sample: smoothed 333 ms, rttvar 166.5 ms; PTO = 333 + 4·166.5 + 25 = 1024 ms.
    let pto = Dur::from_millis(1024);
    let mut fire = Time::ZERO + pto;
    let mut pn = 1;
    for k in 0..4u64 {
        assert_eq!(s.poll_timeout(), Some(fire), "expiry {k}");
        s.handle_timeout(Time(fire.0 - 1));
        assert!(s.poll_transmit(Time(fire.0 - 1)).is_none(), "early call does nothing");
        s.handle_timeout(fire);
        assert_eq!(s.pto_count() as u64, k + 1);
        // Two probes that bypass the window: the unacked data again, then a PING.
        let a = s.poll_transmit(fire).unwrap().packet;
        let b = s.poll_transmit(fire).unwrap().packet;
        assert!(s.poll_transmit(fire).is_none());
        assert_eq!(
            (a.pn, a.data.map(|c| (c.offset, c.len, c.fin))),
            (pn, Some((0, 1000, true)))
        );
        assert!(b.pn == pn + 1 && b.ping && b.data.is_none());
        pn += 2;
        // Next expiry: PTO · 2^(k+1) after the probes.
        fire += pto * (2 << k);
    }
    assert_eq!(s.stats().lost_packets, 0, "a PTO declares nothing lost");
}

#[test]
fn pto_backoff_resets_on_ack() {
    let mut s = lone_packet();
    let t1 = ms(1024);
    s.handle_timeout(t1);
    let probe = s.poll_transmit(t1).unwrap().packet.pn;
    let ping = s.poll_transmit(t1).unwrap().packet.pn;
    assert_eq!((probe, ping, s.pto_count()), (1, 2, 1));
    // The data probe is acked at 3000 ms: first RTT sample 1976 ms, rttvar 988 ms.
    let ack = Packet {
        ack: Some(Box::new(AckFrame {
            ranges: vec![(1, 1)].into(),
            ack_delay_ns: 0,
            ecn: None,
            sack_blocks: None,
        })),
        ..Default::default()
    };
    s.handle_datagram(
        ms(3000),
        Datagram {
            flow: FlowId(0),
            size: 64,
            ecn: Ecn::NotEct,
            packet: ack,
        },
    );
    assert_eq!(s.rtt().latest(), Dur::from_millis(1976));
    assert_eq!(s.pto_count(), 0);
    // pn 0 (sent 3000 ms ago > 9/8 · 1976 ms) is lost; the PING (sent at 1024 ms) re-arms an
    // un-backed-off PTO: 1976 + 4·988 + 25 = 5953 ms after it.
    assert_eq!(s.stats().lost_packets, 1);
    assert_eq!(s.poll_timeout(), Some(t1 + Dur::from_millis(5953)));
    assert!(s.is_done(), "the probe carried all data and the FIN");
}

/// A 400 kB transfer whose data packets `drop` selects are lost; runs until the first ACK
/// that declares losses.
fn with_losses(drop: impl FnMut(Time, &Datagram) -> bool + 'static) -> Pair {
    let s = sender(
        &unpaced(),
        &NewRenoConfig::default(),
        &SourceConfig::Bulk { size: Bytes(400_000) },
    );
    let mut p = Pair::new(s, LATENCY, RATE);
    p.drop_data = Box::new(drop);
    p.run_until(ms(10_000), |p| p.acks.iter().any(|a| !a.lost.is_empty()));
    p
}

#[test]
fn persistent_congestion_collapses_window_to_minimum() {
    // Everything sent from 50 ms to 1 s is lost, PTO probes included.
    let p = with_losses(|t, _| t >= ms(50) && t < ms(1000));
    let a = p.acks.last().unwrap();
    let lost = &a.lost;
    let span = p.sent[*lost.last().unwrap() as usize].time - p.sent[lost[0] as usize].time;
    // §7.6.1: lost packets spanning more than 3 · (srtt + max(4·rttvar, 1 ms) + max_ack_delay).
    let r = p.sender.rtt();
    let pc = (r.smoothed() + (r.var() * 4).max(Dur::from_millis(1)) + Dur::from_millis(25)) * 3;
    assert!(span > pc, "span {span} vs {pc}");
    assert!(lost.windows(2).all(|w| w[1] == w[0] + 1), "no acked packet in between");
    assert_eq!(a.cwnd_after, 2 * MSS, "kMinimumWindow");
    assert_eq!(r.min(), r.latest(), "min_rtt restarts from the latest sample (§5.2)");
}

#[test]
fn short_loss_burst_is_not_persistent_congestion() {
    // Four consecutive packets of one burst are lost; the ACK of pn 34 declares 30 and 31.
    let p = with_losses(|_, d| (30..34).contains(&d.packet.pn));
    assert_eq!(p.acks.last().unwrap().lost, vec![30, 31]);
    let a = p.acks.last().unwrap();
    let acked: u64 = a.acked.iter().map(|&pn| p.sent[pn as usize].bytes).sum();
    // One ordinary reduction (§7.3.2): half of the window after this ACK's growth.
    assert_eq!(a.cwnd_after, (a.cwnd_before + acked) / 2);
    assert!(a.cwnd_after > 2 * MSS);
}

#[test]
fn congestion_state_trace_turned_on_mid_run_starts_from_the_current_state() {
    // Untraced, the sender does not follow its controller's state; tracing turned on after a change must
    // still report the next change from the state the controller is in, not from the one it started in.
    let mut s = sender(
        &unpaced(),
        &NewRenoConfig::default(),
        &SourceConfig::Bulk { size: Bytes(100_000) },
    );
    s.set_tracing(false);
    let iw = std::iter::from_fn(|| s.poll_transmit(ms(0))).count() as u64;
    assert_eq!(iw, 10);
    // pn 0..=2 missing below 3 newer acknowledged packets: lost (RFC 9002 §6.1.1), and NewReno recovers.
    s.handle_datagram(ms(20), ack_of(&[(3, 9)]));
    assert_eq!(s.stats().lost_packets, 3);
    let at_on = s.controller().state();
    assert_eq!(at_on, cclab_core::cc::CcState::Recovery);
    s.set_tracing(true);
    // Sent a millisecond after recovery began (a packet sent at its start belongs to it), then acknowledged:
    // recovery ends (RFC 9002 §7.3.2).
    let next = std::iter::from_fn(|| s.poll_transmit(ms(21))).last().unwrap().packet.pn;
    s.handle_datagram(ms(40), ack_of(&[(3, next)]));
    let change = std::iter::from_fn(|| s.poll_event()).find_map(|e| match e {
        TraceEvent::CongestionState { old, new, .. } => Some((old, new)),
        _ => None,
    });
    assert_eq!(change, Some((at_on, s.controller().state())));
    assert_ne!(at_on, s.controller().state());
}
