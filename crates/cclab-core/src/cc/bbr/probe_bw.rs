//! ProbeBW (§4.3.4): cycle the pacing gain through [5/4, 3/4, 1, 1, 1, 1, 1, 1], each phase
//! lasting about one RTprop: probe for more bandwidth, drain the queue the probe built, cruise.

use super::{Bbr, Mode};
use crate::cc::CongestionEvent;
use crate::time::Time;
use rand::Rng;

/// Pacing gain of each phase (§4.3.4.1; BBRGainCycleLen = 8).
pub(super) const PACING_GAIN_CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];

/// Position in the gain cycle.
#[derive(Clone, Copy, Debug)]
pub(super) struct GainCycle {
    /// BBR.cycle_index.
    index: usize,
    /// BBR.cycle_stamp: when the current phase started.
    stamp: Time,
}

impl GainCycle {
    /// Index of the current phase in `PACING_GAIN_CYCLE`.
    pub(super) fn index(&self) -> usize {
        self.index
    }
    /// Pacing gain of the current phase.
    pub(super) fn pacing_gain(&self) -> f64 {
        PACING_GAIN_CYCLE[self.index]
    }
    /// `BBRAdvanceCyclePhase`.
    fn advance(&mut self, now: Time) {
        self.index = (self.index + 1) % PACING_GAIN_CYCLE.len();
        self.stamp = now;
    }
}

impl Bbr {
    /// `BBREnterProbeBW` (§4.3.4.3): start at a random phase, never the 3/4 one (there is no
    /// queue to drain yet), so that flows sharing a bottleneck probe at different times. The
    /// draw comes from the generator seeded by `BbrConfig::seed`.
    pub(super) fn enter_probe_bw(&mut self, now: Time) {
        let len = PACING_GAIN_CYCLE.len();
        // index ∈ {1, …, 7}; advancing gives {2, …, 7, 0}.
        let mut cycle = GainCycle {
            index: len - 1 - self.rng.random_range(0..len - 1),
            stamp: now,
        };
        cycle.advance(now);
        self.mode = Mode::ProbeBw(cycle);
    }

    /// `BBRCheckCyclePhase` with `BBRIsNextCyclePhase` (§4.3.4.3): a phase lasts more than
    /// RTprop; the probing phase also waits until inflight reached `BBRInflight(5/4)` or a packet
    /// was lost, and the draining phase ends early once inflight is down to `BBRInflight(1)`.
    /// Inflight is measured before this ACK (`prior_inflight`).
    pub(super) fn check_cycle_phase(&mut self, ev: &CongestionEvent<'_>, lost: bool) {
        let Mode::ProbeBw(mut cycle) = self.mode else {
            return;
        };
        let gain = cycle.pacing_gain();
        let elapsed = ev.now.saturating_since(cycle.stamp);
        let full_length = self.model.rtprop.get().is_none_or(|rtprop| elapsed > rtprop);
        let next = if gain > 1.0 {
            full_length && (lost || ev.prior_in_flight >= self.inflight(gain))
        } else if gain < 1.0 {
            full_length || ev.prior_in_flight <= self.inflight(1.0)
        } else {
            full_length
        };
        if next {
            cycle.advance(ev.now);
            self.mode = Mode::ProbeBw(cycle);
        }
    }
}
