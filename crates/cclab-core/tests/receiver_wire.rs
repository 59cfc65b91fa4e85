//! What the receiver puts on the wire: ACK sizes (RFC 9000 §19.3, TCP SACK), range bounds under
//! loss (RFC 9000 §13.2.4), and in-order stream delivery.

mod receiver_util;

use std::collections::BTreeSet;

use cclab_core::ack::AckPolicyConfig;
use cclab_core::endpoint::receiver::ReceiverConfig;
use cclab_core::endpoint::Endpoint;
use cclab_core::wire::packet::{DataChunk, Ecn, Packet};
use cclab_core::wire::size::{quic_ack_frame_len, Profile, QuicProfile, TcpProfile};
use rand::Rng;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use receiver_util::{data, ms, quic, segment, us, Script};

#[test]
fn receiver_quic_ack_sizes_follow_rfc9000_encoding() {
    let mut s = Script::new(quic(), AckPolicyConfig::default());
    for (k, pn) in (0..=9).chain(12..=15).chain([20]).enumerate() {
        s.recv(us(10 * k as u64), data(pn));
    }
    // The gap at 20 forces an immediate ACK with delay 0: type, largest 20, delay 0, count 2,
    // first range 0, then (gap 3, len 3), (gap 1, len 9): nine 1-byte fields = 9 B frame;
    // packet 1 + DCID 8 + PN 2 + 9 + AEAD 16 = 36 B; + UDP 8 + IPv4 20 = 64 B.
    let (_, last) = s.acks.last().unwrap();
    assert_eq!(last.ranges, vec![(20, 20), (12, 15), (0, 9)]);
    assert_eq!(quic_ack_frame_len(last), 9);
    assert_eq!(*s.sizes.last().unwrap(), 64);
    assert_eq!(s.r.stats().ack_bytes, s.sizes.iter().map(|&x| x as u64).sum::<u64>());

    // pn 100000 alone, acked by the 25 ms timer: largest needs 4 B, delay 25000 µs >> 3 = 3125
    // needs 2 B → 1 + 4 + 2 + 1 + 1 = 9 B again; two ECT(0) marks add three 1-byte counts. It is the
    // receiver's first ACK, so it also carries the 1-byte PING that RFC 9000 §13.2.4 has it send about
    // once per round trip.
    let mut t = Script::new(quic(), AckPolicyConfig::default());
    t.recv_ecn(ms(0), data(100_000), Ecn::Ect0);
    t.advance(ms(25));
    assert_eq!((t.acks.len(), t.acks[0].1.ack_delay_ns), (1, 25_000_000));
    assert_eq!(t.sizes, vec![64 + 3 + 1]);
    let v6 = Profile::Quic(QuicProfile {
        ipv6: true,
        ..Default::default()
    });
    let mut u = Script::new(v6, AckPolicyConfig::default());
    u.recv(ms(0), data(100_000));
    u.advance(ms(25));
    assert_eq!(u.sizes, vec![84 + 1]);
}

#[test]
fn receiver_tcp_ack_carries_cumulative_and_newest_sack_blocks() {
    for (timestamps, blocks, size) in [(true, 3u64, 52 + 4 + 3 * 8), (false, 4, 40 + 4 + 4 * 8)] {
        let tcp = Profile::Tcp(TcpProfile {
            mss: 1448,
            timestamps,
            ipv6: false,
            accecn: false,
        });
        let mut s = Script::new(tcp, AckPolicyConfig::TcpDelayed(Default::default()));
        for (k, i) in (0..=4).chain([6, 8, 10, 12, 14]).enumerate() {
            s.recv(us(10 * k as u64), segment(i));
        }
        let mut expect: Vec<(u64, u64)> = (0..blocks).map(|b| (14 - 2 * b, 14 - 2 * b)).collect();
        expect.push((0, 4));
        assert_eq!(s.acks.last().unwrap().1.ranges, expect);
        assert_eq!(*s.sizes.last().unwrap(), size as u32);
    }
}

#[test]
fn receiver_ranges_stay_bounded_under_random_loss() {
    let cfg = ReceiverConfig {
        max_ack_ranges: std::num::NonZeroUsize::new(32).unwrap(),
        ..Default::default()
    };
    let mut s = Script::with_config(quic(), &cfg);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut got = BTreeSet::new();
    for pn in 0..100_000u64 {
        if rng.random_bool(0.1) {
            continue;
        }
        got.insert(pn);
        s.recv(us(pn), data(pn));
        assert!(s.r.received().len() <= 32);
    }
    assert!(s.acks.iter().all(|(_, a)| a.ranges.len() <= 32));
    // The last ACK reports exactly the 32 newest ranges of everything received.
    let mut all: Vec<(u64, u64)> = Vec::new();
    for &pn in got.iter().rev() {
        match all.last_mut() {
            Some(r) if r.0 == pn + 1 => r.0 = pn,
            _ => all.push((pn, pn)),
        }
    }
    s.advance(ms(1000));
    all.truncate(32);
    assert_eq!(s.acks.last().unwrap().1.ranges, all);
}

#[test]
fn receiver_delivers_in_order_and_completes_at_fin() {
    let mut s = Script::new(quic(), AckPolicyConfig::default());
    let last = Packet {
        data: Some(DataChunk {
            offset: 2000,
            len: 500,
            fin: true,
        }),
        ..data(2)
    };
    s.recv(us(0), data(0));
    s.recv(us(10), last);
    assert_eq!(s.r.stats().bytes_delivered, 1000);
    assert!(!s.r.is_done());
    s.recv(us(20), data(1));
    assert_eq!(s.r.stats().bytes_delivered, 2500);
    assert_eq!(s.r.stats().completion_time, Some(us(20)));
    // pn 1 was out of order, so its ACK went out at once: nothing left to do.
    assert!(s.r.is_done());
}

