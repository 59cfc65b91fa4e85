//! Prague (draft-briscoe-iccrg-prague-congestion-control-01,
//! <https://datatracker.ietf.org/doc/html/draft-briscoe-iccrg-prague-congestion-control-01>; §
//! numbers are -01's, the latest revision whose full text could be read here; -02 to -04 keep the
//! title and, where others cite them, the numbering): the L4S scalable controller. It marks its
//! packets ECT(1) (§2.2, the L4S identifier, RFC 9331 §4.1; ECT(0) with `ect1 = false`, the
//! draft's option for private networks), reduces the window by `alpha/2` per round trip with CE
//! marks as DCTCP does (§2.4.2, RFC 8257 §3.4), answers loss as Reno does (§2.4.1), and reduces
//! its RTT dependence (§2.4.4, RFC 9331 §4.3) once it has run `rtt_transition_rounds` (500) round
//! trips past slow start: below the virtual RTT `rtt_virt` (25 ms) its additive increase per
//! round trip is `(srtt / rtt_virt)²` segments and it cuts and updates alpha at most once per
//! `rtt_virt`, so flows with short RTTs take no more than a 25 ms flow would.
//! Where the draft and its reference, Linux `tcp_prague`, part from DCTCP (`Response::Prague` in
//! `mod.rs`): growth goes on through the round after a CE cut (not after a loss), with its
//! fractional carry (§2.4.3); only unmarked acked bytes count towards it (§2.4.3); alpha stays at
//! its initial 1 until the first CE mark, whose cut uses that 1 even when its ACK also updates
//! alpha, so the first response is a halving (§2.3.2); a loss in the round of a CE cut cuts by what completes a
//! halving (§2.4.1). Why growth through the CE round
//! matters: cut in most round trips (about 2 marks each), a flow that grows only in every other
//! one settles near `1.1/p_L`, one that grows in each near `2.2/p_L`; DualPI2 couples
//! `p_L = 2·√p_C` (RFC 9332 §2.1) and Reno-like CUBIC holds `1.22/√p_C`, so the window ratio to
//! CUBIC should be ~0.45 and ~0.9. Beside CUBIC at 100 Mbit/s, 20 ms it measured 0.39–0.47
//! frozen and 0.87–1.17 growing (10 s means over 60 s); rates differ further by the RTTs
//! (20 ms against CUBIC's ~34 ms with the C queue).
//! It paces itself as the draft's reference, Linux `tcp_prague` (`prague_update_pacing_rate`),
//! does: at `cwnd / srtt` (§2.5.1 writes `max(cwnd, inflight)`, the base Linux stack's; Linux
//! Prague uses cwnd, and inflight exceeds cwnd only when no new packet may leave), twice that
//! while `cwnd < ssthresh / 2` (slow start), in bursts of at most 2⁻¹² s (~244 µs,
//! `prague_burst_shift`; §2.5.2 rounds it to 250 µs) at that rate, one packet at least. An L4S
//! AQM marks on the queue's sojourn time from under 1 ms (RFC 9332 §2.4: DualPI2's ramp from
//! 800 µs), so a burst of a few packets is marked whenever their serialisation exceeds it (at
//! 10 Mbit/s one 1500-byte packet takes 1.2 ms): with the sender's usual 10-packet bucket a
//! 10 Mbit/s, 10 ms path over DualPI2 carried 43 % of its rate, paced it carries 97 %.
//! Not modelled (docs/scenarios.md says why): the draft's paced chirping and IW pacing (§3.1.1,
//! off by default in Linux), the per-ACK EWMA (§3.1.3), sub-MSS windows (§3.5, no longer
//! required), Classic-ECN-AQM detection (§3.3, off by default in Linux) and the reset to
//! RTT-dependent growth after an idle period (§2.4.4, planned).

use super::{Response, ScalableWindow};
use crate::cc::{CcState, CongestionController, CongestionEvent};
use crate::time::{Dur, Time};
use crate::units::Bytes;
use crate::wire::packet::Ecn;
use serde::Deserialize;

