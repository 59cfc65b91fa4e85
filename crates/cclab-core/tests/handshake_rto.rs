//! The data sender's retransmission timeout after a TCP handshake whose SYN was resent: 3 s until
//! the first RTT sample when the handshake gave none (RFC 6298 §5.7), the usual timeout otherwise.
//!
//! ```text
//!  0 ms     SYN (lost)
//!  1000 ms  SYN again (its timeout, RFC 6298 §2.1) ──10 ms──▶ server ──10 ms──▶ SYN-ACK at 1020 ms
//!  1020 ms  first data segment (lost): its timeout is armed
//! ```
//! Without timestamps the SYN-ACK may answer either SYN, so it gives no RTT sample (Karn, RFC 6298
//! §3); with them its TSecr names the second SYN: a 20 ms sample.

mod handshake_pair;

use handshake_pair::tcp;

use cclab_core::cc::CcConfig;
use cclab_core::endpoint::handshake::HandshakeConfig;
use cclab_core::endpoint::receiver::Receiver;
use cclab_core::endpoint::sender::Sender;
use cclab_core::endpoint::Endpoint;
use cclab_core::time::{Dur, Time};

fn ms(x: u64) -> Time {
    Time::ZERO + Dur::from_millis(x)
}

/// The timeline above up to the lost first data segment: the pair, with the sender's timer armed.
fn open_after_a_resent_syn(timestamps: bool) -> (Sender, Receiver) {
    let cc = CcConfig::NewReno(Default::default());
    let (mut s, mut r) = handshake_pair::pair(tcp(timestamps), HandshakeConfig::default(), &cc, 100_000);
    s.poll_transmit(ms(0)).expect("the SYN, lost");
    assert_eq!(s.poll_timeout(), Some(ms(1000)), "RFC 6298 §2.1: 1 s");
    s.handle_timeout(ms(1000));
    let syn = s.poll_transmit(ms(1000)).expect("the SYN again");
    r.handle_datagram(ms(1010), syn);
    let syn_ack = r.poll_transmit(ms(1010)).expect("the SYN-ACK");
    s.handle_datagram(ms(1020), syn_ack);
    let data = s.poll_transmit(ms(1020)).expect("the first data segment, lost");
    assert!(data.packet.data.is_some());
    // After a lost SYN the window is one segment (RFC 5681 §3.1): nothing more goes out.
    assert!(s.poll_transmit(ms(1020)).is_none());
    (s, r)
}

#[test]
fn tcp_rto_is_three_seconds_after_a_handshake_without_an_rtt_sample() {
    let (mut s, mut r) = open_after_a_resent_syn(false);
    assert!(!s.rtt().has_sample());
    // RFC 6298 §5.7: the timeout is 3 s from the segment, not the 1 s of §2.1 (999 ms from
    // RFC 9002's 333 ms initial RTT, plus 200 ms for a delayed ACK of one segment, RFC 8985 §7.2).
    assert_eq!(s.poll_timeout(), Some(ms(4020)));
    s.handle_timeout(ms(4019));
    assert!(s.poll_transmit(ms(4019)).is_none(), "nothing fires before 3 s");
    s.handle_timeout(ms(4020));
    let probe = s.poll_transmit(ms(4020)).expect("the data again at 3 s");
    assert!(probe.packet.data.is_some());
    assert_eq!(s.pto_count(), 1);
    // The probe arrives and is acknowledged: the first RTT sample (20 ms), and from then on
    // RFC 6298 §2.2 (here RFC 9002's form of it), far below 3 s.
    r.handle_datagram(ms(4030), probe);
    let mut t = ms(4030);
    let ack = loop {
        if let Some(a) = r.poll_transmit(t) {
            break a;
        }
        t = r.poll_timeout().expect("the receiver's delayed ACK");
        r.handle_timeout(t);
    };
    s.handle_datagram(t + Dur::from_millis(10), ack);
    assert_eq!(s.rtt().latest(), t + Dur::from_millis(10) - ms(4020));
    let now = t + Dur::from_millis(10);
    while s.poll_transmit(now).is_some() {}
    let rto = s.poll_timeout().expect("data in flight") - now;
    assert!(
        rto < Dur::from_secs(1),
        "the usual timeout after the first sample: {rto:?}"
    );
}

#[test]
fn tcp_rto_after_a_resent_syn_with_timestamps_follows_the_handshake_sample() {
    let (s, _) = open_after_a_resent_syn(true);
    assert_eq!(s.rtt().latest(), Dur::from_millis(20));
    // srtt 20 ms, rttvar 10 ms: 20 + 4·10 + 200 ms (one segment in flight, RFC 8985 §7.2).
    assert_eq!(s.poll_timeout(), Some(ms(1020 + 260)));
}
