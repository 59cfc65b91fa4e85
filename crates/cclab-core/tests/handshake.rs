//! The handshake endpoints of `endpoint::handshake`, driven by hand: the client inside the data
//! sender, the server inside the data receiver, datagrams passed (or dropped) explicitly.

mod handshake_pair;

use cclab_core::cc::CcConfig;
use cclab_core::endpoint::handshake::HandshakeConfig;
use cclab_core::endpoint::receiver::Receiver;
use cclab_core::endpoint::sender::Sender;
use cclab_core::endpoint::Endpoint;
use cclab_core::time::{Dur, Time};
use cclab_core::units::Bytes;
use cclab_core::wire::packet::{Datagram, HandshakeFrame};
use cclab_core::wire::size::{Profile, QuicProfile};

fn pair(profile: Profile, server_flight: u64) -> (Sender, Receiver) {
    let hs = HandshakeConfig {
        server_flight: Bytes(server_flight),
        ..Default::default()
    };
    handshake_pair::pair(profile, hs, &CcConfig::NewReno(Default::default()), 100_000)
}

fn quic() -> Profile {
    Profile::Quic(QuicProfile::default())
}

fn frame(d: &Datagram) -> HandshakeFrame {
    *d.packet.handshake().expect("a handshake packet")
}

fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

/// Everything `e` sends at `now`.
fn drain(e: &mut dyn Endpoint, now: Time) -> Vec<Datagram> {
    std::iter::from_fn(|| e.poll_transmit(now)).collect()
}

#[test]
fn quic_lost_initial_is_resent_after_the_pto_and_gives_the_first_rtt_sample() {
    let (mut s, mut r) = pair(quic(), 3000);
    let first = drain(&mut s, Time::ZERO);
    assert_eq!(first.len(), 1, "only the Initial before the handshake completes");
    assert_eq!(first[0].size, 1228, "padded to 1200 B of UDP payload");
    // The Initial is lost. RFC 9002 §6.2.2: 333 ms + 4 · 166.5 ms = 999 ms before any sample.
    assert_eq!(s.poll_timeout(), Some(ms(999)));
    s.handle_timeout(ms(998));
    assert!(drain(&mut s, ms(998)).is_empty());
    s.handle_timeout(ms(999));
    let again = drain(&mut s, ms(999));
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].size, 1228);
    assert!(matches!(
        frame(&again[0]),
        HandshakeFrame::Client {
            flight_received: 0,
            probe: true
        }
    ));
    // The server answers the second Initial with its whole flight (3000 B ≤ 3 × 1200 B).
    r.handle_datagram(ms(1009), again[0].clone());
    let flight = drain(&mut r, ms(1009));
    assert_eq!(flight.iter().map(|d| d.size).collect::<Vec<_>>(), [1500, 1500, 84]);
    // Its first datagram, 20 ms after the resent Initial left: the first RTT sample.
    s.handle_datagram(ms(1019), flight[0].clone());
    assert!(s.rtt().has_sample());
    assert_eq!(s.rtt().latest(), Dur::from_millis(20));
    // Still no data before the whole flight: an ACK padded to 1200 B instead.
    let ack = drain(&mut s, ms(1019));
    assert_eq!(ack.len(), 1);
    assert!(matches!(
        frame(&ack[0]),
        HandshakeFrame::Client {
            flight_received: 1472,
            probe: false
        }
    ));
    for d in &flight[1..] {
        s.handle_datagram(ms(1019), d.clone());
    }
    let out = drain(&mut s, ms(1019));
    assert_eq!(frame(&out[0]), HandshakeFrame::Finished);
    assert!(
        out.len() > 1 && out[1..].iter().all(|d| d.packet.data.is_some()),
        "data follows Finished"
    );
}

#[test]
fn quic_server_respects_the_amplification_limit_until_validated() {
    let (mut s, mut r) = pair(quic(), 10_000);
    let initial = drain(&mut s, Time::ZERO).remove(0);
    r.handle_datagram(ms(10), initial);
    // RFC 9000 §8.1: 3 × 1200 B received allows two 1472-byte datagrams, not a third.
    let first = drain(&mut r, ms(10));
    assert_eq!(first.len(), 2);
    assert_eq!(r.poll_timeout(), None, "blocked: nothing to wake for");
    // The client's ACK (a Handshake packet) validates the address: the rest may go.
    s.handle_datagram(ms(20), first[0].clone());
    let ack = drain(&mut s, ms(20)).remove(0);
    r.handle_datagram(ms(30), ack);
    let rest = drain(&mut r, ms(30));
    let payload: u32 = first.iter().chain(&rest).map(|d| d.size - 28).sum();
    assert_eq!(payload, 10_000);
}

#[test]
fn tcp_syn_is_resent_after_one_second_and_data_follows_the_syn_ack() {
    let (mut s, mut r) = pair(handshake_pair::tcp(true), 3000);
    let syn = drain(&mut s, Time::ZERO);
    assert_eq!(syn.len(), 1);
    assert_eq!(syn[0].size, 60, "20 B IP + 20 B TCP + 20 B options");
    // RFC 6298 §2.1: initial RTO 1 s; then 2 s (§5.5).
    assert_eq!(s.poll_timeout(), Some(ms(1000)));
    s.handle_timeout(ms(1000));
    let syn2 = drain(&mut s, ms(1000));
    assert_eq!(syn2.len(), 1);
    assert_eq!(s.poll_timeout(), Some(ms(3000)));
    r.handle_datagram(ms(1010), syn2[0].clone());
    let syn_ack = drain(&mut r, ms(1010));
    assert_eq!(syn_ack.len(), 1);
    s.handle_datagram(ms(1020), syn_ack[0].clone());
    assert_eq!(s.rtt().latest(), Dur::from_millis(20));
    let data = drain(&mut s, ms(1020));
    assert!(!data.is_empty() && data.iter().all(|d| d.packet.data.is_some()));
}
