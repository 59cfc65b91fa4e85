//! The loss- and ECN-aware bounds of the BBRv3 model: the long-term `inflight_hi`, learnt by
//! bandwidth probes (§5.5.10.2), and the short-term `bw_lo` / `inflight_lo`, which shrink by β
//! per round with loss while not probing (§5.5.10.3), and how they cap cwnd (§5.6.4.7).

use super::probe_bw::AckPhase;
use super::{Bbr3, Mode, Phase};
use crate::cc::{CongestionEvent, LostPacket, RateSample};
use crate::time::Time;

impl Bbr3 {
    /// `BBRIsProbingBW`: Startup, ProbeBW_REFILL and ProbeBW_UP push inflight up; the
    /// short-term bounds then stay off.
    fn is_probing_bw(&self) -> bool {
        matches!(self.mode, Mode::Startup | Mode::ProbeBw(Phase::Refill | Phase::Up))
    }

    /// `BBRUpdateCongestionSignals` (§5.5.10.3): feed the max-bandwidth filter (app-limited
    /// samples only when they raise it, §5.5.5), and once per loss round adapt the short-term
    /// bounds.
    pub(super) fn update_congestion_signals(&mut self, rs: Option<&RateSample>) {
        let Some(rs) = rs.filter(|rs| rs.delivery_rate > 0.0) else {
            return;
        };
        if !rs.is_app_limited || rs.delivery_rate >= self.max_bw() {
            self.max_bw.update(rs.delivery_rate);
        }
        if !self.signals.loss_round_start {
            return;
        }
        self.adapt_lower_bounds();
        self.signals.loss_in_round = false;
        self.signals.ecn_in_round = false;
    }

    /// `BBRAdaptLowerBoundsFromCongestion` (§5.5.10.3): after a round with loss, outside probes,
    /// `bw_lo = max(bw_latest, β·bw_lo)` and `inflight_lo = max(inflight_latest, β·inflight_lo)`,
    /// starting from `max_bw` and cwnd; after a round with CE marks, `inflight_lo ·= 1 −
    /// ecn_factor·ecn_alpha` (Linux v3 `bbr_ecn_lower_bounds`). The floors keep the cut from
    /// going below what the path delivered in the latest round.
    fn adapt_lower_bounds(&mut self) {
        if self.is_probing_bw() {
            return;
        }
        let mut ecn_inflight_lo = u64::MAX;
        if self.signals.ecn_in_round && self.cfg.ecn_factor > 0.0 {
            let lo = *self.inflight_lo.get_or_insert(self.cwnd);
            let cut = 1.0 - self.signals.ecn_alpha * self.cfg.ecn_factor;
            ecn_inflight_lo = (lo as f64 * cut) as u64;
        }
        if self.signals.loss_in_round {
            let beta = self.cfg.beta;
            let bw_lo = *self.bw_lo.get_or_insert(self.max_bw.get());
            let inflight_lo = *self.inflight_lo.get_or_insert(self.cwnd);
            self.bw_lo = Some(self.signals.bw_latest.max(beta * bw_lo));
            self.inflight_lo = Some(self.signals.inflight_latest.max((beta * inflight_lo as f64) as u64));
        }
        if let Some(lo) = &mut self.inflight_lo {
            *lo = (*lo).min(ecn_inflight_lo);
        }
    }

    /// `BBRResetLowerBounds` (§5.5.10.3): before a probe, and after ProbeRTT.
    pub(super) fn reset_lower_bounds(&mut self) {
        self.bw_lo = None;
        self.inflight_lo = None;
    }

    /// `IsInflightTooHigh` (§5.5.10.2): the loss rate of the flight that ended with this
    /// sample's packet, `lost / tx_in_flight`, exceeds BBR.LossThresh. (The draft's second
    /// case, any loss without selective ACKs, never applies: both profiles report ACK ranges.)
    pub(super) fn is_inflight_too_high(&self, rs: &RateSample) -> bool {
        rs.lost as f64 > self.cfg.loss_thresh * rs.tx_in_flight as f64
    }

