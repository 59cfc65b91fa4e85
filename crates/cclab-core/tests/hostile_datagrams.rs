//! Decodable but hostile datagrams fed straight into the endpoints: each is refused in O(its size), counted
//! in `protocol_violations`, and leaves the endpoint working. Regression tests for issue #14 (the 48-byte
//! ACK that hung a sender) and the other out-of-range fields a real-UDP peer could send.

use cclab_core::cc::{CcConfig, NewRenoConfig};
use cclab_core::endpoint::receiver::{Receiver, ReceiverConfig};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::tfrc::{TfrcConfig, TfrcReceiver, TfrcSender};
use cclab_core::endpoint::Endpoint;
use cclab_core::units::Bytes;
use cclab_core::wire::packet::{AckFrame, DataChunk, Datagram, Ecn, FlowId, Packet, TfrcFeedback, MAX_VARINT};
use cclab_core::wire::quic::decode;
use cclab_core::wire::size::{DccpProfile, Profile, QuicProfile};
use cclab_core::{Dur, Time};

/// The datagram of issue #14: a 1-RTT packet (DCID of 8 zero bytes, pn 1) whose ACK frame claims packets
/// 0 to 2^62−1 (Largest Acknowledged and First ACK Range both 2^62−1), then a 16-byte tag.
const HANG_ACK: &str =
    "4300000000000000000000000102ffffffffffffffff0000ffffffffffffffffa5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn dgram(packet: Packet) -> Datagram {
    Datagram {
        flow: FlowId(0),
        size: 1500,
        ecn: Ecn::NotEct,
        packet,
    }
}

fn ack(ranges: Vec<(u64, u64)>) -> Datagram {
    dgram(Packet {
        ack: Some(Box::new(AckFrame {
            ranges: ranges.into(),
            ..Default::default()
        })),
        ..Default::default()
    })
}

/// A QUIC NewReno sender with 100 kB to send, after it sent its initial window at t = 0.
fn sender_with_window_out() -> (Sender, u64) {
    let mut s = Sender::new(
        FlowId(0),
        Profile::Quic(QuicProfile::default()),
        &SenderConfig::default(),
        &CcConfig::NewReno(NewRenoConfig::default()),
        &SourceConfig::Bulk { size: Bytes(100_000) },
        Time::ZERO,
    );
    let mut sent = 0;
    while s.poll_transmit(Time::ZERO).is_some() {
        sent += 1;
    }
    assert!(sent > 2, "the initial window holds several packets");
    (s, sent)
}

#[test]
fn hostile_ack_of_every_packet_number_is_refused_not_iterated() {
    let bytes = hex(HANG_ACK);
    assert_eq!(bytes.len(), 48);
    let packet = decode(&bytes, &QuicProfile::default(), None).expect("the datagram decodes");
    assert_eq!(packet.ack.as_deref().and_then(AckFrame::largest), Some(MAX_VARINT));
    let (mut s, sent) = sender_with_window_out();
    let in_flight = s.bytes_in_flight();
    // Before the fix this call stepped through 2^62 packet numbers in loss detection.
    s.handle_datagram(Time(1_000_000), dgram(packet));
    assert_eq!(s.stats().protocol_violations, 1);
    assert_eq!(
        s.bytes_in_flight(),
        in_flight,
        "nothing was acknowledged or declared lost"
    );
    assert_eq!(s.stats().lost_packets, 0);
    // A correct ACK afterwards is processed as usual.
    s.handle_datagram(Time(20_000_000), ack(vec![(0, sent - 1)]));
    assert_eq!(s.bytes_in_flight(), 0);
    assert_eq!(s.stats().protocol_violations, 1);
}

#[test]
fn hostile_ack_frames_with_malformed_ranges_are_refused() {
    let (mut s, sent) = sender_with_window_out();
    let bad: [Vec<(u64, u64)>; 6] = [
        vec![],               // no range
        vec![(0, sent)],      // one packet never sent
        vec![(2, 1)],         // smallest above largest
        vec![(0, 1), (2, 2)], // ascending
        vec![(2, 2), (0, 1)], // adjacent: no gap
        vec![(1, 2), (1, 1)], // overlapping
    ];
    for (i, ranges) in bad.iter().enumerate() {
        s.handle_datagram(Time(1_000_000), ack(ranges.clone()));
        assert_eq!(s.stats().protocol_violations, i as u64 + 1, "{ranges:?}");
    }
    assert_eq!(s.stats().bytes_delivered, 0);
    // Gaps of one missing number are fine (RFC 9000 §19.3.1): 0 and 2 are acknowledged.
    s.handle_datagram(Time(20_000_000), ack(vec![(2, 2), (0, 0)]));
    assert_eq!(s.stats().protocol_violations, bad.len() as u64);
    assert!(s.stats().bytes_delivered > 0);
}

