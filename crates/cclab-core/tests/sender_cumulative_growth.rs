//! `[flow.sender] cumulative_ack_growth`: the window grows as TCP's does, only on ACKs that advance
//! the cumulative acknowledgement and not from a loss until the recovery point is acknowledged
//! (RFC 5681 §3.2, RFC 6675 §5; Linux `tcp_may_raise_cwnd` and `high_seq`).
//!
//! The sender is driven by hand: its initial window of 10 packets (pn 0–9, 1,442 stream bytes in
//! pn 0 and 1,440 in each after) leaves at 0 ms, and each ACK is handed to it at the instant the
//! test names. A recording controller with a fixed window of 10 packets keeps, per ACK, which
//! packets it newly acknowledged, which were declared lost and whether the window may grow.

mod sender_pair;

use cclab_core::cc::{CcState, CongestionController, CongestionEvent, NewRenoConfig};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::Endpoint;
use cclab_core::time::Time;
use cclab_core::units::Bytes;
use cclab_core::wire::packet::FlowId;
use cclab_core::wire::size::{Profile, QuicProfile};
use sender_pair::ack_of;
use std::sync::{Arc, Mutex};

/// Full-sized packet bytes in flight with the default QUIC profile.
const MSS: u64 = 1472;

/// Per event: (newly acknowledged pns, lost pns, may_raise_window).
type Log = Arc<Mutex<Vec<(Vec<u64>, Vec<u64>, bool)>>>;

/// A window of 10 packets that records every event.
struct Recorder(Log);

impl CongestionController for Recorder {
    fn on_congestion_event(&mut self, ev: &CongestionEvent<'_>) {
        let acked = ev.acked.iter().map(|p| p.pn).collect();
        let lost = ev.lost.iter().map(|p| p.pn).collect();
        self.0.lock().unwrap().push((acked, lost, ev.may_raise_window));
    }
    fn window(&self) -> u64 {
        10 * MSS
    }
    fn state(&self) -> CcState {
        CcState::CongestionAvoidance
    }
    fn name(&self) -> &'static str {
        "recorder"
    }
}

fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

fn config(cumulative: bool) -> SenderConfig {
    let mut c = SenderConfig::default();
    c.pacing.enabled = false;
    c.cumulative_ack_growth = cumulative;
    c
}

fn recording_sender(cumulative: bool) -> (Sender, Log) {
    let log = Log::default();
    let s = Sender::with_controller(
        FlowId(0),
        Profile::Quic(QuicProfile::default()),
        &config(cumulative),
        Box::new(Recorder(log.clone())),
        &SourceConfig::Bulk { size: Bytes(1 << 20) },
        Time::ZERO,
    );
    (s, log)
}

/// Sends what the window allows at `now`; returns the packet numbers.
fn send(s: &mut Sender, now: Time) -> Vec<u64> {
    std::iter::from_fn(|| s.poll_transmit(now))
        .map(|d| d.packet.pn)
        .collect()
}

