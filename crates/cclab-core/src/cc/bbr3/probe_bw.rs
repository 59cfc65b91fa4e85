//! ProbeBW (§5.3.3): a cycle of Down (drain what the last probe queued), Cruise (hold inflight
//! below `inflight_hi` with headroom), Refill (one round at the estimate, so the pipe is full
//! before probing) and Up (pace at 1.25× and raise `inflight_hi` until loss, ECN or a plateau).
//! A probe starts every 2–3 s (random) or after min(63, BDP in packets) rounds, whichever comes
//! first (§5.3.3.8): rarely enough to coexist with Reno/CUBIC, often enough to survive random loss.

use super::{Bbr3, Mode};
use crate::cc::{CongestionEvent, RateSample};
use crate::time::{Dur, Time};
use rand::Rng;

/// The phase of the ProbeBW cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// ProbeBW_DOWN: pacing gain 0.9 until inflight is below the target (§5.3.3.1).
    Down,
    /// ProbeBW_CRUISE: pacing gain 1, cwnd below `inflight_hi` with headroom (§5.3.3.2).
    Cruise,
    /// ProbeBW_REFILL: pacing gain 1 for one round, bounds reset (§5.3.3.3).
    Refill,
    /// ProbeBW_UP: pacing gain 1.25, `inflight_hi` growing (§5.3.3.4).
    Up,
}

impl Phase {
    /// State name in traces.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Down => "probe_bw_down",
            Phase::Cruise => "probe_bw_cruise",
            Phase::Refill => "probe_bw_refill",
            Phase::Up => "probe_bw_up",
        }
    }
}

/// What the incoming ACKs say about a probe (Linux v3 `enum bbr_ack_phase`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum AckPhase {
    /// Not probing, no probe feedback.
    #[default]
    Init,
    /// Refill: sending at the estimate.
    Refilling,
    /// Up has started; its packets are not acknowledged yet.
    ProbeStarting,
    /// ACKs of packets sent while probing.
    ProbeFeedback,
    /// The probe stopped; its last packets are still being acknowledged.
    ProbeStopping,
}

/// Probing state of the cycle (§5.3.3.9). Sizes in bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Cycle {
    /// BBR.cycle_stamp: start of the wait for the next probe (Down) or of Up.
    pub(super) stamp: Time,
    pub(super) ack_phase: AckPhase,
    /// BBR.rounds_since_bw_probe.
    pub(super) rounds_since_probe: u64,
    /// BBR.bw_probe_wait: wall-clock wait before the next probe.
    pub(super) probe_wait: Dur,
    /// BBR.bw_probe_up_rounds: rounds of Up so far (the growth of `inflight_hi` doubles each).
    pub(super) probe_up_rounds: u32,
    /// BBR.bw_probe_up_acks: bytes acknowledged toward the next `inflight_hi` increment.
    pub(super) probe_up_acks: u64,
    /// BBR.probe_up_cnt: bytes acknowledged per packet of `inflight_hi` growth.
    pub(super) probe_up_cnt: u64,
    /// BBR.bw_probe_samples: samples reflect a probe; a too-lossy one cuts `inflight_hi`.
    pub(super) bw_probe_samples: bool,
    /// The last probe ended because inflight went too high.
    pub(super) prev_probe_too_high: bool,
    /// The last probe stopped at `inflight_hi` to avoid repeating that loss.
    pub(super) stopped_risky_probe: bool,
}

impl Default for Cycle {
    fn default() -> Self {
        Cycle {
            stamp: Time::ZERO,
            ack_phase: AckPhase::Init,
            rounds_since_probe: 0,
            probe_wait: Dur::ZERO,
            probe_up_rounds: 0,
            probe_up_acks: 0,
            probe_up_cnt: u64::MAX,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
        }
    }
}

impl Bbr3 {
    /// `BBRPickProbeWait` (§5.3.3.8): 0 or 1 rounds already counted toward the Reno bound, and
    /// a wall-clock wait of `bw_probe_base` plus a uniform draw below `bw_probe_rand`, from the
    /// generator seeded by `Bbr3Config::seed`.
    fn pick_probe_wait(&mut self) {
        self.cycle.rounds_since_probe = self.rng.random_range(0..2);
        let spread = self.cfg.bw_probe_rand.as_nanos();
        let extra = if spread > 0 {
            self.rng.random_range(0..spread)
        } else {
            0
        };
        self.cycle.probe_wait = self.cfg.bw_probe_base + Dur::from_nanos(extra);
    }

    /// `BBRStartProbeBW_DOWN` (§5.3.3.9): a new cycle; forget the probe's signals and pick
    /// when to probe next. Also the entry to ProbeBW from Drain.
    pub(super) fn start_probe_bw_down(&mut self, now: Time, delivered: u64) {
        self.signals.reset();
        self.cycle.probe_up_cnt = u64::MAX;
        self.pick_probe_wait();
        self.cycle.stamp = now;
        self.cycle.ack_phase = AckPhase::ProbeStopping;
        self.rounds.restart(delivered);
        self.mode = Mode::ProbeBw(Phase::Down);
    }

