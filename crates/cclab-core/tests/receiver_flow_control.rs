//! The receiver's side of flow control (`ReceiverConfig::receive_window`, RFC 9000 §4.1 and §4.6, RFC 9293
//! §3.8.6): stream data ending past the credit is refused (not stored, not acknowledged, counted in
//! `protocol_violations`), so a peer scattering data at far offsets cannot grow the receiver's byte set past
//! about window / 2 ranges, while an honest sender honouring the same window never meets a refusal.
//!
//! Topology of the transfer tests: sender and receiver joined by a fixed 5 ms one-way delay, no rate limit,
//! and a deterministic drop rule on the forward direction (a burst in slow start, then every 50th datagram).

mod receiver_util;

use std::collections::VecDeque;

use cclab_core::cc::{CcConfig, NewRenoConfig};
use cclab_core::endpoint::receiver::{Receiver, ReceiverConfig, MAX_STREAM_RANGES};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::Endpoint;
use cclab_core::units::Bytes;
use cclab_core::wire::packet::{DataChunk, Datagram, Ecn, FlowId, Packet};
use cclab_core::wire::size::Profile;
use cclab_core::{Dur, Time};
use receiver_util::{quic, tcp};

const DELAY: Dur = Dur::from_millis(5);
/// 64 KiB of credit: binding on a 10 ms RTT path without a rate limit.
const WINDOW: u64 = 65_536;
const SIZE: u64 = 1_000_000;

fn receiver(profile: Profile, window: Option<u64>) -> Receiver {
    let cfg = ReceiverConfig {
        receive_window: window.map(Bytes),
        ..Default::default()
    };
    Receiver::new(FlowId(0), profile, &cfg, Time::ZERO)
}

fn data(pn: u64, offset: u64, len: u32) -> Datagram {
    Datagram {
        flow: FlowId(0),
        size: 1500,
        ecn: Ecn::NotEct,
        packet: Packet {
            pn,
            pn_len: 4,
            data: Some(DataChunk {
                offset,
                len,
                fin: false,
            }),
            ..Default::default()
        },
    }
}

#[test]
fn hostile_scattered_stream_data_leaves_the_byte_set_bounded_by_the_window() {
    const W: u64 = 4096;
    const PREFIX: u64 = 1000;
    const N: u64 = 20_000;
    for profile in [quic(), tcp()] {
        let mut r = receiver(profile, Some(W));
        let t = Time(1_000);
        r.handle_datagram(t, data(0, 0, PREFIX as u32));
        // One byte every other byte above the prefix: each accepted one opens a range. The credit ends at
        // PREFIX + W, so offsets up to PREFIX + W − 1 are stored and the rest refused.
        for k in 0..N {
            r.handle_datagram(t, data(1 + k, PREFIX + 1 + 2 * k, 1));
            assert!(
                r.stream().len() as u64 <= W / 2 + 1,
                "{profile:?}: {}",
                r.stream().len()
            );
        }
        let accepted = (W - 2) / 2 + 1;
        assert_eq!(r.stream().len() as u64, 1 + accepted, "{profile:?}");
        assert_eq!(r.stats().protocol_violations, N - accepted, "{profile:?}");
        // Far offsets too, whatever their size.
        r.handle_datagram(t, data(N + 1, 1 << 40, 1200));
        r.handle_datagram(t, data(N + 2, PREFIX + W - 1, 2));
        assert_eq!(r.stats().protocol_violations, N - accepted + 2, "{profile:?}");
        // Refused data is not acknowledged: the ACK reports the accepted packet numbers only.
        assert_eq!(r.received().max(), Some(accepted), "{profile:?}");
        let ack = r.poll_transmit(Time(100_000_000)).expect("an ACK is due");
        assert_eq!(ack.packet.ack.and_then(|a| a.largest()), Some(accepted));
        // The honest stream still arrives intact: in-order chunks fill every hole, and each ends within
        // the credit because the prefix advances with them.
        let mut pn = N + 3;
        let mut offset = PREFIX;
        while offset < 50_000 {
            r.handle_datagram(t, data(pn, offset, 1000));
            pn += 1;
            offset += 1000;
        }
        assert_eq!(r.stats().bytes_delivered, 50_000, "{profile:?}");
        assert_eq!(r.stream().len(), 1);
        assert_eq!(r.stats().protocol_violations, N - accepted + 2, "{profile:?}");
    }
}