#[test]
fn ack_frame_check_names_the_broken_rule() {
    let f = |ranges: Vec<(u64, u64)>| AckFrame {
        ranges: ranges.into(),
        ..Default::default()
    };
    assert_eq!(f(vec![(4, 9), (0, 2)]).check(10), Ok(9));
    assert_eq!(f(vec![(0, 10)]).check(10), Err("ACK of a packet number never sent"));
    assert_eq!(f(vec![(0, MAX_VARINT)]).check(u64::MAX), Ok(MAX_VARINT));
    assert_eq!(
        f(vec![(3, 5), (0, 2)]).check(10),
        Err("ACK ranges not descending with a gap")
    );
    assert_eq!(f(vec![(5, 3)]).check(10), Err("ACK range with smallest above largest"));
}

fn receiver() -> Receiver {
    Receiver::new(
        FlowId(0),
        Profile::Quic(QuicProfile::default()),
        &ReceiverConfig::default(),
        Time::ZERO,
    )
}

fn data(pn: u64, offset: u64, len: u32, fin: bool) -> Datagram {
    dgram(Packet {
        pn,
        pn_len: 4,
        data: Some(DataChunk { offset, len, fin }),
        ..Default::default()
    })
}

#[test]
fn hostile_stream_data_beyond_limits_or_final_size_is_refused() {
    let mut r = receiver();
    let t = Time(1_000);
    // An offset whose end overflows u64 (a debug panic before), one past 2^62−1, a packet number past it.
    r.handle_datagram(t, data(0, u64::MAX - 10, 100, false));
    r.handle_datagram(t, data(1, MAX_VARINT, 1, false));
    r.handle_datagram(t, data(u64::MAX, 0, 10, false));
    assert_eq!(r.stats().protocol_violations, 3);
    assert!(r.poll_transmit(Time(100_000_000)).is_none(), "nothing was accepted");
    // Stream of 1000 bytes: then data past the final size, and a second, different final size.
    r.handle_datagram(t, data(3, 0, 1000, true));
    r.handle_datagram(t, data(4, 1000, 10, false));
    r.handle_datagram(t, data(5, 0, 500, true));
    assert_eq!(r.stats().protocol_violations, 5);
    assert_eq!(r.stats().bytes_delivered, 1000);
    assert!(r.stats().completion_time.is_some());
    // An offset whose end overflows u64 right after in-order data, where the in-order path looks first: refused,
    // not a panic (found by the `endpoints` fuzzer; its input is the seed
    // fuzz/corpus/endpoints/seed-regress-receiver-in-order-offset-overflow).
    let mut r = receiver();
    r.handle_datagram(t, data(0, 0, 1000, false));
    r.handle_datagram(t, data(1, u64::MAX - 10, 100, false));
    assert_eq!(r.stats().protocol_violations, 1);
    assert_eq!(r.stats().bytes_delivered, 1000);
    // A final size below bytes already received is refused as well.
    let mut r = receiver();
    r.handle_datagram(t, data(0, 0, 1000, false));
    r.handle_datagram(t, data(1, 0, 10, true));
    assert_eq!(r.stats().protocol_violations, 1);
}

fn dccp() -> Profile {
    Profile::Dccp(DccpProfile { ipv6: false })
}

