//! Startup and Drain (§4.3.2, §4.3.3): raise the sending rate by BBRHighGain = 2/ln 2 per round
//! until BtlBw stops growing, then pace at 1/BBRHighGain until the queue this built has drained.

use super::{Bbr, Mode};
use crate::cc::{CongestionEvent, RateSample};

/// BtlBw must grow by this factor per round for Startup to continue (§4.3.2.2: 25 %).
const FULL_BW_GROWTH: f64 = 1.25;
/// Rounds without that growth after which the pipe is full (§4.3.2.2: 3).
const FULL_BW_ROUNDS: u32 = 3;

/// The full-pipe estimator (§4.3.2.2).
#[derive(Clone, Debug, Default)]
pub(super) struct FullPipe {
    /// BtlBw at the last round that grew it by `FULL_BW_GROWTH`, bytes/s.
    full_bw: f64,
    /// Rounds since then.
    count: u32,
    /// BBR.filled_pipe: Startup has filled the pipe at least once.
    reached: bool,
}

impl FullPipe {
    /// BBR.filled_pipe.
    pub(super) fn reached(&self) -> bool {
        self.reached
    }
    /// Restarts plateau detection (Linux `bbr_set_state` on a retransmission timeout).
    pub(super) fn reset_baseline(&mut self) {
        self.full_bw = 0.0;
        self.count = 0;
    }
}

impl Bbr {
    /// `BBRCheckFullPipe` (§4.3.2.2): once per round, on samples that measure the path rather
    /// than the application, count rounds in which BtlBw grew by less than 25 %.
    pub(super) fn check_full_pipe(&mut self, rs: Option<&RateSample>) {
        let measures_path = rs.is_some_and(|rs| !rs.is_app_limited);
        let fp = &mut self.full_pipe;
        if fp.reached || !self.model.rounds.start() || !measures_path {
            return;
        }
        let btl_bw = self.model.btl_bw();
        if btl_bw >= fp.full_bw * FULL_BW_GROWTH {
            fp.full_bw = btl_bw;
            fp.count = 0;
            return;
        }
        fp.count += 1;
        fp.reached = fp.count >= FULL_BW_ROUNDS;
    }

    /// `BBRCheckDrain` (§4.3.3): leave Startup once the pipe is full, and Drain once inflight
    /// (after this ACK) is back to `BBRInflight(1)`, the BDP plus send quanta.
    pub(super) fn check_drain(&mut self, ev: &CongestionEvent<'_>) {
        if matches!(self.mode, Mode::Startup) && self.full_pipe.reached() {
            self.mode = Mode::Drain;
            // Linux `bbr_check_drain`: ssthresh reports the estimated BDP from here on.
            self.ssthresh = self.inflight(1.0);
        }
        if matches!(self.mode, Mode::Drain) && ev.bytes_in_flight <= self.inflight(1.0) {
            self.enter_probe_bw(ev.now);
        }
    }
}