/// Prague parameters.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PragueConfig {
    /// Initial window, bytes. `None` = RFC 9002 §7.2: `min(10·mss, max(14720, 2·mss))`.
    pub initial_window: Option<Bytes>,
    /// EWMA gain g of alpha (1/16, as DCTCP, RFC 8257 §4.2).
    pub gain: f64,
    /// Initial alpha (1, as Linux `tcp_prague`: the first response is a halving).
    pub initial_alpha: f64,
    /// Virtual RTT for the reduced RTT dependence (25 ms, as Linux `tcp_prague`); zero turns it off.
    pub rtt_virt: Dur,
    /// Round trips after slow start before the reduced RTT dependence applies (500: draft-01
    /// §2.4.4's default and Linux `prague_rtt_transition` before 2024; the 2024 Linux `tcp_prague`
    /// uses 4): short flows keep the responsiveness of their own RTT, and only long-running ones,
    /// which have to share, take on `rtt_virt`.
    pub rtt_transition_rounds: u64,
    /// Mark packets ECT(1), the L4S identifier (true); false marks them ECT(0), which the draft
    /// (§2.2) asks to be configurable for private networks where DCTCP already uses ECT(0).
    pub ect1: bool,
}

impl Default for PragueConfig {
    fn default() -> Self {
        PragueConfig {
            initial_window: None,
            gain: 1.0 / 16.0,
            initial_alpha: 1.0,
            rtt_virt: Dur::from_millis(25),
            rtt_transition_rounds: 500,
            ect1: true,
        }
    }
}

/// Longest burst as a power of two of a second (Linux `prague_burst_shift`: 2⁻¹² s ≈ 244 µs).
const BURST_SHIFT: i32 = 12;

/// The Prague controller.
#[derive(Clone, Debug)]
pub struct Prague {
    w: ScalableWindow,
    rtt_virt: Dur,
    rtt_transition_rounds: u64,
    ecn: Ecn,
    /// Smoothed RTT at the last event; `None` before the first RTT sample.
    srtt: Option<Dur>,
}

impl Prague {
    /// A controller for full-sized packets of `mss` bytes.
    pub fn new(cfg: &PragueConfig, mss: u64) -> Prague {
        let iw = cfg.initial_window.map_or((10 * mss).min(14720.max(2 * mss)), |b| b.0);
        Prague {
            w: ScalableWindow::new(mss, iw, 2 * mss, cfg.initial_alpha, cfg.gain, Response::Prague),
            rtt_virt: cfg.rtt_virt,
            rtt_transition_rounds: cfg.rtt_transition_rounds,
            ecn: if cfg.ect1 { Ecn::Ect1 } else { Ecn::Ect0 },
            srtt: None,
        }
    }

    /// Additive increase per round trip once RTT-independent, segments: `(srtt / rtt_virt)²` below
    /// the virtual RTT, 1 above it (draft-01 §2.4.4; Linux `prague_rate_scaled_ai_ack_increase`):
    /// per `rtt_virt` the rate then grows by `mss / rtt_virt`, as a flow with that RTT would.
    pub fn increase_per_rtt(&self, srtt: Dur) -> f64 {
        if self.rtt_virt.0 == 0 || srtt >= self.rtt_virt {
            1.0
        } else {
            let r = srtt.as_secs_f64() / self.rtt_virt.as_secs_f64();
            r * r
        }
    }

    /// The current estimate of the marked fraction.
    pub fn alpha(&self) -> f64 {
        self.w.alpha()
    }
}

impl CongestionController for Prague {
    fn on_congestion_event(&mut self, ev: &CongestionEvent<'_>) {
        // RTT-independent (draft-01 §2.4.4; Linux `prague_is_rtt_indep`): outside slow start,
        // after `rtt_transition_rounds` round trips there.
        let independent = self.rtt_virt.0 > 0
            && self.w.window() >= self.w.ssthresh()
            && self.w.rounds() >= self.rtt_transition_rounds;
        let (increase, virtual_rtt) = if independent {
            (self.increase_per_rtt(ev.rtt.smoothed()), self.rtt_virt)
        } else {
            (1.0, Dur::ZERO)
        };
        self.w.on_event(ev, increase, virtual_rtt);
        self.srtt = ev.rtt.has_sample().then(|| ev.rtt.smoothed());
    }
    /// `cwnd / srtt`, doubled while `cwnd < ssthresh / 2` (Linux `prague_update_pacing_rate`);
    /// before an RTT sample the sender's default.
    fn pacing_rate(&self) -> Option<f64> {
        let srtt = self.srtt?.as_secs_f64();
        let window = self.w.window() as f64;
        let gain = if self.w.window() < self.w.ssthresh() / 2 {
            2.0
        } else {
            1.0
        };
        (srtt > 0.0).then(|| gain * window / srtt)
    }
    /// 2⁻¹² s at the pacing rate (Linux `max_tso_burst`); the sender keeps one packet at least.
    fn max_burst(&self) -> Option<u64> {
        self.pacing_rate().map(|rate| (rate * 2f64.powi(-BURST_SHIFT)) as u64)
    }
    fn on_persistent_congestion(&mut self, _now: Time) {
        self.w.on_persistent_congestion();
    }
    fn window(&self) -> u64 {
        self.w.window()
    }
    fn ssthresh(&self) -> u64 {
        self.w.ssthresh()
    }
    fn ecn_codepoint(&self) -> Option<Ecn> {
        Some(self.ecn)
    }
    fn reads_rate_samples(&self) -> bool {
        false
    }
    fn reads_sends(&self) -> bool {
        // Alpha's observation windows end at SND.NXT, which the ACK carries.
        false
    }