#[test]
fn hostile_scattered_stream_data_inside_the_default_credit_stops_at_the_range_cap() {
    const PREFIX: u64 = 1000;
    let cap = MAX_STREAM_RANGES as u64;
    let n = cap + 5_000;
    let mut r = receiver(quic(), None);
    let t = Time(1_000);
    r.handle_datagram(t, data(0, 0, PREFIX as u32));
    // One byte every other byte, all far inside the 1 TiB default credit: each stored one opens a range.
    for k in 0..n {
        r.handle_datagram(t, data(1 + k, PREFIX + 1 + 2 * k, 1));
    }
    assert_eq!(r.stream().len() as u64, cap);
    assert_eq!(r.stats().protocol_violations, n - (cap - 1));
    // At the cap, data that extends a stored range or fills a hole is still taken: the prefix advances
    // through the first holes and merges their ranges.
    for hole in 0..100u64 {
        r.handle_datagram(t, data(n + 1 + hole, PREFIX + 2 * hole, 1));
    }
    assert_eq!(r.stats().bytes_delivered, PREFIX + 200);
    assert_eq!(r.stream().len() as u64, cap - 100);
    assert_eq!(r.stats().protocol_violations, n - (cap - 1));
}

/// A sender and a receiver across the drop rule of the module doc; returns both after the transfer (or
/// after 20 simulated seconds), with the most stream data the receiver held past its contiguous prefix.
fn transfer(profile: Profile, sender_window: Option<u64>, receiver_window: Option<u64>) -> (Sender, Receiver, u64) {
    let scfg = SenderConfig {
        receive_window: sender_window.map(Bytes),
        ..Default::default()
    };
    let cc = CcConfig::NewReno(NewRenoConfig::default());
    let source = SourceConfig::Bulk { size: Bytes(SIZE) };
    let mut s = Sender::new(FlowId(0), profile, &scfg, &cc, &source, Time::ZERO);
    let mut r = receiver(profile, receiver_window);
    let mut to_r: VecDeque<(Time, Datagram)> = VecDeque::new();
    let mut to_s: VecDeque<(Time, Datagram)> = VecDeque::new();
    let mut now = Time::ZERO;
    let mut sent = 0u64;
    let mut max_ahead = 0;
    while !(s.is_done() && r.is_done()) && now < Time::ZERO + Dur::from_secs(20) {
        while let Some(d) = s.poll_transmit(now) {
            sent += 1;
            if !(300..320).contains(&sent) && !sent.is_multiple_of(50) {
                to_r.push_back((now + DELAY, d));
            }
        }
        while let Some(d) = r.poll_transmit(now) {
            to_s.push_back((now + DELAY, d));
        }
        let next = [
            to_r.front().map(|q| q.0),
            to_s.front().map(|q| q.0),
            s.poll_timeout(),
            r.poll_timeout(),
        ];
        let Some(next) = next.into_iter().flatten().min() else {
            break;
        };
        now = now.max(next);
        while to_r.front().is_some_and(|q| q.0 <= now) {
            let (_, d) = to_r.pop_front().unwrap();
            r.handle_datagram(now, d);
            let ahead = r.stream().max().map_or(0, |m| m + 1) - r.stats().bytes_delivered;
            max_ahead = max_ahead.max(ahead);
        }
        while to_s.front().is_some_and(|q| q.0 <= now) {
            let (_, d) = to_s.pop_front().unwrap();
            s.handle_datagram(now, d);
        }
        s.handle_timeout(now);
        r.handle_timeout(now);
    }
    if let Some(w) = receiver_window {
        assert!(max_ahead <= w, "stored data reached {max_ahead} past the prefix");
    }
    (s, r, max_ahead)
}

