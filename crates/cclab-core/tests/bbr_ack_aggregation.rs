//! BBRv1's ACK-aggregation cwnd (Linux `tcp_bbr.c` `bbr_update_ack_aggregation` /
//! `bbr_ack_aggregation_cwnd`, draft-ietf-ccwg-bbr §5.5.9) over one bottleneck whose receiver
//! acknowledges only every I:
//!
//! ```text
//!   sender ──▶ [FIFO, R = 10 Mbit/s] ──(T = 1 ms)──▶ receiver: one ACK at every multiple of I = 20 ms
//! ```
//!
//! T ≪ I: a cwnd of 2·BDP plus quanta cannot cover the 20 ms between ACKs, so without the
//! aggregation term the sender stalls after each window; with it, cwnd covers R·I more.

mod bbr_path;

use bbr_path::{Aggregation, App, Path, MSS, RATE};
use cclab_core::cc::{BbrConfig, CongestionController};
use cclab_core::time::{Dur, Time};

/// Base RTT T.
const T: Dur = Dur::from_millis(1);
/// ACK interval I.
const I: Dur = Dur::from_millis(20);

fn secs(s: f64) -> Time {
    Time(Dur::from_secs_f64(s).as_nanos())
}

/// Bytes the bottleneck carries in one ACK interval, R·I = 25 000 B (20.8 packets).
fn r_i() -> f64 {
    RATE * I.as_secs_f64()
}

/// A bulk flow whose ACKs are aggregated every `every` until `until`.
fn path(cfg: BbrConfig, every: Dur, until: Time) -> Path {
    let mut p = Path::with_config(&cfg);
    p.base_rtt = T;
    p.aggregation = Some(Aggregation { every, until });
    p
}

/// Runs `p` to `end` and returns (max cwnd, bytes delivered) over the ACKs after `from`,
/// checking `f` on each of them.
fn measure(p: &mut Path, from: Time, end: Time, mut f: impl FnMut(&Path)) -> (u64, u64) {
    let (mut max_cwnd, mut first) = (0, None);
    let mut last = 0;
    p.run(end, |p, a| {
        if p.now < from {
            return;
        }
        first.get_or_insert(a.delivered);
        last = a.delivered;
        max_cwnd = max_cwnd.max(p.bbr.window());
        f(p);
    });
    (max_cwnd, last - first.expect("ACKs after `from`"))
}

#[test]
fn bbr_ack_aggregation_cwnd_covers_one_ack_interval_and_fills_the_link() {
    let mut p = path(BbrConfig::default(), I, secs(1000.0));
    let (_, delivered) = measure(&mut p, secs(1.0), secs(3.0), |p| {
        assert_eq!(p.state(), "probe_bw");
        // An aggregate holds the ⌊R·I/MSS⌋ or ⌈R·I/MSS⌉ packets that left the bottleneck in
        // one interval: the windowed max is within one packet of R·I.
        let extra = p.bbr.extra_acked() as f64;
        assert!(
            (extra - r_i()).abs() <= MSS as f64,
            "extra_acked {extra}, R·I {}",
            r_i()
        );
        // cwnd = min(cwnd + acked, 2·BDP + 3 quanta + extra_acked) (clamp 100 ms · BtlBw not hit).
        let cwnd = p.bbr.window();
        assert!(cwnd <= p.inflight(2.0) + p.bbr.extra_acked());
        assert!(
            cwnd as f64 >= 2.0 * RATE * T.as_secs_f64() + r_i(),
            "cwnd {cwnd} < 2·R·T + R·I"
        );
    });
    // The window never runs out between ACKs: the bottleneck stays busy.
    let rate = delivered as f64 / 2.0;
    assert!(rate >= 0.97 * RATE, "delivered {rate} B/s, R = {RATE}");
}

