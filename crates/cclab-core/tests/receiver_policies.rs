//! RFC 9000, fixed-ratio, two-phase-ratio and TCP delayed-ACK policies driven through the
//! receiver. Packets arrive 10 µs apart unless a test says otherwise, so no delayed-ACK timer
//! (≥ 25 ms) fires in between.

mod receiver_util;

use cclab_core::ack::{AckPolicyConfig, RatioAfterConfig, RatioConfig, Rfc9000Config, TcpDelayedConfig};
use cclab_core::endpoint::Endpoint;
use cclab_core::wire::packet::{DataChunk, Ecn, Packet};
use cclab_core::Dur;
use receiver_util::{data, ms, quic, segment, tcp, us, Script};

fn rfc9000() -> AckPolicyConfig {
    AckPolicyConfig::Rfc9000(Rfc9000Config::default())
}

#[test]
fn rfc9000_acks_every_second_in_order_packet() {
    let mut s = Script::new(quic(), rfc9000());
    for pn in 0..100 {
        s.recv(us(10 * pn), data(pn));
    }
    // §13.2.2: one ACK per two ack-eliciting packets, each sent on the 2nd: pn 1, 3, ..., 99.
    assert_eq!(s.acks.len(), 50);
    assert_eq!(s.largests(), (0..50).map(|k| 2 * k + 1).collect::<Vec<_>>());
    assert_eq!(s.r.stats().acks_sent, 50);
}

#[test]
fn rfc9000_delayed_ack_fires_at_max_ack_delay() {
    let mut s = Script::new(quic(), rfc9000());
    // Timeline: pn 0 at 1 ms; max_ack_delay 25 ms → ACK at exactly 26 ms, reporting a 25 ms delay.
    assert_eq!(s.recv(ms(1), data(0)), 0);
    assert_eq!(s.r.poll_timeout(), Some(ms(26)));
    s.advance(ms(26) - Dur(1));
    assert!(s.acks.is_empty());
    s.advance(ms(26));
    assert_eq!(s.acks.len(), 1);
    assert_eq!(s.acks[0].0, ms(26));
    assert_eq!(s.acks[0].1.ack_delay_ns, Dur::from_millis(25).as_nanos());
    assert_eq!(s.r.poll_timeout(), None);
}

#[test]
fn rfc9000_gap_and_reordering_ack_at_once() {
    let mut s = Script::new(quic(), rfc9000());
    assert_eq!(s.recv(us(0), data(0)), 0);
    // pn 2 opens a gap above the largest (§13.2.1): ACK at once although only one is pending.
    assert_eq!(s.recv(us(10), data(2)), 1);
    assert_eq!(s.acks[0].1.ranges, vec![(2, 2), (0, 0)]);
    // pn 1 arrives below the largest (§13.2.1): ACK at once again.
    assert_eq!(s.recv(us(20), data(1)), 1);
    assert_eq!(s.acks[1].1.ranges, vec![(0, 2)]);
    // In order again: back to every second packet.
    assert_eq!(s.recv(us(30), data(3)), 0);
    assert_eq!(s.recv(us(40), data(4)), 1);
}

#[test]
fn rfc9000_ce_mark_acks_at_once_and_reports_counts() {
    let mut s = Script::new(quic(), rfc9000());
    assert_eq!(s.recv_ecn(us(0), data(0), Ecn::Ect0), 0);
    assert_eq!(s.recv_ecn(us(10), data(1), Ecn::Ect0), 1);
    assert_eq!(s.recv_ecn(us(20), data(2), Ecn::Ce), 1);
    assert_eq!(s.acks[1].1.ecn.as_deref(), Some(&[2, 0, 1]));
}

#[test]
fn rfc9000_never_acks_non_ack_eliciting_packets() {
    let mut s = Script::new(quic(), rfc9000());
    for pn in 0..10 {
        s.recv(
            us(10 * pn),
            Packet {
                pn,
                pn_len: 1,
                ..Default::default()
            },
        );
    }
    s.advance(ms(100));
    assert_eq!((s.acks.len(), s.r.poll_timeout()), (0, None));
}

#[test]
fn ratio_one_to_ten_sends_one_ack_per_ten() {
    let mut s = Script::new(
        quic(),
        AckPolicyConfig::Ratio(RatioConfig {
            ratio: std::num::NonZeroU64::new(10).unwrap(),
            max_ack_delay: Dur::from_millis(25),
        }),
    );
    for pn in 0..100 {
        s.recv(us(10 * pn), data(pn));
    }
    assert_eq!(s.largests(), (1..=10).map(|k| 10 * k - 1).collect::<Vec<_>>());
}

#[test]
fn ratio_after_switches_at_packet_100() {
    let mut s = Script::new(quic(), AckPolicyConfig::RatioAfter(RatioAfterConfig::default()));
    for pn in 0..200 {
        s.recv(us(10 * pn), data(pn));
    }
    // Packets 1..=100 (pn 0..=99) at 1:2 → 50 ACKs, the last on pn 99; then 1:10 → ACKs on
    // the 110th, 120th, ..., 200th packet (pn 109, ..., 199): 10 more.
    let mut expect: Vec<u64> = (0..50).map(|k| 2 * k + 1).collect();
    expect.extend((1..=10).map(|k| 99 + 10 * k));
    assert_eq!(s.largests(), expect);
}