    fn state(&self) -> CcState {
        self.w.state()
    }
    fn name(&self) -> &'static str {
        "prague"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::{event, rtt_of};
    use crate::cc::AckedPacket;

    /// A Prague configuration that is RTT-independent from the first round after slow start.
    fn independent() -> PragueConfig {
        PragueConfig {
            rtt_transition_rounds: 0,
            ..PragueConfig::default()
        }
    }

    /// Window growth of a Prague controller in congestion avoidance from 5000 bytes over 200
    /// acknowledged 1000-byte packets at smoothed RTT `rtt`.
    fn growth_per_window(cfg: &PragueConfig, rtt: Dur) -> u64 {
        let mut c = Prague::new(cfg, 1000);
        let r = rtt_of(rtt);
        // A loss ends slow start: 10000 → 5000 bytes.
        let lost = [crate::cc::LostPacket {
            pn: 0,
            bytes: 1000,
            time_sent: Time(1),
            ..Default::default()
        }];
        c.on_congestion_event(&event(Time(2), &[], &lost, &r));
        let start = c.window();
        let acked: Vec<AckedPacket> = (0..200)
            .map(|pn| AckedPacket {
                pn: pn + 1,
                bytes: 1000,
                time_sent: Time(10),
            })
            .collect();
        for a in acked.chunks(1) {
            c.on_congestion_event(&event(Time(20), a, &[], &r));
        }
        c.window() - start
    }

    #[test]
    fn prague_increase_scales_with_rtt_below_the_virtual_rtt() {
        // (srtt/25 ms)² segments per RTT below 25 ms, one above.
        let c = Prague::new(&PragueConfig::default(), 1000);
        assert_eq!(c.increase_per_rtt(Dur::from_millis(50)), 1.0);
        assert!((c.increase_per_rtt(Dur::from_millis(5)) - 0.04).abs() < 1e-12);
        // 200 packets of 1000 B acked from cwnd 5000. At 25 ms: one MSS per window of acks,
        // 5 + 6 + … + 20 = 200 acks give +16 MSS. At 12.5 ms: a quarter MSS per window, so
        // 4·(5 + … + 10) = 180 acks give +6 MSS and the last 20 acks are not enough for another.
        assert_eq!(growth_per_window(&independent(), Dur::from_millis(25)), 16_000);
        assert_eq!(growth_per_window(&independent(), Dur::from_micros(12_500)), 6_000);
        assert_eq!(c.ecn_codepoint(), Some(Ecn::Ect1));
    }

    #[test]
    fn prague_is_rtt_dependent_for_its_first_rounds_after_slow_start() {
        // By default the first 500 round trips after slow start grow one MSS per window at any RTT.
        let cfg = PragueConfig::default();
        assert_eq!(growth_per_window(&cfg, Dur::from_micros(12_500)), 16_000);
    }

    #[test]
    fn prague_cuts_at_most_once_per_virtual_rtt_when_rtt_independent() {
        // 5 ms path, rtt_virt 25 ms. A loss ends slow start (5000 B); marks at 10 ms halve it
        // (alpha = 1). Marks on a packet sent after that cut, acked 10 ms later, are in a new
        // round trip but within rtt_virt: no cut (a 5 ms DCTCP would cut to 2000 B here). At
        // 40 ms, 30 ms after the first, marks cut again.
        let r = rtt_of(Dur::from_millis(5));
        let mut c = Prague::new(&independent(), 1000);
        c.on_congestion_event(&event(Time(2), &[], &loss(0, 1), &r));
        let marked = |c: &mut Prague, pn: u64, sent_ms: u64, now_ms: u64| {
            c.on_congestion_event(&CongestionEvent {
                ecn_ce: 1,
                ..event(Time(now_ms * 1_000_000), &[ack(pn, sent_ms * 1_000_000)], &[], &r)
            });
            c.window()
        };
        assert_eq!(marked(&mut c, 1, 3, 10), 2500);
        assert_eq!(marked(&mut c, 2, 15, 20), 2500);
        assert_eq!(marked(&mut c, 3, 30, 40), 2000);
    }