#[test]
fn bbr_ack_aggregation_off_caps_cwnd_at_two_bdp_and_stalls_between_acks() {
    let cfg = BbrConfig {
        ack_aggregation: false,
        ..BbrConfig::default()
    };
    let mut p = path(cfg, I, secs(1000.0));
    let (max_cwnd, delivered) = measure(&mut p, secs(1.0), secs(3.0), |p| {
        assert_eq!(p.state(), "probe_bw");
        // §4.2.3.6 alone: cwnd ≤ 2·BDP + 3 quanta, although extra_acked is still measured.
        assert!(p.bbr.window() <= p.inflight(2.0));
        assert!(p.bbr.extra_acked() > 0);
    });
    // At most a window is acked per ACK interval (every packet in one aggregate was in flight
    // at once): the link is idle most of the time.
    assert!((max_cwnd as f64) < r_i() / 2.0, "cwnd {max_cwnd}");
    let rate = delivered as f64 / 2.0;
    assert!(
        rate <= max_cwnd as f64 / I.as_secs_f64() * 1.01,
        "delivered {rate} B/s > one window of {max_cwnd} B per {I}"
    );
    assert!(rate < RATE / 2.0);
}

#[test]
fn bbr_ack_aggregation_cwnd_term_is_clamped_to_100_ms_of_btl_bw() {
    // ACKs every 250 ms: an aggregate would be 250 ms of data, the term may add only 100 ms.
    let mut p = path(BbrConfig::default(), Dur::from_millis(250), secs(1000.0));
    let mut binding = 0;
    p.run(secs(5.0), |p, _| {
        if !p.bbr.filled_pipe() || p.state() == "probe_rtt" {
            return;
        }
        let bw = p.bbr.btl_bw();
        let max = bw * Dur::from_millis(100).as_secs_f64();
        let extra = p.bbr.extra_acked() as f64;
        let target = p.inflight(p.bbr.cwnd_gain()) + extra.min(max) as u64;
        assert!(p.bbr.window() <= target, "cwnd {} > {target}", p.bbr.window());
        if extra > max && p.state() == "probe_bw" {
            assert_eq!(p.bbr.window(), target, "cwnd sits at the clamped target");
            binding += 1;
        }
    });
    assert!(binding >= 5, "the 100 ms clamp bound on {binding} ACKs");
}

#[test]
fn bbr_ack_aggregation_estimate_expires_a_window_after_the_last_excess() {
    // Aggregation stops at 2 s and the application drops to one packet per 2 ms (600 kB/s): ACKs
    // then fall behind BtlBw, the aggregation epoch ends, and every later ACK of one lone
    // packet has an excess of exactly one packet. Returns the rounds after the stop until the
    // windowed max is that packet.
    let decay = |rounds: u64| {
        let cfg = BbrConfig {
            extra_acked_window_rounds: rounds,
            ..BbrConfig::default()
        };
        let stop = secs(2.0);
        let mut p = path(cfg, I, stop);
        p.run(stop, |_, _| {});
        let extra = p.bbr.extra_acked() as f64;
        assert!((extra - r_i()).abs() <= MSS as f64, "{extra} at the stop");
        let r0 = p.bbr.round_count();
        p.app = App::Periodic {
            every: Dur::from_millis(2),
            next: p.now,
            mark: true,
        };
        let mut done = None;
        p.run(stop + Dur::from_millis(300), |p, _| {
            if done.is_none() && p.bbr.extra_acked() == MSS {
                done = Some(p.bbr.round_count() - r0);
            }
            if done.is_some() {
                assert_eq!(p.bbr.extra_acked(), MSS, "no new excess once ACKs trail BtlBw");
                assert_eq!(p.bbr.window(), p.inflight(2.0) + MSS);
            }
        });
        done.expect("the estimate fell to one packet")
    };
    let (short, long) = (decay(5), decay(20));
    // Same inputs, so the same last excess sample: the max outlives it by the window length.
    assert_eq!(long - short, 20 - 5, "fell after {short} vs {long} rounds");
}
