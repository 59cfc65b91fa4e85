//! BBRv1 loss handling on hand-built ACK events (draft-cardwell-iccrg-bbr-congestion-control-00
//! §4.2.3.4, recovery episodes as in quiche's `BbrSender::UpdateRecoveryState`), and its scenario
//! configuration.
//!
//! Timeline shared by the tests (packets of 1000 B, initial window 10 packets, all sent at t=0):
//! - t=100 ms: pn 0 acked (RTT 100 ms, 10 kB/s): cwnd 10 000 + 1000 (§4.2.3.6: delivered < InitialCwnd).

use cclab_core::cc::{
    AckedPacket, Bbr, BbrConfig, CcConfig, CongestionController, CongestionEvent, LostPacket, RateSample,
};
use cclab_core::recovery::rtt::{RttEstimator, INITIAL_RTT};
use cclab_core::time::{Dur, Time};

const MSS: u64 = 1000;

fn ms(x: f64) -> Time {
    Time(Dur::from_secs_f64(x * 1e-3).as_nanos())
}

fn acked(pn: u64, sent: Time) -> AckedPacket {
    AckedPacket {
        pn,
        bytes: MSS,
        time_sent: sent,
    }
}

fn lost(pn: u64) -> LostPacket {
    lost_sent(pn, Time::ZERO)
}

fn lost_sent(pn: u64, sent: Time) -> LostPacket {
    LostPacket {
        pn,
        bytes: MSS,
        time_sent: sent,
        ..Default::default()
    }
}

/// Feeds one ACK event: `acked` and `lost` packets, `in_flight` bytes left, `delivered` bytes
/// delivered so far, and a path-limited rate sample of a packet sent with `prior_delivered`.
fn ack(
    bbr: &mut Bbr,
    rtt: &RttEstimator,
    now: Time,
    a: &[AckedPacket],
    l: &[LostPacket],
    in_flight: u64,
    delivered: u64,
    prior_delivered: u64,
) {
    let bytes = (a.len() + l.len()) as u64 * MSS;
    let rs = RateSample {
        delivery_rate: 10_000.0,
        delivered: delivered - prior_delivered,
        interval: Dur::from_millis(100),
        prior_delivered,
        is_app_limited: false,
        rtt: now - a[0].time_sent,
        lost: 0,
        tx_in_flight: in_flight,
    };
    bbr.on_congestion_event(&CongestionEvent {
        now,
        true_now: now,
        tick: cclab_core::time::NonZeroDur::from_millis(1),
        acked: a,
        lost: l,
        ecn_ce: 0,
        rtt,
        prior_in_flight: in_flight + bytes,
        bytes_in_flight: in_flight,
        app_limited: false,
        rate_sample: Some(rs),
        delivered,
        may_raise_window: true,
        // Nothing sent after the newest packet of the event (BBR does not read it).
        next_pn: a
            .iter()
            .map(|p| p.pn)
            .chain(l.iter().map(|p| p.pn))
            .max()
            .map_or(0, |pn| pn + 1),
    });
}

/// A controller after the first ACK of the timeline, and its RTT estimator.
fn after_first_ack() -> (Bbr, RttEstimator) {
    let mut bbr = Bbr::new(&BbrConfig::default(), Time::ZERO, MSS);
    assert_eq!(bbr.window(), 10 * MSS);
    let mut rtt = RttEstimator::new(INITIAL_RTT);
    rtt.update(ms(100.0), Dur::from_millis(100), Dur::ZERO);
    ack(&mut bbr, &rtt, ms(100.0), &[acked(0, Time::ZERO)], &[], 9000, 1000, 0);
    assert_eq!(bbr.window(), 11_000);
    (bbr, rtt)
}

#[test]
fn bbr_recovery_conserves_packets_for_a_round_then_restores_cwnd() {
    let (mut bbr, rtt) = after_first_ack();
    // t=101 ms: pn 1 acked, pn 2 lost: a recovery period starts; cwnd = inflight + delivered.
    ack(
        &mut bbr,
        &rtt,
        ms(101.0),
        &[acked(1, Time::ZERO)],
        &[lost(2)],
        7000,
        2000,
        0,
    );
    assert_eq!(bbr.window(), 7000 + 1000);
    // t=102 ms: pn 3 acked, pn 4 (sent before the period) lost: same period, cwnd -= lost,
    // but never below inflight + delivered.
    ack(
        &mut bbr,
        &rtt,
        ms(102.0),
        &[acked(3, Time::ZERO)],
        &[lost(4)],
        5000,
        3000,
        0,
    );
    assert_eq!(bbr.window(), 8000 - 1000);
    // t=102.5 ms: a plain ACK in the first round: no growth (packet conservation).
    ack(&mut bbr, &rtt, ms(102.5), &[acked(5, Time::ZERO)], &[], 4000, 4000, 0);
    assert_eq!(bbr.window(), 7000);
    // t=103 ms: pn 10 sent; t=203 ms: it is acked, ending both the round and the recovery period:
    // cwnd is restored to the 11 000 saved at its start, then grows by the 1000 B acked.
    bbr.on_packet_sent(ms(103.0), 10, MSS, 5000);
    ack(
        &mut bbr,
        &rtt,
        ms(203.0),
        &[acked(10, ms(103.0))],
        &[],
        4000,
        5000,
        4000,
    );
    assert_eq!(bbr.window(), 11_000 + 1000);
}