#[test]
fn tcp_delayed_quick_acks_then_every_second_segment() {
    let mut s = Script::new(tcp(), AckPolicyConfig::TcpDelayed(TcpDelayedConfig::default()));
    for i in 0..36 {
        s.recv(us(10 * i), segment(i));
    }
    // 16 quick ACKs (segments 0..=15), then one per 2 full-sized segments (17, 19, ..., 35).
    let mut expect: Vec<u64> = (0..16).collect();
    expect.extend((0..10).map(|k| 17 + 2 * k));
    assert_eq!(s.largests(), expect);
    // A lone segment waits for the 40 ms delayed-ACK timer.
    assert_eq!(s.recv(ms(1), segment(36)), 0);
    s.advance(ms(41));
    assert_eq!(s.acks.last().unwrap().0, ms(41));
}

#[test]
fn tcp_delayed_acks_a_short_last_segment_after_a_full_one_at_once() {
    let mut s = Script::new(tcp(), AckPolicyConfig::TcpDelayed(TcpDelayedConfig::default()));
    for i in 0..17 {
        s.recv(us(10 * i), segment(i));
    }
    // 16 quick ACKs spent; segment 16 (full) waits. The last segment is shorter and carries the FIN:
    // with it more than one MSS is unacknowledged, so Linux ACKs at once (`__tcp_ack_snd_check`),
    // not after the 40 ms timer that would let the sender's probe fire first.
    let mut last = segment(17);
    last.data = Some(DataChunk {
        offset: 17 * 1448,
        len: 600,
        fin: true,
    });
    assert_eq!(s.recv(us(200), last), 1);
    assert_eq!(s.largests().last(), Some(&17));
    // TCP has no ACK-delay field: the ACK reports none.
    assert!(s.acks.iter().all(|(_, a)| a.ack_delay_ns == 0));
}

#[test]
fn tcp_delayed_out_of_order_sends_duplicate_acks_and_sack() {
    let mut s = Script::new(
        tcp(),
        AckPolicyConfig::TcpDelayed(TcpDelayedConfig {
            quickacks: 0,
            ..Default::default()
        }),
    );
    assert_eq!(s.recv(us(0), segment(0)), 0);
    assert_eq!(s.recv(us(10), segment(1)), 1);
    // Segment 2 lost: 3 and 4 are each acked at once, cumulative (0,1) plus a SACK block.
    assert_eq!(s.recv(us(20), segment(3)), 1);
    assert_eq!(s.recv(us(30), segment(4)), 1);
    assert_eq!(s.acks[2].1.ranges, vec![(3, 4), (0, 1)]);
    // The retransmission fills the gap: ACK at once (RFC 5681 §4.2).
    assert_eq!(s.recv(us(40), segment(2)), 1);
    assert_eq!(s.acks[3].1.ranges, vec![(0, 4)]);
    assert_eq!(s.r.stats().bytes_delivered, 5 * 1448);
}

#[test]
fn tcp_delayed_regrants_quick_acks_after_idle() {
    let mut s = Script::new(tcp(), AckPolicyConfig::TcpDelayed(TcpDelayedConfig::default()));
    for i in 0..20 {
        s.recv(us(10 * i), segment(i));
    }
    let before = s.acks.len();
    // 300 ms of silence exceeds the 200 ms idle limit: the next 16 segments are acked one by one.
    for i in 20..36 {
        s.recv(ms(300) + Dur::from_micros(10 * i), segment(i));
    }
    assert_eq!(s.acks.len() - before, 16);
}

#[test]
fn tcp_delayed_resumes_every_second_segment_after_retransmission_under_new_number() {
    let mut s = Script::new(
        tcp(),
        AckPolicyConfig::TcpDelayed(TcpDelayedConfig {
            quickacks: 0,
            ..Default::default()
        }),
    );
    // Segments 0, 1 acked together; segment 2 lost; 3 and 4 acked at once (a hole).
    for i in [0, 1, 3, 4] {
        s.recv(us(10 * i), segment(i));
    }
    assert_eq!(s.acks.len(), 3);
    // The sender retransmits the data of segment 2 as packet 5 (a new number, as the sim does):
    // it fills the byte-stream hole and is acked at once (RFC 5681 §4.2).
    let mut rtx = segment(2);
    rtx.pn = 5;
    assert_eq!(s.recv(us(50), rtx), 1);
    // Packet number 2 never arrives, yet the stream has no hole: back to one ACK per 2 segments.
    let next = |pn: u64| Packet { pn, ..segment(pn - 1) };
    assert_eq!(s.recv(us(60), next(6)), 0);
    assert_eq!(s.recv(us(70), next(7)), 1);
    assert_eq!(s.r.stats().bytes_delivered, 7 * 1448);
}
