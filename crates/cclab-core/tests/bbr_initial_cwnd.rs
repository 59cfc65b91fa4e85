//! BBR started from one segment, as a TCP sender is after a lost SYN (RFC 5681 §3.1): its checks
//! against InitialCwnd keep the connection's configured initial window (10 packets), as Linux's
//! `bbr_set_cwnd` compares with the constant `TCP_INIT_CWND`, not with the window the
//! connection started from.
//!
//! A path of BDP one packet (one packet per 100 ms, 100 ms RTT): BBR's target,
//! `BBRInflight(2.89)` = 2.89 packets plus the quantization budget, is about 6 packets (v1: three
//! send quanta of one packet at this pacing rate; v3: its floor of three quanta of two packets).
//! The ACKs each acknowledge one packet of the first round, so the pipe never counts as full.

use cclab_core::cc::{AckedPacket, Bbr3Config, BbrConfig, CcConfig, CongestionEvent, RateSample};
use cclab_core::recovery::rtt::{RttEstimator, INITIAL_RTT};
use cclab_core::time::{Dur, NonZeroDur, Time};

const MSS: u64 = 1448;
const RTT: Dur = Dur::from_millis(100);

/// The window in packets after each of `n` ACKs of one packet, for `cc` built with a one-segment
/// start.
fn windows_from_one_segment(cc: CcConfig, n: u64) -> Vec<u64> {
    let mut c = cc.with_one_segment_window(MSS).build(Time::ZERO, MSS);
    assert_eq!(c.window(), MSS, "{}: starts from one segment", c.name());
    let mut rtt = RttEstimator::new(INITIAL_RTT);
    (1..=n)
        .map(|k| {
            let now = Time::ZERO + RTT * k;
            rtt.update(now, RTT, Dur::ZERO);
            let acked = [AckedPacket {
                pn: k - 1,
                bytes: MSS,
                time_sent: Time::ZERO + RTT * (k - 1),
            }];
            let ev = CongestionEvent {
                now,
                true_now: now,
                tick: NonZeroDur::from_millis(1),
                acked: &acked,
                lost: &[],
                ecn_ce: 0,
                rtt: &rtt,
                prior_in_flight: MSS,
                bytes_in_flight: 0,
                app_limited: false,
                rate_sample: Some(RateSample {
                    delivery_rate: MSS as f64 / RTT.as_secs_f64(),
                    delivered: MSS,
                    interval: RTT,
                    prior_delivered: 0,
                    is_app_limited: false,
                    rtt: RTT,
                    lost: 0,
                    tx_in_flight: MSS,
                }),
                delivered: k * MSS,
                may_raise_window: true,
                next_pn: k,
            };
            c.on_congestion_event(&ev);
            c.window() / MSS
        })
        .collect()
}

#[test]
fn bbr_grows_past_its_target_until_ten_packets_are_delivered_after_a_one_segment_start() {
    for cc in [
        CcConfig::Bbr(BbrConfig::default()),
        CcConfig::Bbr3(Bbr3Config::default()),
    ] {
        let w = windows_from_one_segment(cc.clone(), 12);
        // The first ACK lifts the window to BBRMinPipeCwnd (4); each later one adds its packet,
        // past the target of about 6, while fewer than InitialCwnd = 10 packets are delivered
        // (draft-cardwell-iccrg-bbr-congestion-control-00 §4.2.3.6, draft-ietf-ccwg-bbr §5.6.4.6:
        // `C.delivered < InitialCwnd`); from the tenth on the window holds. With the one-segment
        // window as InitialCwnd it stopped at the target: 4, 5, 6, 6, 6, ...
        assert_eq!(w, [4, 5, 6, 7, 8, 9, 10, 11, 12, 12, 12, 12], "{cc:?}");
    }
}