    fn ack(pn: u64, sent: u64) -> AckedPacket {
        AckedPacket {
            pn,
            bytes: 1000,
            time_sent: Time(sent),
        }
    }

    fn loss(pn: u64, sent: u64) -> [crate::cc::LostPacket; 1] {
        [crate::cc::LostPacket {
            pn,
            bytes: 1000,
            time_sent: Time(sent),
            ..Default::default()
        }]
    }

    #[test]
    fn prague_keeps_growing_through_the_round_after_a_ce_cut() {
        let r = rtt_of(Dur::from_millis(25));
        for ecn in [true, false] {
            let mut c = Prague::new(&PragueConfig::default(), 1000);
            // Packets 0..100 sent. At 30 ms a CE mark (alpha = 1: a halving) or, for comparison, a loss cuts the
            // window. The marked ACK adds nothing (10000 → 5000 B); the unmarked one beside the
            // loss adds its slow-start MSS first (11000 → 5500 B).
            let first = [ack(0, 0)];
            let lost = loss(1, 1);
            let ev = CongestionEvent {
                ecn_ce: u64::from(ecn),
                next_pn: 100,
                ..event(Time(30_000_000), &first, if ecn { &[] } else { &lost }, &r)
            };
            c.on_congestion_event(&ev);
            let cut = if ecn { 5000 } else { 5500 };
            assert_eq!((c.window(), c.state()), (cut, CcState::Recovery), "ecn {ecn}");
            // Six ACKs of packets sent before the cut (still its round): at 25 ms one MSS per
            // window of ACKs, so after the CE cut the window grows (Linux `tcp_prague`); after the
            // loss nothing grows until recovery ends.
            for pn in 2..8 {
                c.on_congestion_event(&CongestionEvent {
                    next_pn: 100,
                    ..event(Time(40_000_000), &[ack(pn, pn)], &[], &r)
                });
            }
            assert_eq!(c.window(), if ecn { 6000 } else { 5500 }, "ecn {ecn}");
            assert_eq!(c.state(), CcState::Recovery);
        }
    }

    #[test]
    fn prague_grows_only_on_unmarked_acked_packets() {
        let r = rtt_of(Dur::from_millis(25));
        for marks in [1, 0] {
            let mut c = Prague::new(&PragueConfig::default(), 1000);
            // A loss ends slow start (5000 B); at 10 ms a marked ACK halves that (alpha = 1).
            c.on_congestion_event(&event(Time(2), &[], &loss(0, 1), &r));
            c.on_congestion_event(&CongestionEvent {
                ecn_ce: 1,
                ..event(Time(10), &[ack(1, 3)], &[], &r)
            });
            assert_eq!(c.window(), 2500);
            // Five frames of two packets sent before that cut (its round: no second cut, but
            // growth), `marks` of each CE-marked. At 25 ms, one MSS per window of counted bytes:
            // the 5000 unmarked bytes give 2500 → 3500; all 10000 bytes would give 2500 → 3500
            // → 4500 (2500 + 3500 B), which is what the same frames unmarked give.
            for f in 0..5 {
                c.on_congestion_event(&CongestionEvent {
                    ecn_ce: marks,
                    ..event(Time(20), &[ack(2 + 2 * f, 3), ack(3 + 2 * f, 3)], &[], &r)
                });
            }
            assert_eq!(
                c.window(),
                if marks == 1 { 3500 } else { 4500 },
                "{marks} marks a frame"
            );
        }
    }

    /// ACKs at `now`, one packet sent at `sent` each, until the window grows (at most 1000);
    /// their count.
    fn acks_to_grow(c: &mut Prague, r: &crate::recovery::rtt::RttEstimator, pn: &mut u64, sent: u64, now: u64) -> u64 {
        let start = c.window();
        let mut n = 0;
        while c.window() == start && n < 1000 {
            *pn += 1;
            n += 1;
            c.on_congestion_event(&event(Time(now), &[ack(*pn, sent)], &[], r));
        }
        n
    }

