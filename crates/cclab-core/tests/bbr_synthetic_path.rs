//! BBRv1 over one bottleneck of rate R = 10 Mbit/s and base RTT T = 40 ms (BDP = 50 000 B),
//! checked against the rules of draft-cardwell-iccrg-bbr-congestion-control-00 and the closed
//! forms of the path (see `bbr_path`).

mod bbr_path;

use bbr_path::{App, Path, MSS, RATE, RTT, SER};
use cclab_core::cc::CongestionController;
use cclab_core::time::{Dur, Time};
use std::collections::BTreeSet;

const HIGH_GAIN: f64 = 2.0 / core::f64::consts::LN_2;

fn secs(s: f64) -> Time {
    Time(Dur::from_secs_f64(s).as_nanos())
}

/// Runs a bulk flow until it first enters ProbeBW; returns the path.
fn until_probe_bw(seed: u64) -> Path {
    let mut p = Path::new(seed);
    while p.state() != "probe_bw" {
        assert!(p.now < secs(5.0), "no ProbeBW within 5 s");
        p.step();
    }
    p
}

#[test]
fn bbr_startup_measures_the_path_and_exits_after_three_flat_rounds() {
    let mut p = Path::new(1);
    // Replay §4.3.2.2 on what BBR exposes: at each round start with a path-limited sample,
    // BtlBw either grew by 25 % over the baseline or counts one more flat round.
    let (mut full_bw, mut flat, mut round) = (0.0f64, 0, 0);
    let mut exit = None;
    p.run(secs(3.0), |p, a| {
        let bw = p.bbr.btl_bw();
        assert!(
            bw <= RATE * (1.0 + 1e-9),
            "a delivery rate never exceeds the bottleneck rate"
        );
        if a.state_before != "startup" || exit.is_some() {
            return;
        }
        if p.bbr.round_count() > round && a.rs.is_some_and(|rs| !rs.is_app_limited) {
            if bw >= full_bw * 1.25 {
                (full_bw, flat) = (bw, 0);
            } else {
                flat += 1;
            }
        }
        round = p.bbr.round_count();
        assert_eq!(p.state() != "startup", flat == 3, "round {round}: {flat} flat rounds");
        if flat == 3 {
            exit = Some((bw, p.bbr.rtprop()));
        }
    });
    let (bw, rtprop) = exit.expect("Startup ended");
    assert!(bw >= 0.99 * RATE, "BtlBw {bw} at exit, R = {RATE}");
    assert_eq!(rtprop, Some(RTT), "the first packets crossed an empty queue");
}

#[test]
fn bbr_drain_brings_inflight_down_to_one_bdp() {
    let mut p = Path::new(2);
    let mut entry: Option<(Time, u64)> = None;
    let mut left = None;
    p.run(secs(3.0), |p, a| {
        if a.state_before == "startup" && p.state() == "drain" {
            entry = Some((p.now, p.bytes_in_flight));
        }
        if p.state() == "drain" {
            assert!((p.bbr.pacing_gain() - 1.0 / HIGH_GAIN).abs() < 1e-12);
            assert!((p.bbr.cwnd_gain() - HIGH_GAIN).abs() < 1e-12);
        }
        if a.state_before == "drain" && p.state() == "probe_bw" && left.is_none() {
            left = Some((p.now, p.bytes_in_flight, p.inflight(1.0)));
        }
    });
    let (t0, inflight0) = entry.expect("entered Drain");
    let (t1, inflight1, target) = left.expect("left Drain");
    // §4.3.3: leave once inflight <= BBRInflight(1) = BDP + 3 quanta (2 packets each below 24 Mbit/s).
    assert_eq!(target, (RATE * RTT.as_secs_f64()).ceil() as u64 + 3 * 2 * MSS);
    assert!(
        inflight1 <= target && inflight0 > target,
        "{inflight0} -> {inflight1}, target {target}"
    );
    // Inflight falls at R - R/HighGain while a queue remains: the drain time follows.
    let expected = (inflight0 - target) as f64 / (RATE * (1.0 - 1.0 / HIGH_GAIN));
    let took = (t1 - t0).as_secs_f64();
    let slack = 2.0 * (MSS as f64 / (RATE / HIGH_GAIN));
    assert!(
        (took - expected).abs() <= slack,
        "drained in {took} s, expected {expected} s"
    );
}