    /// `BBRStartProbeBW_CRUISE` (§5.3.3.9).
    pub(super) fn start_probe_bw_cruise(&mut self) {
        self.mode = Mode::ProbeBw(Phase::Cruise);
    }

    /// `BBRStartProbeBW_REFILL` (§5.3.3.9): drop the short-term bounds and refill the pipe for
    /// one round; the first Up round grows `inflight_hi` by `2^up_rounds` packets.
    pub(super) fn start_probe_bw_refill(&mut self, delivered: u64, up_rounds: u32) {
        self.reset_lower_bounds();
        self.cycle.probe_up_rounds = up_rounds;
        self.cycle.probe_up_acks = 0;
        self.cycle.stopped_risky_probe = false;
        self.cycle.ack_phase = AckPhase::Refilling;
        self.rounds.restart(delivered);
        self.mode = Mode::ProbeBw(Phase::Refill);
    }

    /// `BBRStartProbeBW_UP` (§5.3.3.9): restart the plateau detector from this sample.
    fn start_probe_bw_up(&mut self, now: Time, delivered: u64, rs: &RateSample) {
        self.cycle.ack_phase = AckPhase::ProbeStarting;
        self.rounds.restart(delivered);
        self.cycle.stamp = now;
        self.full_bw.reset();
        self.full_bw.full_bw = rs.delivery_rate;
        self.mode = Mode::ProbeBw(Phase::Up);
        self.raise_inflight_hi_slope();
    }

    /// `BBRIsRenoCoexistenceProbeTime` (§5.3.3.8): a Reno flow with our BDP would probe
    /// (lose a packet) every BDP-in-packets rounds; wait no longer, and at most 63 rounds.
    fn is_reno_coexistence_probe_time(&self) -> bool {
        let rounds = (self.target_inflight() / self.mss).min(self.cfg.bw_probe_max_rounds);
        self.cycle.rounds_since_probe >= rounds
    }

    /// `BBRCheckTimeToProbeBW` (§5.3.3.9): start Refill when the wait or the Reno bound is up.
    /// With ECN (Linux v3 `bbr_ecn_reprobe_gain`), a cycle that saw marks but no loss reprobes at
    /// once, its first Up round growing `inflight_hi` by about half of it.
    fn check_time_to_probe_bw(&mut self, now: Time, delivered: u64) -> bool {
        let s = &self.signals;
        if s.ecn_eligible && s.ecn_in_cycle && !s.loss_in_cycle && self.recovery_start.is_none() {
            let half = self.inflight_hi.map_or(u64::MAX, |hi| hi / 2 / self.mss).max(1);
            self.start_probe_bw_refill(delivered, half.ilog2().min(30));
            return true;
        }
        let waited = now.saturating_since(self.cycle.stamp) > self.cycle.probe_wait;
        if waited || self.is_reno_coexistence_probe_time() {
            self.start_probe_bw_refill(delivered, 0);
            return true;
        }
        false
    }

    /// `BBRCheckTimeToCruise` (§5.3.3.9): Down ends once inflight is at most both
    /// `inflight_hi` less headroom and `BBRInflight(max_bw, 1)`.
    fn check_time_to_cruise(&self, inflight: u64) -> bool {
        inflight <= self.inflight_with_headroom() && inflight <= self.inflight(self.max_bw(), 1.0)
    }

