//! `[flow.sender] proportional_rate_reduction`: in recovery the window comes down to the
//! controller's ssthresh with each delivery (RFC 6937 §3, Linux `tcp_cwnd_reduction`), where
//! without it the controller's halved window applies at once.
//!
//! NewReno, growing on cumulative ACKs only (so its window halves from the 10-packet initial
//! window to 5), driven by hand: pn 0–9 leave at 0 ms; pn 0 is lost, and from 20 ms each ACK
//! SACKs one more packet (the first SACKs pn 1–3, which declares pn 0 lost); after each the sender
//! sends what its window allows. A last ACK covers everything, ending recovery.

mod sender_pair;

use cclab_core::cc::{CcConfig, NewRenoConfig};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::Endpoint;
use cclab_core::time::Time;
use cclab_core::units::Bytes;
use cclab_core::wire::packet::FlowId;
use cclab_core::wire::size::{Profile, QuicProfile};
use sender_pair::{ack_of, MSS};

fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

/// Sends what the window allows at `now`; returns the packet numbers.
fn send(s: &mut Sender, now: Time) -> Vec<u64> {
    std::iter::from_fn(|| s.poll_transmit(now))
        .map(|d| d.packet.pn)
        .collect()
}

/// The window (in packets, rounded down) after each ACK of the loss episode, the packets sent on
/// each, and the sender's and the controller's windows after the ACK that ends recovery (bytes).
fn loss_episode(prr: bool) -> (Vec<u64>, Vec<usize>, (u64, u64)) {
    let mut cfg = SenderConfig::default();
    cfg.pacing.enabled = false;
    cfg.cumulative_ack_growth = true;
    cfg.proportional_rate_reduction = prr;
    let mut s = Sender::new(
        FlowId(0),
        Profile::Quic(QuicProfile::default()),
        &cfg,
        &CcConfig::NewReno(NewRenoConfig::default()),
        &SourceConfig::Bulk { size: Bytes(1 << 20) },
        Time::ZERO,
    );
    assert_eq!(send(&mut s, ms(0)), (0..10).collect::<Vec<_>>());
    let (mut windows, mut sent) = (Vec::new(), Vec::new());
    let mut last = 9;
    for (i, newest) in (3..=9).enumerate() {
        let t = ms(20 + i as u64);
        s.handle_datagram(t, ack_of(&[(1, newest)]));
        windows.push(s.metrics().cwnd / MSS);
        let pns = send(&mut s, t);
        last = pns.iter().copied().max().unwrap_or(last);
        sent.push(pns.len());
    }
    assert_eq!(s.stats().lost_packets, 1, "pn 0 alone is lost");
    assert_eq!(s.controller().window(), 5 * MSS, "NewReno halved 10 packets");
    // The retransmission and everything after it arrive: recovery ends.
    s.handle_datagram(ms(60), ack_of(&[(1, last)]));
    (windows, sent, (s.metrics().cwnd, s.controller().window()))
}

#[test]
fn prr_brings_the_window_down_with_each_delivery() {
    let (windows, sent, after) = loss_episode(true);
    // RFC 6937 §3: RecoverFS 10, ssthresh 5. The first ACK (3 delivered, 6 in flight) allows
    // ceil(3 · 5/10) = 2 segments, the retransmission and one new; then one segment per two
    // delivered while more than ssthresh is in flight, and one per delivery once at ssthresh.
    assert_eq!(windows, [8, 7, 7, 6, 5, 5, 5]);
    assert_eq!(sent, [2, 0, 1, 0, 0, 1, 1]);
    // The end of recovery hands the window back to the controller, at its ssthresh (which grew
    // on that ACK for the new data sent after recovery began).
    assert_eq!(after.0, after.1);
    assert_eq!(after.0 / MSS, 5);
}

#[test]
fn without_prr_the_halved_window_applies_at_once() {
    let (windows, sent, after) = loss_episode(false);
    // 6 in flight above a window of 5: nothing is sent, not even the retransmission, until the
    // flight has drained below the window (RFC 9002 §7.3.2).
    assert_eq!(windows, [5; 7]);
    assert_eq!(sent, [0, 0, 1, 1, 1, 1, 1]);
    assert_eq!(after.0, after.1);
}