    #[test]
    fn prague_cut_keeps_the_fraction_of_an_mss_already_earned() {
        // At 12.5 ms, (12.5/25)² = 1/4 MSS per round trip: 250 B of carry per 1000 B acked.
        let r = rtt_of(Dur::from_micros(12_500));
        let mut c = Prague::new(&independent(), 1000);
        c.on_congestion_event(&event(Time(2), &[], &loss(0, 1), &r));
        assert_eq!(c.window(), 5000);
        // From no carry: 20 ACKs of 1000 B for 5000 B of window.
        let mut pn = 0;
        assert_eq!(acks_to_grow(&mut c, &r, &mut pn, 500_000_000, 1_000_000_000), 20);
        // 20 more ACKs earn 5000 B of the 6000 B needed; then a marked ACK (earning nothing) cuts.
        for _ in 0..20 {
            pn += 1;
            c.on_congestion_event(&event(Time(1_000_000_000), &[ack(pn, 500_000_000)], &[], &r));
        }
        pn += 1;
        let a = [ack(pn, 600_000_000)];
        c.on_congestion_event(&CongestionEvent {
            ecn_ce: 1,
            ..event(Time(1_100_000_000), &a, &[], &r)
        });
        let cut = c.window();
        assert!(cut < 6000, "{cut}");
        // Five sixths of an MSS stay earned: ACKs of packets sent after the cut need a sixth of
        // what a reset carry would.
        let from_zero = cut.div_ceil(250);
        let n = acks_to_grow(&mut c, &r, &mut pn, 1_200_000_000, 1_300_000_000);
        assert!(
            n <= from_zero.div_ceil(6),
            "{n} ACKs after the cut, {from_zero} from no carry"
        );
    }

    #[test]
    fn prague_paces_at_its_window_per_rtt_in_short_bursts() {
        let mut c = Prague::new(&PragueConfig::default(), 1000);
        // No RTT sample yet: the sender's default pacing and bucket.
        assert_eq!((c.pacing_rate(), c.max_burst()), (None, None));
        let r = rtt_of(Dur::from_millis(10));
        let a = [AckedPacket {
            pn: 0,
            bytes: 1000,
            time_sent: Time::ZERO,
        }];
        c.on_congestion_event(&event(Time(10_000_000), &a, &[], &r));
        // Slow start (ssthresh unset): 2 · 11000 B / 10 ms = 2.2 MB/s; bursts of 2.2e6/4096 B.
        assert_eq!(c.window(), 11_000);
        assert!((c.pacing_rate().unwrap() - 2.2e6).abs() < 1e-6);
        assert_eq!(c.max_burst(), Some(537));
        // A loss ends slow start (cwnd = ssthresh = 5500): 100 % of cwnd/srtt.
        let lost = [crate::cc::LostPacket {
            pn: 1,
            bytes: 1000,
            time_sent: Time(1),
            ..Default::default()
        }];
        c.on_congestion_event(&event(Time(20_000_000), &[], &lost, &r));
        assert_eq!(c.window(), 5500);
        assert!((c.pacing_rate().unwrap() - 5.5e5).abs() < 1e-6);
        let gate = c.send_gate();
        assert_eq!((gate.pacing_rate, gate.max_burst), (c.pacing_rate(), 134));
    }

    #[test]
    fn prague_first_mark_on_a_round_ending_ack_still_halves() {
        // Draft-01 §2.3.2: alpha is 1 at the first sign of ECN feedback, "the maximum congestion
        // response". Packets 0..30 sent; the ACK of 0 opens alpha's first round, which ends
        // with the next packet, 30.
        let mut c = Prague::new(&PragueConfig::default(), 1000);
        let r = rtt_of(Dur::from_millis(20));
        c.on_congestion_event(&CongestionEvent {
            next_pn: 30,
            ..event(Time(20_000_000), &[ack(0, 0)], &[], &r)
        });
        assert_eq!(c.window(), 11_000);
        // Packet 30 sent.
        // One frame acks 1..=30, one of them marked: the round ends, and its marks count in
        // alpha (15/16 + (1/30)/16), but the cut uses the alpha before this ACK, 1. Slow start
        // first adds the 29 unmarked packets: 40000 B, halved to 20000 B (with the updated
        // alpha, 0.530: 21208 B).
        let acked: Vec<AckedPacket> = (1..=30).map(|pn| ack(pn, 20_000_000 * (pn / 30))).collect();
        c.on_congestion_event(&CongestionEvent {
            ecn_ce: 1,
            next_pn: 31,
            ..event(Time(21_000_000), &acked, &[], &r)
        });
        assert_eq!(c.window(), 20_000);
        assert!((c.alpha() - (15.0 + 1.0 / 30.0) / 16.0).abs() < 1e-12, "{}", c.alpha());
    }