#[test]
fn hostile_dccp_sequence_jump_is_refused_not_classified() {
    let mut r = TfrcReceiver::new(FlowId(0), dccp(), &TfrcConfig::default(), Time::ZERO);
    r.handle_datagram(Time(1_000), data(0, 0, 1000, false));
    // Each skipped number would be classified one by one: 2^62 of them hung the receiver.
    r.handle_datagram(Time(2_000), data(1 << 62, 1000, 1000, false));
    r.handle_datagram(Time(3_000), data(1 << 17, 1000, 1000, false));
    let mut bad_ccval = data(1, 1000, 1000, false);
    bad_ccval.packet.ccval = 16;
    r.handle_datagram(Time(4_000), bad_ccval);
    assert_eq!(r.stats().protocol_violations, 3);
    assert_eq!(r.stats().lost_packets, 0);
    // A jump inside the window is a burst loss: once NDUPACK (3) packets follow, 1..=999 are declared lost.
    for pn in 1000..1004 {
        r.handle_datagram(Time(5_000 + pn), data(pn, pn * 1000, 1000, false));
    }
    assert_eq!(r.stats().protocol_violations, 3);
    assert_eq!(r.stats().lost_packets, 999);
}

#[test]
fn hostile_tfrc_feedback_is_refused() {
    let mut s = TfrcSender::new(
        FlowId(0),
        dccp(),
        &TfrcConfig::default(),
        &SourceConfig::Bulk { size: Bytes(100_000) },
        Time::ZERO,
    );
    let mut now = Time::ZERO;
    let mut sent = 0u64;
    while sent == 0 && now < Time(10_000_000_000) {
        s.handle_timeout(now);
        while s.poll_transmit(now).is_some() {
            sent += 1;
        }
        now += Dur::from_millis(1);
    }
    assert!(sent > 0);
    let feedback = |echo: u64, p: f64| {
        dgram(
            Packet {
                ack: Some(Box::new(AckFrame {
                    ranges: vec![(echo, echo)].into(),
                    ..Default::default()
                })),
                ..Default::default()
            }
            .with_tfrc(TfrcFeedback {
                x_recv_bps: 1_000_000,
                p,
                elapsed_ns: 0,
            }),
        )
    };
    s.handle_datagram(now, feedback(sent + 5, 0.0));
    s.handle_datagram(now, feedback(0, f64::NAN));
    s.handle_datagram(now, feedback(0, 2.0));
    s.handle_datagram(now, feedback(0, -0.5));
    assert_eq!(s.stats().protocol_violations, 4);
}

/// A PING-only packet numbered `pn`: ack-eliciting, no stream data.
fn ping(pn: u64) -> Datagram {
    dgram(Packet {
        pn,
        pn_len: 4,
        ping: true,
        ..Default::default()
    })
}

#[test]
fn hostile_packet_number_gaps_leave_the_receiver_range_set_bounded() {
    use cclab_core::endpoint::receiver::TCP_MAX_RANGES;
    use cclab_core::wire::size::TcpProfile;
    let tcp = Profile::Tcp(TcpProfile {
        mss: 1448,
        timestamps: true,
        ipv6: false,
        accecn: false,
    });
    const N: u64 = 20_000;
    for (profile, bound) in [(Profile::Quic(QuicProfile::default()), 32), (tcp, TCP_MAX_RANGES)] {
        let mut r = Receiver::new(FlowId(0), profile, &ReceiverConfig::default(), Time::ZERO);
        // Packet 0 opens the cumulative range; a packet far above it makes every later one land below the top
        // range, the costly insert; then every other number opens one more range.
        r.handle_datagram(Time(1), ping(0));
        r.handle_datagram(Time(2), ping(4 * N));
        for k in 1..N {
            r.handle_datagram(Time(2 + k), ping(2 * k));
            assert!(
                r.received().len() <= bound,
                "{profile:?}: {} ranges",
                r.received().len()
            );
        }
        // N + 1 singleton ranges were opened; all but `bound` were forgotten, and each counted.
        assert_eq!(r.received().len(), bound);
        assert_eq!(r.stats().ack_ranges_forgotten, N + 1 - bound as u64, "{profile:?}");
        assert_eq!(r.stats().protocol_violations, 0);
        // The receiver still acknowledges the newest packet, with a well-formed frame.
        let ack = r.poll_transmit(Time(1_000_000_000)).expect("an ACK is due");
        let frame = ack.packet.ack.expect("an ACK frame");
        assert_eq!(frame.check(4 * N + 1), Ok(4 * N));
        if matches!(profile, Profile::Tcp(_)) {
            // TCP keeps its cumulative ACK point: packet 0, never a forgotten packet.
            assert_eq!(frame.ranges.last(), Some(&(0, 0)));
        }
    }
}