    /// The ECN counterpart (Linux v3 `bbr_is_inflight_too_high`): with ECN in use, the last
    /// round's CE fraction exceeds `ecn_thresh`.
    fn is_ecn_too_high(&self) -> bool {
        self.signals.ecn_eligible && self.signals.ce_ratio > self.cfg.ecn_thresh
    }

    /// `HandleLostPacket` (§5.5.10.2), for each packet declared lost: a packet sent during a
    /// probe whose flight lost more than BBR.LossThresh shows the probe went too high;
    /// `inflight_hi` is then cut from the inflight level at which losses crossed the threshold.
    pub(super) fn handle_lost_packet(&mut self, p: &LostPacket, now: Time, delivered: u64) {
        if !self.cycle.bw_probe_samples {
            return;
        }
        let mut rs = RateSample {
            tx_in_flight: p.tx_in_flight,
            lost: p.lost_since_sent,
            is_app_limited: p.is_app_limited,
            ..RateSample::default()
        };
        if self.is_inflight_too_high(&rs) {
            rs.tx_in_flight = self.inflight_at_loss(p);
            self.handle_inflight_too_high(&rs, now, delivered);
        }
    }

    /// `InflightAtLoss` (§5.5.10.2): solving `(lost_prev + x) / (inflight_prev + x) =
    /// LossThresh` for the prefix `x` of packet `p` at which the flight's loss rate crossed the
    /// threshold; returns `inflight_prev + x`, bytes (`x` = 0 if earlier losses crossed it).
    fn inflight_at_loss(&self, p: &LostPacket) -> u64 {
        let thresh = self.cfg.loss_thresh;
        let inflight_prev = p.tx_in_flight.saturating_sub(p.bytes);
        let lost_prev = p.lost_since_sent.saturating_sub(p.bytes);
        let prefix = (thresh * inflight_prev as f64 - lost_prev as f64) / (1.0 - thresh);
        inflight_prev + prefix.max(0.0) as u64
    }

    /// `BBRTargetInflight`: min(BDP with quantization budget, cwnd), bytes.
    pub(super) fn target_inflight(&self) -> u64 {
        self.inflight(self.bw(), 1.0).min(self.cwnd)
    }

    /// `HandleInflightTooHigh` (§5.5.10.2): once per probe, `inflight_hi = max(tx_in_flight,
    /// β · TargetInflight())` (not when app-limited: the probe did not reach the path's limit;
    /// β keeps the cut no deeper than CUBIC's), and a probe in ProbeBW_UP stops.
    fn handle_inflight_too_high(&mut self, rs: &RateSample, now: Time, delivered: u64) {
        self.cycle.prev_probe_too_high = true;
        self.cycle.bw_probe_samples = false;
        if !rs.is_app_limited {
            let cut = (self.cfg.beta * self.target_inflight() as f64) as u64;
            self.inflight_hi = Some(rs.tx_in_flight.max(cut));
        }
        if self.mode == Mode::ProbeBw(Phase::Up) {
            self.start_probe_bw_down(now, delivered);
        }
    }

