//! The TFRC receiver driven by hand: feedback triggers (RFC 4342 §10.3) and the first loss
//! interval (RFC 5348 §6.3.1).
//!
//! Packets carry 1000 B, one per ms, and CCVal advances by one per packet: the sender's quarter
//! RTT is 1 ms, so its RTT is 4 ms.

use cclab_core::endpoint::tfrc::equation::loss_rate_for;
use cclab_core::endpoint::tfrc::{TfrcConfig, TfrcReceiver};
use cclab_core::endpoint::Endpoint;
use cclab_core::wire::packet::{DataChunk, Datagram, Ecn, FlowId, Packet, TfrcFeedback};
use cclab_core::wire::size::{DccpProfile, Profile};
use cclab_core::{Dur, Time};

fn data(pn: u64, ccval: u8) -> Datagram {
    let packet = Packet {
        pn,
        ccval,
        data: Some(DataChunk {
            offset: pn * 1000,
            len: 1000,
            fin: false,
        }),
        ..Default::default()
    };
    Datagram {
        flow: FlowId(0),
        size: 1036,
        ecn: Ecn::NotEct,
        packet,
    }
}

/// Delivers packets `pns` at 1 ms each (CCVal = pn mod 16 unless `frozen`); returns the
/// feedback sent as `(pn of the data packet that drew it, echoed pn, feedback)`.
fn drive(rx: &mut TfrcReceiver, pns: impl Iterator<Item = u64>, frozen: bool) -> Vec<(u64, u64, TfrcFeedback)> {
    let mut out = Vec::new();
    for pn in pns {
        let now = Time::ZERO + Dur::from_millis(pn);
        rx.handle_datagram(now, data(pn, if frozen { 0 } else { (pn % 16) as u8 }));
        while let Some(d) = rx.poll_transmit(now) {
            let echo = d.packet.ack.as_ref().and_then(|a| a.largest()).unwrap();
            out.push((pn, echo, *d.packet.tfrc().unwrap()));
        }
    }
    out
}

fn receiver() -> TfrcReceiver {
    TfrcReceiver::new(
        FlowId(0),
        Profile::Dccp(DccpProfile { ipv6: false }),
        &TfrcConfig::default(),
        Time::ZERO,
    )
}

#[test]
fn tfrc_receiver_feeds_back_every_four_ccval_steps() {
    let mut rx = receiver();
    let fb = drive(&mut rx, 0..=20, false);
    // First packet, then each packet more than 3 CCVal steps past the last echoed one.
    let at: Vec<u64> = fb.iter().map(|f| f.0).collect();
    assert_eq!(at, vec![0, 4, 8, 12, 16, 20]);
    assert!(fb
        .iter()
        .all(|&(pn, echo, f)| pn == echo && f.p == 0.0 && f.elapsed_ns == 0));
    // Initial X_recv = 0; then 4 packets of 1000 B per 4 ms = 1 MB/s.
    assert_eq!(fb[0].2.x_recv_bps, 0);
    assert!(fb[1..].iter().all(|f| f.2.x_recv_bps == 1_000_000));
    // The receiver's RTT estimate: counters 4 apart arrive 4 ms apart.
    assert_eq!(rx.rtt(), Some(Dur::from_millis(4)));
    assert_eq!(rx.stats().acks_sent, 6);
}

#[test]
fn tfrc_receiver_frozen_ccval_sends_only_the_initial_feedback() {
    let mut rx = receiver();
    assert_eq!(drive(&mut rx, 0..1000, true).len(), 1);
}

#[test]
fn tfrc_receiver_first_loss_seeds_history_from_the_equation() {
    let mut rx = receiver();
    // Packet 20 is lost. Feedback at 16, then 21 (CCVal 5 vs 0); 23 is the third packet above 20.
    let fb = drive(&mut rx, (0..=25).filter(|&pn| pn != 20), false);
    let last = fb.iter().rev().find(|f| f.2.p > 0.0).unwrap();
    assert_eq!((last.0, last.1), (23, 23));
    // X_target = packets 22 and 23 since the feedback at 21 ms: 2000 B / 2 ms = 1 MB/s, so
    // f(p) = s/(R·X) = 1000/(0.004·1e6) = 0.25, p = 0.0454546 and I_1 = round(1/p) = 22 packets;
    // the open interval 20..=23 (4 packets) is shorter, so p = 1/22.
    assert!((1.0 / loss_rate_for(1000.0, Dur::from_millis(4), 1e6) - 22.0).abs() < 1e-3);
    assert!((last.2.p - 1.0 / 22.0).abs() < 1e-12, "p = {}", last.2.p);
    assert_eq!(rx.stats().lost_packets, 1);
}