/// The initial window, then: a SACK of pn 1 alone, the ACK of pn 0 (the prefix advances), SACKs of
/// pn 3–9 (pn 2 lost by the packet threshold), retransmissions, the ACK of the one that fills the
/// hole, then one past the recovery point. Returns each event's may_raise_window.
fn hole_then_recovery(cumulative: bool) -> Vec<(Vec<u64>, Vec<u64>, bool)> {
    let (mut s, log) = recording_sender(cumulative);
    assert_eq!(send(&mut s, ms(0)), (0..10).collect::<Vec<_>>());
    // pn 0 is missing: pn 1 arrives out of order, a duplicate ACK with a SACK block.
    s.handle_datagram(ms(20), ack_of(&[(1, 1)]));
    // pn 0 arrives late: the cumulative point moves past pn 1.
    s.handle_datagram(ms(21), ack_of(&[(0, 1)]));
    // pn 2 never arrives; pn 3–9 do, and pn 2 is declared lost (3 newer packets acknowledged).
    s.handle_datagram(ms(22), ack_of(&[(3, 9), (0, 1)]));
    // pn 2's data goes out again first, then new data: the recovery point is the end of pn 9's.
    let resent = send(&mut s, ms(23));
    assert_eq!(resent.first(), Some(&10), "pn 10 carries pn 2's data");
    // New data (pn 11) acknowledged before the retransmission: above the hole.
    s.handle_datagram(ms(43), ack_of(&[(11, 11), (3, 9), (0, 1)]));
    // The retransmission fills the hole: the prefix passes the recovery point.
    s.handle_datagram(ms(44), ack_of(&[(3, 11), (0, 1)]));
    // A later cumulative ACK.
    s.handle_datagram(ms(45), ack_of(&[(3, 12), (0, 1)]));
    let log = log.lock().unwrap().clone();
    log
}

#[test]
fn cumulative_ack_growth_grows_only_on_acks_that_advance_the_prefix_outside_recovery() {
    let events = hole_then_recovery(true);
    let expect: Vec<(Vec<u64>, Vec<u64>, bool)> = vec![
        (vec![1], vec![], false),
        (vec![0], vec![], true),
        ((3..=9).collect(), vec![2], false),
        (vec![11], vec![], false),
        (vec![10], vec![], true),
        (vec![12], vec![], true),
    ];
    assert_eq!(events, expect);
}

#[test]
fn cumulative_ack_growth_recovery_lasts_until_the_prefix_passes_the_point() {
    let (mut s, log) = recording_sender(true);
    send(&mut s, ms(0));
    // pn 0 and pn 1 lost (pn 2–9 acknowledged); the recovery point is the end of pn 9's data.
    s.handle_datagram(ms(20), ack_of(&[(2, 9)]));
    let resent = send(&mut s, ms(21));
    assert_eq!(&resent[..2], &[10, 11], "pn 10 and 11 resend pn 0's and 1's data");
    // pn 10 fills the first hole: the prefix advances but stays below the point (pn 1's data is
    // still missing). RFC 9002 would end recovery here (a packet sent after it began).
    s.handle_datagram(ms(41), ack_of(&[(2, 10)]));
    // pn 11 fills the second: the prefix passes the point, and this ACK grows the window again.
    s.handle_datagram(ms(42), ack_of(&[(2, 11)]));
    let raises: Vec<bool> = log.lock().unwrap().iter().map(|e| e.2).collect();
    assert_eq!(raises, vec![false, false, true]);
}

#[test]
fn cumulative_ack_growth_off_lets_every_ack_grow_the_window() {
    let events = hole_then_recovery(false);
    assert_eq!(events.len(), 6);
    assert!(events.iter().all(|e| e.2), "{events:?}");
}

#[test]
fn cumulative_ack_growth_halves_newreno_at_the_window_before_the_duplicate_acks() {
    // NewReno from the 10-packet initial window; pn 0 is lost and pn 1–9 are SACKed in one ACK. RFC 9002
    // grows the window by the 9 packets first (19 packets, halved to 9.5); TCP halves the 10 it had.
    let window_after_loss = |cumulative: bool| {
        let mut s = Sender::new(
            FlowId(0),
            Profile::Quic(QuicProfile::default()),
            &config(cumulative),
            &cclab_core::cc::CcConfig::NewReno(NewRenoConfig::default()),
            &SourceConfig::Bulk { size: Bytes(1 << 20) },
            Time::ZERO,
        );
        send(&mut s, ms(0));
        s.handle_datagram(ms(20), ack_of(&[(1, 9)]));
        assert_eq!(s.stats().lost_packets, 1);
        s.controller().window()
    };
    assert_eq!(window_after_loss(true), 5 * MSS);
    assert_eq!(window_after_loss(false), 19 * MSS / 2);
}