#[test]
fn receiver_tcp_sack_blocks_follow_byte_holes_not_packet_numbers() {
    let tcp = Profile::Tcp(TcpProfile {
        mss: 1448,
        timestamps: true,
        ipv6: false,
        accecn: false,
    });
    let mut s = Script::new(tcp, AckPolicyConfig::TcpDelayed(Default::default()));
    // Segment 2 is lost; the sender retransmits its bytes under the new index 6 (as the
    // simulator's TCP sender does), then sends segments 6 and 7 as indices 7 and 8.
    let sent = |pn: u64, seg: u64| Packet { pn, ..segment(seg) };
    for (k, (pn, seg)) in [(0, 0), (1, 1), (3, 3), (4, 4), (5, 5)].into_iter().enumerate() {
        s.recv(us(10 * k as u64), sent(pn, seg));
    }
    let hole_open = s.acks.len();
    // RFC 2018 §3: one byte hole → one SACK block: IPv4 20 + TCP 20 + timestamps 12 = 52 B,
    // plus two NOPs, kind and length 4 B and one 8 B block.
    let first_ooo = s.acks.iter().position(|(_, a)| a.ranges.len() == 2).unwrap();
    assert!(s.sizes[first_ooo..].iter().all(|&x| x == 52 + 4 + 8), "{:?}", s.sizes);
    assert!(s.acks[first_ooo..].iter().all(|(_, a)| a.sack_blocks == Some(1)));
    for (k, (pn, seg)) in [(6, 2), (7, 6), (8, 7)].into_iter().enumerate() {
        s.recv(us(100 + 10 * k as u64), sent(pn, seg));
    }
    s.advance(ms(1000));
    assert!(s.acks.len() > hole_open);
    // The byte stream is whole again, so no SACK option, although packet number 2 is still a hole.
    assert!(s.sizes[hole_open..].iter().all(|&x| x == 52), "{:?}", s.sizes);
    assert!(s.acks[hole_open..].iter().all(|(_, a)| a.sack_blocks == Some(0)));
    assert_eq!(s.acks.last().unwrap().1.ranges, vec![(3, 8), (0, 1)]);
}

#[test]
fn receiver_quic_ack_ranges_and_sizes_match_a_fresh_walk_under_loss_reordering_and_acked_acks() {
    // The receiver keeps an ACK frame's lower ranges and their fields' size from one ACK to the next,
    // following the changes at the ends of its packet-number set (a new top range, a trim) and of the
    // floor (RFC 9000 §13.2.4), and rebuilds them after a late packet: every frame must still report the
    // newest ranges above the floor, the lowest clipped to it, and every size be what a fresh sizing of
    // the packet gives, as holes open, late packets fill them, old ranges are trimmed and the sender's
    // acknowledgements of PING-carrying ACKs raise the floor.
    use cclab_core::endpoint::receiver::Receiver;
    use cclab_core::wire::packet::{AckFrame, Datagram, FlowId};
    let profile = quic();
    let cfg = ReceiverConfig {
        max_ack_ranges: std::num::NonZeroUsize::new(32).unwrap(),
        ..Default::default()
    };
    let mut r = Receiver::new(FlowId(1), profile, &cfg, us(0));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    let (mut late, mut pings, mut acks, mut many_ranges) = (Vec::new(), Vec::new(), 0, 0);
    for pn in 0..20_000u64 {
        let t = us(pn);
        while let Some(d) = r.poll_timeout().filter(|&d| d <= t) {
            r.handle_timeout(d);
        }
        let mut p = data(pn);
        match rng.random_range(0..10) {
            0 => continue,
            1 => late.push((pn + rng.random_range(3..60), p)),
            _ => {
                if !pings.is_empty() && rng.random_bool(0.01) {
                    let ranges = pings.drain(..).map(|pn| (pn, pn)).rev().collect::<Vec<_>>();
                    p.ack = Some(Box::new(AckFrame {
                        ranges: ranges.into(),
                        ..Default::default()
                    }));
                }
                late.push((pn, p));
            }
        }
        late.sort_by_key(|&(due, _)| std::cmp::Reverse(due));
        while late.last().is_some_and(|&(due, _)| due <= pn) {
            let (_, packet) = late.pop().unwrap();
            let dgram = Datagram {
                flow: FlowId(1),
                size: 1500,
                ecn: Ecn::NotEct,
                packet,
            };
            r.handle_datagram(t, dgram);
        }
        while let Some(d) = r.poll_transmit(t) {
            assert_eq!(
                d.size,
                profile.datagram_size(&d.packet),
                "ACK {} at pn {pn}",
                d.packet.pn
            );
            let ack = d.packet.ack.as_ref().unwrap();
            let floor = r.ack_floor();
            let mut want: Vec<(u64, u64)> = r
                .received()
                .iter_desc()
                .filter(|r| floor.is_none_or(|f| r.1 > f))
                .map(|(lo, hi)| (floor.map_or(lo, |f| lo.max(f + 1)), hi))
                .take(32)
                .collect();
            if want.is_empty() {
                want.extend(r.received().iter_desc().next());
            }
            assert_eq!(ack.ranges, want, "ACK {} at pn {pn}, floor {floor:?}", d.packet.pn);
            many_ranges += usize::from(ack.ranges.len() >= 16);
            acks += 1;
            if d.packet.ping {
                pings.push(d.packet.pn);
            }
        }
    }
    assert!(
        acks > 5_000 && many_ranges > 1_000,
        "{acks} ACKs, {many_ranges} with 16+ ranges"
    );
}