#[test]
fn receive_window_never_refuses_an_honest_sender_with_the_same_window() {
    for profile in [quic(), tcp()] {
        for window in [Some(WINDOW), None] {
            let (s, r, ahead) = transfer(profile, window, window);
            assert!(s.is_done(), "{profile:?} {window:?}: not done");
            assert_eq!(r.stats().bytes_delivered, SIZE, "{profile:?} {window:?}");
            assert!(r.stats().completion_time.is_some());
            assert!(s.stats().lost_packets > 20, "the drop rule made holes");
            assert_eq!(r.stats().protocol_violations, 0, "{profile:?} {window:?}");
            assert_eq!(s.stats().protocol_violations, 0, "{profile:?} {window:?}");
            // Without a window the sender runs further ahead of the holes: the window binds on this path.
            assert_eq!(window.is_none(), ahead > WINDOW, "{profile:?} {window:?}: {ahead}");
        }
    }
}

#[test]
fn receive_window_refuses_a_sender_that_overruns_it() {
    // The sender believes in four times the credit the receiver grants: what runs past it is refused.
    let (_, r, _) = transfer(quic(), Some(4 * WINDOW), Some(WINDOW));
    assert!(r.stats().protocol_violations > 0);
}

#[test]
fn default_receive_window_refuses_only_data_a_tebibyte_past_the_prefix() {
    use cclab_core::endpoint::receiver::DEFAULT_RECEIVE_WINDOW;
    let mut r = receiver(quic(), None);
    let t = Time(1_000);
    r.handle_datagram(t, data(0, DEFAULT_RECEIVE_WINDOW - 1000, 1000));
    assert_eq!(r.stats().protocol_violations, 0);
    r.handle_datagram(t, data(1, DEFAULT_RECEIVE_WINDOW - 1000, 1001));
    assert_eq!(r.stats().protocol_violations, 1);
    assert_eq!(r.stream().len(), 1);
}

#[test]
fn in_order_data_is_refused_past_the_credit_the_encoding_bound_and_the_final_size() {
    // Each arrival below follows the received packet numbers and the stream's prefix, the receiver's
    // in-order path: it must refuse what `violates` refuses for any other arrival.
    const W: u64 = 4096;
    for profile in [quic(), tcp()] {
        let mut r = receiver(profile, Some(W));
        let t = Time(1_000);
        r.handle_datagram(t, data(0, 0, 1000));
        // Past the credit: 1000 + 4097 > 1000 + W.
        r.handle_datagram(t, data(1, 1000, W as u32 + 1));
        assert_eq!(r.stats().protocol_violations, 1);
        assert_eq!((r.bytes_delivered(), r.received().max()), (1000, Some(0)));
        // Within it, up to its end.
        r.handle_datagram(t, data(1, 1000, W as u32));
        assert_eq!((r.bytes_delivered(), r.received().max()), (1000 + W, Some(1)));
        // The FIN, then data past the final size (RFC 9000 §4.5): refused.
        let mut fin = data(2, 1000 + W, 10);
        fin.packet.data.as_mut().expect("data").fin = true;
        r.handle_datagram(t, fin);
        assert_eq!(r.stats().completion_time, Some(t));
        r.handle_datagram(t, data(3, 1010 + W, 10));
        assert_eq!(r.stats().protocol_violations, 2);
        assert_eq!((r.bytes_delivered(), r.received().max()), (1010 + W, Some(2)));
    }
    // A packet number past 2^62 − 1 (RFC 9000 §12.3), right after the largest allowed.
    let mut r = receiver(quic(), None);
    let max = (1u64 << 62) - 1;
    r.handle_datagram(Time(1_000), data(max, 0, 100));
    r.handle_datagram(Time(1_000), data(max + 1, 100, 100));
    assert_eq!(r.stats().protocol_violations, 1);
    assert_eq!((r.bytes_delivered(), r.received().max()), (100, Some(max)));
}