#[test]
fn bbr_losses_in_later_rounds_extend_the_episode_without_another_conservation_round() {
    let (mut bbr, rtt) = after_first_ack();
    // t=101 ms: the episode starts as above: cwnd 8000, a round of packet conservation, 11 000 saved.
    ack(
        &mut bbr,
        &rtt,
        ms(101.0),
        &[acked(1, Time::ZERO)],
        &[lost(2)],
        7000,
        2000,
        0,
    );
    assert_eq!(bbr.window(), 8000);
    // t=203 ms: pn 10, sent at 103 ms, is acked (the conservation round ends) and pn 11, sent then
    // too, is lost. The episode goes on: cwnd loses the 1000 B lost and, out of conservation and
    // below InitialCwnd delivered, gains the 1000 B acked. (With a new period per loss of a packet
    // sent after the last began, RFC 9002 §7.3.2, cwnd would be cut to inflight + acked, 5000,
    // and conserved for another round: under random loss, every round.)
    ack(
        &mut bbr,
        &rtt,
        ms(203.0),
        &[acked(10, ms(103.0))],
        &[lost_sent(11, ms(103.0))],
        4000,
        3000,
        2000,
    );
    assert_eq!(bbr.window(), 8000);
    // t=204 ms: an ACK without loss of a packet sent before that loss: still in the episode, and
    // growing (no conservation).
    ack(
        &mut bbr,
        &rtt,
        ms(204.0),
        &[acked(12, ms(103.0))],
        &[],
        3000,
        4000,
        2000,
    );
    assert_eq!(bbr.window(), 9000);
    // t=305 ms: pn 20, sent at 205 ms after the last loss, is acked without loss: the episode ends,
    // the 11 000 saved at its start returns, and grows by the 1000 B acked.
    bbr.on_packet_sent(ms(205.0), 20, MSS, 4000);
    ack(
        &mut bbr,
        &rtt,
        ms(305.0),
        &[acked(20, ms(205.0))],
        &[],
        3000,
        5000,
        4000,
    );
    assert_eq!(bbr.window(), 12_000);
}

#[test]
fn bbr_persistent_congestion_restarts_from_one_packet_and_restores_on_exit() {
    let (mut bbr, rtt) = after_first_ack();
    // §4.2.3.4 on a retransmission timeout: cwnd = 1 packet.
    bbr.on_persistent_congestion(ms(150.0));
    assert_eq!(bbr.window(), MSS);
    // The next ACK (of a packet sent before) grows it, floored at BBRMinPipeCwnd (§4.2.3.3).
    ack(&mut bbr, &rtt, ms(151.0), &[acked(1, Time::ZERO)], &[], 8000, 2000, 0);
    assert_eq!(bbr.window(), 4 * MSS);
    // A packet sent after the timeout is acked: recovery ends, the saved cwnd returns, + acked.
    bbr.on_packet_sent(ms(152.0), 11, MSS, 9000);
    ack(
        &mut bbr,
        &rtt,
        ms(252.0),
        &[acked(11, ms(152.0))],
        &[],
        8000,
        3000,
        2000,
    );
    assert_eq!(bbr.window(), 11_000 + 1000);
}

#[test]
fn bbr_initial_pacing_rate_is_high_gain_times_initial_window_over_rtt() {
    let high_gain = 2.0 / core::f64::consts::LN_2;
    let bbr = Bbr::new(&BbrConfig::default(), Time::ZERO, MSS);
    // §4.2.1 before any RTT sample: 1 ms nominal RTT.
    assert!((bbr.pacing_rate().unwrap() - high_gain * 10_000.0 / 1e-3).abs() < 1e-6);
    assert_eq!(bbr.state().name(), "startup");
    // After the first RTT sample the same window is spread over SRTT = 100 ms.
    let (bbr, _) = after_first_ack();
    assert!((bbr.pacing_rate().unwrap() - high_gain * 10_000.0 / 0.1).abs() < 1e-6);
}

#[test]
fn bbr_config_parses_from_a_scenario_table() {
    let cc: CcConfig = toml::from_str("algorithm = \"bbr\"\nseed = 42\nprobe_rtt_duration = \"300ms\"").unwrap();
    let CcConfig::Bbr(cfg) = cc else {
        panic!("not BBR: {cc:?}")
    };
    assert_eq!(
        cfg,
        BbrConfig {
            seed: 42,
            probe_rtt_duration: Dur::from_millis(300),
            ..BbrConfig::default()
        }
    );
    assert_eq!(cfg.btl_bw_filter_rounds, 10);
    assert_eq!(cfg.rtprop_filter_len, Dur::from_secs(10));
    assert!(
        toml::from_str::<CcConfig>("algorithm = \"bbr\"\nsed = 1").is_err(),
        "unknown fields are rejected"
    );
}