    /// `AdaptLongTermModel` (§5.3.3.9): track which ACKs carry the feedback of a probe; unless
    /// this sample's flight lost too much, raise `inflight_hi` to any inflight level shown to be
    /// safe, and grow it in ProbeBW_UP. Loss cuts it only per lost packet
    /// (`handle_lost_packet`); ECN marks above `ecn_thresh` cut it here (Linux v3
    /// `bbr_adapt_upper_bounds`). Returns true when it decided a phase change.
    pub(super) fn adapt_upper_bounds(&mut self, ev: &CongestionEvent<'_>, rs: &RateSample, acked: u64) -> bool {
        let round_start = self.rounds.start();
        if self.cycle.ack_phase == AckPhase::ProbeStarting && round_start {
            self.cycle.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.cycle.ack_phase == AckPhase::ProbeStopping && round_start {
            // The probe's samples have all arrived: the best time to start a new max_bw window.
            self.cycle.bw_probe_samples = false;
            self.cycle.ack_phase = AckPhase::Init;
            let in_probe_bw = matches!(self.mode, Mode::ProbeBw(_));
            if in_probe_bw && !rs.is_app_limited {
                self.max_bw.advance();
            }
            // The last probe stopped at inflight_hi without seeing loss: probe again at once.
            if in_probe_bw && self.cycle.stopped_risky_probe && !self.cycle.prev_probe_too_high {
                self.start_probe_bw_refill(ev.delivered, 0);
                return true;
            }
        }
        if self.is_ecn_too_high() && self.cycle.bw_probe_samples {
            self.handle_inflight_too_high(rs, ev.now, ev.delivered);
        }
        if self.is_inflight_too_high(rs) || self.is_ecn_too_high() {
            return false;
        }
        let Some(hi) = self.inflight_hi else {
            return false;
        };
        // Random loss shaves inflight_hi in some probes; any safe higher level restores it.
        if rs.tx_in_flight > hi {
            self.inflight_hi = Some(rs.tx_in_flight);
        }
        if self.mode == Mode::ProbeBw(Phase::Up) {
            self.probe_inflight_hi_upward(ev, acked);
        }
        false
    }

    /// The sender used its whole cwnd (Linux `tp->is_cwnd_limited`): inflight before this ACK
    /// was within one packet of cwnd.
    pub(super) fn is_cwnd_limited(&self, ev: &CongestionEvent<'_>) -> bool {
        ev.prior_in_flight + self.mss > self.cwnd
    }

    /// `BBRProbeInflightHiUpward` (§5.3.3.9): while cwnd-limited at `inflight_hi`, raise it by
    /// one packet per `probe_up_cnt` bytes acknowledged.
    fn probe_inflight_hi_upward(&mut self, ev: &CongestionEvent<'_>, acked: u64) {
        let Some(hi) = self.inflight_hi else {
            return;
        };
        if !self.is_cwnd_limited(ev) || self.cwnd < hi {
            return;
        }
        let c = &mut self.cycle;
        c.probe_up_acks += acked;
        if c.probe_up_acks >= c.probe_up_cnt {
            let delta = c.probe_up_acks / c.probe_up_cnt;
            c.probe_up_acks -= delta * c.probe_up_cnt;
            self.inflight_hi = Some(hi + delta * self.mss);
        }
        if self.rounds.start() {
            self.raise_inflight_hi_slope();
        }
    }

    /// `BBRRaiseInflightHiSlope` (§5.3.3.9): the growth of `inflight_hi` doubles every round of
    /// ProbeBW_UP (1, 2, 4, … packets per round), so a probe finds a larger pipe in log time.
    pub(super) fn raise_inflight_hi_slope(&mut self) {
        let c = &mut self.cycle;
        let growth_this_round = 1u64 << c.probe_up_rounds;
        c.probe_up_rounds = (c.probe_up_rounds + 1).min(30);
        c.probe_up_cnt = (self.cwnd / growth_this_round).max(self.mss);
    }

    /// `BBRInflightWithHeadroom` (§5.3.3.9): `inflight_hi` less 15 % headroom for other flows
    /// (at least one packet, never below BBRMinPipeCwnd); unbounded while `inflight_hi` is.
    pub(super) fn inflight_with_headroom(&self) -> u64 {
        let Some(hi) = self.inflight_hi else {
            return u64::MAX;
        };
        let headroom = ((self.cfg.headroom * hi as f64) as u64).max(self.mss);
        hi.saturating_sub(headroom).max(self.min_pipe_cwnd())
    }

    /// `BBRBoundCwndForModel` (§5.6.4.7): ProbeBW outside Cruise may fill `inflight_hi`;
    /// Cruise and ProbeRTT keep headroom below it; every state respects `inflight_lo`.
    pub(super) fn bound_cwnd_for_model(&mut self) {
        let cap = match self.mode {
            Mode::ProbeBw(Phase::Cruise) | Mode::ProbeRtt(_) => self.inflight_with_headroom(),
            Mode::ProbeBw(_) => self.inflight_hi.unwrap_or(u64::MAX),
            Mode::Startup | Mode::Drain => u64::MAX,
        };
        let cap = cap.min(self.inflight_lo.unwrap_or(u64::MAX)).max(self.min_pipe_cwnd());
        self.cwnd = self.cwnd.min(cap);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{bbr_in, sample, BDP, MSS};
    use super::*;

    fn lost(tx_in_flight: u64, lost_since_sent: u64) -> LostPacket {
        LostPacket {
            bytes: MSS,
            tx_in_flight,
            lost_since_sent,
            ..LostPacket::default()
        }
    }

    #[test]
    fn bbr3_loss_above_two_percent_in_probe_up_cuts_inflight_hi_to_beta_times_target() {
        let mut b = bbr_in(Mode::ProbeBw(Phase::Up));
        b.cycle.bw_probe_samples = true;
        b.inflight_hi = Some(1_000_000);
        let target = b.target_inflight();
        assert_eq!(target, BDP + 2 * MSS, "min(BDP + ProbeBW_UP budget, cwnd)");
        // This packet alone of a 20-packet flight was lost: 5 % > 2 %. Losses crossed 2 % at
        // 19 387 B in flight, below β · target, so β · target wins.
        b.handle_lost_packet(&lost(20 * MSS, MSS), Time::ZERO, 0);
        assert_eq!(b.inflight_hi, Some((0.7 * target as f64) as u64));
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Down), "a too-lossy probe stops");
        assert!(b.cycle.prev_probe_too_high && !b.cycle.bw_probe_samples);
        // Only once per probe.
        b.handle_lost_packet(&lost(2 * MSS, 2 * MSS), Time::ZERO, 0);
        assert_eq!(b.inflight_hi, Some((0.7 * target as f64) as u64));
    }