    /// `BBRUpdateProbeBWCyclePhase` (§5.3.3.9, Linux v3 `bbr_update_cycle_phase`), once the
    /// pipe was filled: adapt the upper bound, then move through the cycle. Inflight is
    /// measured before this ACK (`prior_in_flight`).
    pub(super) fn update_probe_bw_cycle_phase(&mut self, ev: &CongestionEvent<'_>, rs: &RateSample, acked: u64) {
        if !self.full_bw.filled_pipe || self.adapt_upper_bounds(ev, rs, acked) {
            return;
        }
        let Mode::ProbeBw(phase) = self.mode else {
            return;
        };
        let inflight = ev.prior_in_flight;
        match phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(ev.now, ev.delivered);
            }
            Phase::Down => {
                if !self.check_time_to_probe_bw(ev.now, ev.delivered) && self.check_time_to_cruise(inflight) {
                    self.start_probe_bw_cruise();
                }
            }
            Phase::Refill => {
                // One round of Refill has passed: from now on samples reflect the probe.
                if self.rounds.start() {
                    self.cycle.bw_probe_samples = true;
                    self.start_probe_bw_up(ev.now, ev.delivered, rs);
                }
            }
            Phase::Up => {
                let hi = self.inflight_hi.unwrap_or(u64::MAX);
                let mut done = false;
                if self.cycle.prev_probe_too_high && inflight >= hi {
                    // The last probe lost too much at this level: stop before repeating it.
                    self.cycle.stopped_risky_probe = true;
                    done = true;
                } else if self.is_cwnd_limited(ev) && self.cwnd >= hi {
                    // inflight_hi, not the path, limits growth: no plateau yet.
                    self.full_bw.reset();
                    self.full_bw.full_bw = rs.delivery_rate;
                } else if self.full_bw.full_bw_now {
                    done = true;
                }
                if done {
                    self.cycle.prev_probe_too_high = false;
                    self.start_probe_bw_down(ev.now, ev.delivered);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{bbr_in, sample, BDP, MSS, RTT};
    use super::*;
    use crate::cc::test_util::{event, rtt_of};

    fn at(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    #[test]
    fn bbr3_down_cruises_once_inflight_is_below_bdp_and_headroom() {
        let mut b = bbr_in(Mode::ProbeBw(Phase::Down));
        b.cycle.probe_wait = Dur::from_secs(10);
        b.inflight_hi = Some(2 * BDP);
        let r = rtt_of(RTT);
        let rs = sample(BDP, 0);
        let ev = CongestionEvent {
            prior_in_flight: BDP + MSS,
            ..event(at(1), &[], &[], &r)
        };
        b.update_probe_bw_cycle_phase(&ev, &rs, MSS);
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Down), "still above one BDP");
        let ev = CongestionEvent {
            prior_in_flight: BDP,
            ..event(at(2), &[], &[], &r)
        };
        b.update_probe_bw_cycle_phase(&ev, &rs, MSS);
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Cruise));
        // With inflight_hi barely above the BDP, the 15 % headroom is the tighter target.
        let mut b = bbr_in(Mode::ProbeBw(Phase::Down));
        b.cycle.probe_wait = Dur::from_secs(10);
        b.inflight_hi = Some(BDP);
        b.update_probe_bw_cycle_phase(&ev, &rs, MSS);
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Down), "BDP > 0.85 · inflight_hi");
    }

    #[test]
    fn bbr3_cruise_refills_when_the_probe_wait_is_over_and_refill_goes_up_after_a_round() {
        let mut b = bbr_in(Mode::ProbeBw(Phase::Cruise));
        b.cycle.stamp = at(0);
        b.cycle.probe_wait = Dur::from_millis(2500);
        b.bw_lo = Some(1.0);
        b.inflight_lo = Some(MSS);
        let r = rtt_of(RTT);
        let rs = sample(BDP, 0);
        b.update_probe_bw_cycle_phase(&event(at(2500), &[], &[], &r), &rs, MSS);
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Cruise), "2.5 s have not passed yet");
        let ev = CongestionEvent {
            delivered: 7 * MSS,
            ..event(at(2501), &[], &[], &r)
        };
        b.update_probe_bw_cycle_phase(&ev, &rs, MSS);
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Refill));
        assert_eq!(
            (b.bw_lo, b.inflight_lo),
            (None, None),
            "Refill drops the short-term bounds"
        );
        // No round has ended since Refill began: stay.
        b.rounds.on_sample(0, 8 * MSS);
        b.update_probe_bw_cycle_phase(&event(at(2510), &[], &[], &r), &rs, MSS);
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Refill));
        // A packet sent after Refill began is acknowledged: the round ends, Up begins.
        b.rounds.on_sample(7 * MSS, 9 * MSS);
        b.update_probe_bw_cycle_phase(&event(at(2550), &[], &[], &r), &rs, MSS);
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Up));
        assert!(b.cycle.bw_probe_samples);
        assert_eq!(b.pacing_gain(), 1.25);
        assert_eq!(b.cwnd_gain(), 2.25);
    }

    #[test]
    fn bbr3_reno_coexistence_probes_after_bdp_packets_rounds_at_most_63() {
        let mut b = bbr_in(Mode::ProbeBw(Phase::Cruise));
        b.cycle.probe_wait = Dur::from_secs(100);
        // BDP = 50 packets < 63.
        assert_eq!(b.target_inflight() / MSS, BDP / MSS);
        b.cycle.rounds_since_probe = BDP / MSS - 1;
        assert!(!b.is_reno_coexistence_probe_time());
        b.cycle.rounds_since_probe += 1;
        assert!(b.is_reno_coexistence_probe_time());
    }

    #[test]
    fn bbr3_up_goes_down_on_a_bandwidth_plateau() {
        let mut b = bbr_in(Mode::ProbeBw(Phase::Up));
        let r = rtt_of(RTT);
        let rs = sample(BDP, 0);
        b.update_probe_bw_cycle_phase(&event(at(1), &[], &[], &r), &rs, MSS);
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Up));
        b.full_bw.full_bw_now = true;
        let ev = CongestionEvent {
            delivered: 3 * MSS,
            ..event(at(2), &[], &[], &r)
        };
        b.update_probe_bw_cycle_phase(&ev, &rs, MSS);
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Down));
        assert_eq!(b.pacing_gain(), 0.9);
        assert!(b.cycle.probe_wait >= Dur::from_secs(2) && b.cycle.probe_wait < Dur::from_secs(3));
    }
}