#[test]
fn bbr_probe_bw_cycles_gains_in_documented_order() {
    const GAINS: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
    let mut p = until_probe_bw(3);
    let first = p.bbr.probe_bw_phase().unwrap();
    assert_ne!(first, 1, "§4.3.4.2: never start with the 3/4 phase");
    let (mut phase, mut since) = (first, p.now);
    let mut seen = 0;
    p.run(p.now + Dur::from_secs(3), |p, a| {
        let now_phase = p
            .bbr
            .probe_bw_phase()
            .expect("no ProbeRTT within 3 s of a fresh RTprop");
        assert_eq!(p.bbr.pacing_gain(), GAINS[now_phase]);
        assert_eq!(p.bbr.cwnd_gain(), 2.0);
        if now_phase == phase {
            return;
        }
        assert_eq!(now_phase, (phase + 1) % 8, "phases advance one at a time");
        let lasted = p.now - since;
        let rtprop = p.bbr.rtprop().unwrap();
        match phase {
            // §4.3.4.3: at least RTprop, then until inflight reached BBRInflight(5/4) (no loss here).
            0 => assert!(lasted > rtprop && a.prior_in_flight >= p.inflight(1.25)),
            // At most about RTprop; shorter only once inflight fell to BBRInflight(1).
            1 => assert!(lasted <= rtprop + SER * 2 && (lasted > rtprop || a.prior_in_flight <= p.inflight(1.0))),
            // Cruise phases end on the first ACK after RTprop; ACKs arrive every SER at rate R.
            _ => assert!(
                lasted > rtprop && lasted <= rtprop + SER * 2,
                "phase {phase} lasted {lasted}"
            ),
        }
        (phase, since) = (now_phase, p.now);
        seen += 1;
    });
    assert!(
        seen >= 3 * 8,
        "3 s at ~RTprop per phase covers three cycles, saw {seen} phases"
    );
}

#[test]
fn bbr_probe_rtt_after_ten_seconds_without_lower_rtt() {
    let mut p = Path::new(4);
    // From 1 s on the route is 10 ms longer: no later sample can match the 40 ms RTprop.
    let longer = RTT + Dur::from_millis(10);
    p.rtt_change = Some((secs(1.0), longer));
    let mut last_refresh = Time::ZERO;
    let (mut entry, mut low, mut exit) = (None, None, None);
    p.run(secs(14.0), |p, a| {
        let rtt = a.rs.expect("one sample per ACK").rtt;
        if p.state() == "probe_rtt" {
            assert!(p.bbr.window() <= 4 * MSS, "§4.2.3.5: cwnd capped at BBRMinPipeCwnd");
            assert_eq!((p.bbr.pacing_gain(), p.bbr.cwnd_gain()), (1.0, 1.0));
        }
        if a.state_before != "probe_rtt" && p.state() == "probe_rtt" && entry.is_none() {
            assert_eq!(a.state_before, "probe_bw");
            entry = Some(p.now);
        }
        if entry.is_none() {
            if rtt <= RTT {
                last_refresh = p.now;
            }
            // §4.1.2.3 / §4.3.5: ProbeRTT on the first ACK more than 10 s after the last refresh.
            assert!(
                p.now <= last_refresh + Dur::from_secs(10),
                "late: {} after {}",
                p.now,
                last_refresh
            );
        }
        if entry.is_some() && low.is_none() && p.state() == "probe_rtt" && p.bytes_in_flight <= 4 * MSS {
            low = Some(p.now);
        }
        if a.state_before == "probe_rtt" && p.state() != "probe_rtt" && exit.is_none() {
            exit = Some((p.now, a.rs.unwrap().rtt));
        }
    });
    let entry = entry.expect("ProbeRTT entered");
    assert!(
        entry > last_refresh + Dur::from_secs(10) && last_refresh < secs(1.1),
        "{entry} vs {last_refresh}"
    );
    let low = low.expect("inflight reached 4 packets");
    let (exit, _) = exit.expect("ProbeRTT left");
    // Exit on the first ACK past 200 ms at low inflight; a round (~50 ms) completes well before.
    assert!(exit - low > Dur::from_millis(200) && exit - low <= Dur::from_millis(200) + SER * 4);
    assert!(exit - entry >= Dur::from_millis(200));
    assert_eq!(p.state(), "probe_bw", "pipe was filled: back to ProbeBW");
    assert_eq!(
        p.bbr.rtprop(),
        Some(longer),
        "4 packets in flight never queue: RTprop = new base RTT"
    );
}

