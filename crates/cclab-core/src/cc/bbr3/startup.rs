//! Startup and Drain (§5.3.1, §5.3.2): double the sending rate each round until the bandwidth
//! stops growing (or loss or ECN show the queue overflowing), then drain the queue that built.
//! The plateau detector is also used by ProbeBW_UP to end a probe (§5.3.3.4).

use super::{Bbr3, Mode};
use crate::cc::{CongestionEvent, RateSample};

/// max_bw must grow by this factor per round to count as growth (§5.3.1.2: 25 %).
const FULL_BW_GROWTH: f64 = 1.25;
/// Rounds without that growth that make a plateau (§5.3.1.2: 3).
const FULL_BW_ROUNDS: u32 = 3;

/// The full-bandwidth estimator (§5.3.1.2).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct FullBw {
    /// BBR.full_bw: the bandwidth at the last growth, bytes/s.
    pub(super) full_bw: f64,
    /// BBR.full_bw_count: rounds since then.
    count: u32,
    /// BBR.full_bw_now: a plateau was found since the last reset.
    pub(super) full_bw_now: bool,
    /// BBR.filled_pipe: Startup ended (by plateau, loss or ECN).
    pub(super) filled_pipe: bool,
}

impl FullBw {
    /// `BBRResetFullBW`: start looking for a new plateau.
    pub(super) fn reset(&mut self) {
        self.full_bw = 0.0;
        self.count = 0;
        self.full_bw_now = false;
    }
}

impl Bbr3 {
    /// `BBRCheckFullBWReached` (§5.3.1.2): on samples that measure the path, reset when
    /// max_bw grew by 25 %; otherwise count rounds, and after 3 the pipe is full.
    pub(super) fn check_full_bw_reached(&mut self, rs: Option<&RateSample>) {
        let Some(rs) = rs else {
            return;
        };
        if self.full_bw.full_bw_now || rs.is_app_limited {
            return;
        }
        let max_bw = self.max_bw();
        let f = &mut self.full_bw;
        if max_bw >= f.full_bw * FULL_BW_GROWTH {
            f.reset();
            f.full_bw = max_bw;
            return;
        }
        if !self.rounds.start() {
            return;
        }
        f.count += 1;
        f.full_bw_now = f.count >= FULL_BW_ROUNDS;
        f.filled_pipe |= f.full_bw_now;
    }

    /// `BBRCheckStartupHighLoss` (§5.3.1.3): at the end of a loss round in recovery, Startup
    /// ends if the round had at least `startup_full_loss_count` ACKs with losses and the loss
    /// rate exceeded BBRLossThresh.
    pub(super) fn check_startup_high_loss(&mut self, rs: Option<&RateSample>) {
        if self.full_bw.filled_pipe {
            return;
        }
        let round_end = self.signals.loss_round_start;
        if round_end
            && self.recovery_start.is_some()
            && self.signals.loss_events_in_round >= self.cfg.startup_full_loss_count
            && rs.is_some_and(|rs| self.is_inflight_too_high(rs))
        {
            self.handle_queue_too_high_in_startup();
            return;
        }
        if round_end {
            self.signals.loss_events_in_round = 0;
        }
    }

    /// Startup found the queue overflowing (loss or ECN): the pipe is full, and `inflight_hi`
    /// starts at the larger of the estimated BDP and what the last round delivered
    /// (Linux v3 `bbr_handle_queue_too_high_in_startup`).
    pub(super) fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw.filled_pipe = true;
        let bdp = self.inflight(self.max_bw(), 1.0);
        self.inflight_hi = Some(bdp.max(self.signals.inflight_latest));
    }

    /// `BBRCheckStartupDone` and `BBRCheckDrain` (§5.3.1, §5.3.2): leave Startup once the pipe
    /// is full; leave Drain for ProbeBW_DOWN once inflight (after this ACK) is at most
    /// `BBRInflight(max_bw, 1)`.
    pub(super) fn check_drain(&mut self, ev: &CongestionEvent<'_>) {
        if self.mode == Mode::Startup && self.full_bw.filled_pipe {
            self.mode = Mode::Drain;
            // Linux: ssthresh reports the estimated BDP from here on (monitoring only).
            self.ssthresh = self.inflight(self.max_bw(), 1.0);
            self.signals.reset();
        }
        if self.mode == Mode::Drain && ev.bytes_in_flight <= self.inflight(self.max_bw(), 1.0) {
            self.start_probe_bw_down(ev.now, ev.delivered);
        }
    }
}