    #[test]
    fn prague_loss_in_the_round_of_a_ce_cut_completes_a_halving() {
        // Draft-01 §2.4.1: the CE cut and the loss cut together make the loss response, a half
        // of the window before them (§3.2.1: `1/(2 − alpha)` after `1 − alpha/2`). With alpha
        // 0.2 the marks cut 10000 → 9000 B at 10 ms; a packet sent before that cut is found lost
        // at 12 ms: 9000 · 0.5/0.9 = 5000 B (the loss was ignored as the round's second signal,
        // leaving 9000 B; DCTCP still does that, as RFC 9002 §7.3.2 has it; its marked ACK
        // grew slow start first, 11000 → 9900 B).
        let r = rtt_of(Dur::from_millis(5));
        let prague_cfg = PragueConfig {
            initial_alpha: 0.2,
            ..PragueConfig::default()
        };
        let dctcp_cfg = crate::cc::DctcpConfig {
            initial_alpha: 0.2,
            ..Default::default()
        };
        let mut prague = Prague::new(&prague_cfg, 1000);
        let mut dctcp = crate::cc::Dctcp::new(&dctcp_cfg, 1000);
        let controllers: [&mut dyn CongestionController; 2] = [&mut prague, &mut dctcp];
        for (c, (cut, after_loss)) in controllers.into_iter().zip([(9000, 5000), (9900, 9900)]) {
            // Packets 0..10 sent.
            c.on_congestion_event(&CongestionEvent {
                ecn_ce: 1,
                next_pn: 10,
                ..event(Time(10_000_000), &[ack(0, 0)], &[], &r)
            });
            assert_eq!(c.window(), cut, "{}", c.name());
            c.on_congestion_event(&CongestionEvent {
                next_pn: 10,
                ..event(Time(12_000_000), &[], &loss(1, 1), &r)
            });
            assert!(c.window().abs_diff(after_loss) <= 1, "{}: {}", c.name(), c.window());
            // One loss response per round: another packet of the round lost changes nothing, and
            // Prague, now in loss recovery, no longer grows on ACKs of the round (§2.4.1: Reno
            // for the round after a loss).
            let w = c.window();
            c.on_congestion_event(&CongestionEvent {
                next_pn: 10,
                ..event(Time(13_000_000), &[ack(3, 3)], &loss(2, 2), &r)
            });
            assert_eq!(c.window(), w, "{}", c.name());
        }
    }

    #[test]
    fn prague_marks_ect0_when_configured_for_a_private_network() {
        // Draft-01 §2.2: ECT(1) on the Internet; optionally ECT(0) where DCTCP uses it.
        let cfg = PragueConfig {
            ect1: false,
            ..PragueConfig::default()
        };
        assert_eq!(Prague::new(&cfg, 1000).ecn_codepoint(), Some(Ecn::Ect0));
        assert_eq!(
            Prague::new(&PragueConfig::default(), 1000).ecn_codepoint(),
            Some(Ecn::Ect1)
        );
    }

    #[test]
    fn prague_first_ce_mark_halves_then_cuts_by_alpha() {
        let mut c = Prague::new(&PragueConfig::default(), 1000);
        let r = rtt_of(Dur::from_millis(20));
        // Packets 0..10 sent.
        let a = [AckedPacket {
            pn: 0,
            bytes: 1000,
            time_sent: Time::ZERO,
        }];
        let ev = CongestionEvent {
            ecn_ce: 1,
            next_pn: 10,
            ..event(Time(20_000_000), &a, &[], &r)
        };
        c.on_congestion_event(&ev);
        // The marked ACK adds no slow-start growth (unmarked bytes only), then alpha = 1
        // (initial) cuts the window in half.
        assert_eq!(c.window(), 5000);
        assert_eq!(c.state(), CcState::Recovery);
    }
}