#[test]
fn bbr_probe_rtt_low_rate_does_not_lower_btl_bw() {
    // At a 5 ms RTT, 200 ms of ProbeRTT span ~40 rounds, four BtlBw windows, of samples at
    // 4 packets per RTT; §4.3.5 marks them app-limited so that they cannot replace R.
    let mut p = Path::new(7);
    p.base_rtt = Dur::from_millis(5);
    p.rtt_change = Some((secs(1.0), Dur::from_millis(6)));
    let (mut before, mut entry_round, mut after) = (None, 0, None);
    p.run(secs(12.0), |p, a| {
        if a.state_before == "probe_bw" && p.state() == "probe_rtt" && before.is_none() {
            (before, entry_round) = (Some(p.bbr.btl_bw()), p.bbr.round_count());
        }
        if a.state_before == "probe_rtt" && p.state() == "probe_bw" && after.is_none() {
            after = Some((p.bbr.btl_bw(), p.bbr.round_count() - entry_round));
        }
    });
    let before = before.expect("ProbeRTT entered");
    let (after, rounds) = after.expect("ProbeRTT left");
    assert!(rounds > 2 * 10, "ProbeRTT lasted {rounds} rounds");
    assert!(before >= 0.99 * RATE);
    assert_eq!(after, before);
}

#[test]
fn bbr_app_limited_samples_do_not_lower_btl_bw() {
    let run = |mark: bool| {
        let mut p = Path::new(5);
        p.run(secs(2.0), |_, _| {});
        assert_eq!(p.state(), "probe_bw");
        let bw = p.bbr.btl_bw();
        assert!(bw >= 0.99 * RATE);
        // One packet per 10 ms (120 kB/s, R/10) for 2 s: 40 rounds, four BtlBw windows.
        p.app = App::Periodic {
            every: Dur::from_millis(10),
            next: p.now,
            mark,
        };
        p.run(secs(4.0), |_, _| {});
        assert!(p.bbr.round_count() > 40 + 10);
        (bw, p.bbr.btl_bw())
    };
    let (before, after) = run(true);
    assert_eq!(after, before, "§4.1.1.4: app-limited samples below BtlBw are discarded");
    let (_, unmarked) = run(false);
    assert!(
        unmarked < RATE / 2.0,
        "the same samples, not flagged, pull BtlBw down: {unmarked}"
    );
}

#[test]
fn bbr_same_seed_same_trace_and_seeds_spread_the_start_phase() {
    let trace = |seed| {
        let mut p = Path::new(seed);
        let mut t = Vec::new();
        p.run(secs(2.0), |p, _| {
            t.push((p.now, p.bbr.window(), p.bbr.pacing_rate().unwrap().to_bits()))
        });
        t
    };
    assert_eq!(trace(6), trace(6));
    let phases: Vec<usize> = (0..200)
        .map(|seed| until_probe_bw(seed).bbr.probe_bw_phase().unwrap())
        .collect();
    // §4.3.4.3: uniform over the 7 phases other than 3/4; 200 draws miss one with p ≈ 7·(6/7)^200.
    let distinct: BTreeSet<usize> = phases.iter().copied().collect();
    assert_eq!(distinct, BTreeSet::from([0, 2, 3, 4, 5, 6, 7]));
    assert_ne!(
        trace(phases.iter().position(|&ph| ph != phases[0]).unwrap() as u64),
        trace(0)
    );
}