    #[test]
    fn bbr3_inflight_at_loss_is_where_the_loss_rate_crossed_two_percent() {
        let b = bbr_in(Mode::ProbeBw(Phase::Up));
        // 19 packets before this one, none lost: x solves x / (19 000 + x) = 0.02.
        let x = 0.02 * 19_000.0 / 0.98;
        assert_eq!(b.inflight_at_loss(&lost(20 * MSS, MSS)), 19_000 + x as u64);
        // Earlier losses already crossed 2 %: the level before this packet.
        assert_eq!(b.inflight_at_loss(&lost(520 * MSS, 52 * MSS)), 519 * MSS);
    }

    #[test]
    fn bbr3_lost_packet_within_two_percent_or_outside_a_probe_leaves_inflight_hi() {
        let mut b = bbr_in(Mode::ProbeBw(Phase::Up));
        b.cycle.bw_probe_samples = true;
        b.handle_lost_packet(&lost(100 * MSS, 2 * MSS), Time::ZERO, 0);
        assert_eq!(b.inflight_hi, None, "2 % is the threshold, not above it");
        b.cycle.bw_probe_samples = false;
        b.handle_lost_packet(&lost(20 * MSS, 10 * MSS), Time::ZERO, 0);
        assert_eq!(b.inflight_hi, None, "not a packet sent while probing");
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Up));
    }

    #[test]
    fn bbr3_loss_at_two_percent_is_not_too_high() {
        let b = bbr_in(Mode::ProbeBw(Phase::Up));
        assert!(
            !b.is_inflight_too_high(&sample(100_000, 2_000)),
            "2 % is the threshold, not above it"
        );
        assert!(b.is_inflight_too_high(&sample(100_000, 2_001)));
    }

    #[test]
    fn bbr3_too_lossy_sample_keeps_the_flight_that_was_in_flight_when_above_beta_target() {
        let mut b = bbr_in(Mode::ProbeBw(Phase::Up));
        b.cycle.bw_probe_samples = true;
        let big = 10 * b.target_inflight();
        b.handle_inflight_too_high(&sample(big, big / 10), Time::ZERO, 0);
        assert_eq!(b.inflight_hi, Some(big));
    }

    #[test]
    fn bbr3_lossy_round_outside_probes_cuts_lower_bounds_by_beta_down_to_latest_delivery() {
        let mut b = bbr_in(Mode::ProbeBw(Phase::Cruise));
        let (max_bw, cwnd) = (b.max_bw(), b.cwnd);
        b.signals.loss_in_round = true;
        b.signals.bw_latest = 0.1 * max_bw;
        b.signals.inflight_latest = cwnd / 10;
        b.adapt_lower_bounds();
        assert_eq!(b.bw_lo, Some(0.7 * max_bw));
        assert_eq!(b.inflight_lo, Some((0.7 * cwnd as f64) as u64));
        // The latest round delivered more than β times the bound: the floor holds.
        b.signals.bw_latest = 0.6 * max_bw;
        b.adapt_lower_bounds();
        assert_eq!(b.bw_lo, Some(0.6 * max_bw));
        assert!((b.bw() - 0.6 * max_bw).abs() < 1e-9, "BBR.bw = min(max_bw, bw_lo)");
    }

    #[test]
    fn bbr3_ce_marked_round_cuts_inflight_lo_by_a_third_of_ecn_alpha() {
        let mut b = bbr_in(Mode::ProbeBw(Phase::Cruise));
        b.signals = super::super::signals::Signals::new(true);
        b.cfg.ecn_max_rtt = crate::time::Dur::from_millis(200);
        // Round 1: half of 10 kB marked. α starts at 1: α = 15/16 · 1 + 1/16 · 0.5.
        b.signals.on_ack(10_000, 0, 5_000);
        b.update_ecn_alpha(10_000);
        assert!(b.signals.ecn_eligible, "min RTT 125 ms ≤ ecn_max_rtt");
        let alpha = 15.0 / 16.0 + 0.5 / 16.0;
        assert!((b.signals.ecn_alpha - alpha).abs() < 1e-12);
        // Round 2 sees a mark: at its end inflight_lo = cwnd · (1 − α/3).
        b.signals.on_ack(20_000, 0, MSS);
        b.adapt_lower_bounds();
        let cwnd = b.cwnd as f64;
        assert_eq!(b.inflight_lo, Some((cwnd * (1.0 - alpha / 3.0)) as u64));
        assert_eq!(b.bw_lo, None, "ECN alone bounds the volume, not the rate");
    }

    #[test]
    fn bbr3_lower_bounds_stay_off_while_probing() {
        for mode in [Mode::Startup, Mode::ProbeBw(Phase::Refill), Mode::ProbeBw(Phase::Up)] {
            let mut b = bbr_in(mode);
            b.signals.loss_in_round = true;
            b.adapt_lower_bounds();
            assert_eq!((b.bw_lo, b.inflight_lo), (None, None), "{mode:?}");
        }
    }

    #[test]
    fn bbr3_probe_bw_down_is_not_probing_and_its_lossy_rounds_cut_bw_lo_to_its_own_rate() {
        // Linux v3 `bbr_is_probing_bandwidth` and the draft's IsProbingBW() leave ProbeBW_DOWN
        // out: a lossy round there cuts bw_lo to what Down's 0.9x pacing delivered.
        let mut b = bbr_in(Mode::ProbeBw(Phase::Down));
        b.signals.loss_in_round = true;
        b.signals.bw_latest = 0.89 * b.max_bw();
        b.adapt_lower_bounds();
        assert_eq!(b.bw_lo, Some(0.89 * b.max_bw()));
        assert!((b.pacing_gain() - 0.9).abs() < 1e-12);
    }

    #[test]
    fn bbr3_cruise_leaves_fifteen_percent_headroom_below_inflight_hi() {
        let mut b = bbr_in(Mode::ProbeBw(Phase::Cruise));
        b.inflight_hi = Some(100_000);
        b.cwnd = 1_000_000;
        b.bound_cwnd_for_model();
        assert_eq!(b.cwnd, 85_000);
        b.mode = Mode::ProbeBw(Phase::Up);
        b.cwnd = 1_000_000;
        b.bound_cwnd_for_model();
        assert_eq!(b.cwnd, 100_000, "ProbeBW_UP may fill inflight_hi");
    }
}
