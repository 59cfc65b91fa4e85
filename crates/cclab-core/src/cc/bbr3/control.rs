//! BBRv3's control parameters (§5.6): pacing rate, send quantum and congestion window,
//! including the window's response to loss recovery and ProbeRTT.

use super::{Bbr3, Mode, Phase};
use crate::cc::CongestionEvent;
use crate::time::Dur;

impl Bbr3 {
    /// `BBRInitPacingRate` (§5.6.2): `startup_pacing_gain · InitialCwnd / RTT`, from the window
    /// the connection started with (Linux reads its cwnd: one segment after a lost SYN).
    pub(super) fn init_pacing_rate(&mut self, rtt: Dur) {
        let rate = self.start_cwnd() as f64 / rtt.as_secs_f64().max(1e-9);
        self.pacing_rate = self.cfg.startup_pacing_gain * rate;
    }

    /// `BBRSetPacingRateWithGain` (§5.6.2): `gain · BBR.bw · (1 − BBRPacingMarginPercent)`,
    /// never lowered before the pipe is full.
    pub(super) fn set_pacing_rate_with_gain(&mut self, gain: f64) {
        let rate = gain * self.bw() * (1.0 - self.cfg.pacing_margin);
        if self.full_bw.filled_pipe || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `BBRSetSendQuantum` (§5.6.3): 1 ms at the pacing rate, between 2 packets and 64 KB.
    pub(super) fn set_send_quantum(&mut self) {
        let quantum = (self.pacing_rate * 1e-3) as u64;
        self.send_quantum = quantum.clamp(2 * self.mss, (64 * 1024).max(2 * self.mss));
    }

    /// `BBRBDPMultiple` (§5.6.4.2): `gain · bw · min_rtt`, rounded up (Linux `bbr_bdp`);
    /// InitialCwnd while min_rtt is unknown (Linux: `TCP_INIT_CWND`, whatever the connection
    /// started from).
    pub(super) fn bdp_multiple(&self, bw: f64, gain: f64) -> u64 {
        self.min_rtt
            .get()
            .map_or(self.initial_cwnd(), |r| (gain * bw * r.as_secs_f64()).ceil() as u64)
    }

    /// `QuantizationBudget` (§5.6.4.2): at least the offload budget (3 send quanta, as Linux's
    /// `bbr_quantization_budget`; §5.5.8.2 allows one for QUIC without pacing offload) and
    /// BBRMinPipeCwnd, plus 2 packets in ProbeBW_UP so that even a tiny BDP is probed above.
    fn quantization_budget(&self, inflight: u64) -> u64 {
        let mut inflight = inflight.max(3 * self.send_quantum).max(self.min_pipe_cwnd());
        if self.mode == Mode::ProbeBw(Phase::Up) {
            inflight += 2 * self.mss;
        }
        inflight
    }

    /// `BBRInflight(bw, gain)` (§5.6.4.2): the BDP multiple with its quantization budget.
    pub(super) fn inflight(&self, bw: f64, gain: f64) -> u64 {
        self.quantization_budget(self.bdp_multiple(bw, gain))
    }

    /// `BBRSaveCwnd` (§5.6.4.4): the last cwnd that recovery or ProbeRTT had not cut.
    pub(super) fn save_cwnd(&mut self) {
        let cut = self.recovery_start.is_some() || matches!(self.mode, Mode::ProbeRtt(_));
        self.prior_cwnd = if cut { self.prior_cwnd.max(self.cwnd) } else { self.cwnd };
    }

    /// `BBRRestoreCwnd` (§5.6.4.4).
    pub(super) fn restore_cwnd(&mut self) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    /// Loss recovery (§5.6.4.4): v3 no longer cuts cwnd on entering fast recovery (its loss
    /// response is the short-term model, §5.5.10.3); it saves cwnd (`OnEnterFastRecovery`) and
    /// restores it on exit (`RestoreCwnd`), after which the model bounds it again. Recovery
    /// periods follow RFC 9002 §7.3.2: one starts when a packet sent after the start of the
    /// current one is lost, and ends when a packet sent after its start is acknowledged.
    fn track_recovery(&mut self, ev: &CongestionEvent<'_>) {
        if let Some(start) = self.recovery_start {
            if ev.acked.last().is_some_and(|p| p.time_sent > start) {
                self.recovery_start = None;
                self.restore_cwnd();
            }
        }
        let new_period = ev
            .largest_lost_sent()
            .is_some_and(|sent| self.recovery_start.is_none_or(|s| sent > s));
        if new_period {
            self.save_cwnd();
            self.recovery_start = Some(ev.now);
        }
    }

    /// cwnd allowance for ACK aggregation (§5.5.9, Linux v3 `bbr_ack_aggregation_cwnd`):
    /// `extra_acked`, at most `bw · extra_acked_max`; 0 when disabled.
    fn ack_aggregation_cwnd(&self) -> u64 {
        if !self.cfg.ack_aggregation {
            return 0;
        }
        let max = self.bw() * self.cfg.extra_acked_max.as_secs_f64();
        (self.aggregation.extra_acked() as f64).min(max) as u64
    }

    /// `BBRProbeRTTCwnd` (§5.6.4.5): `probe_rtt_cwnd_gain · BDP` (0.5 BDP), at least
    /// BBRMinPipeCwnd. v1 used BBRMinPipeCwnd alone.
    pub(super) fn probe_rtt_cwnd(&self) -> u64 {
        self.bdp_multiple(self.bw(), self.cfg.probe_rtt_cwnd_gain)
            .max(self.min_pipe_cwnd())
    }

    /// `SetCwnd` (§5.6.4.6): grow toward BBR.max_inflight = `Inflight(cwnd_gain) + extra_acked`
    /// (§5.6.4.2) by the bytes acked (before the pipe is full, only grow, and also past it while
    /// `C.delivered < InitialCwnd`: the configured initial window, as Linux's `tp->delivered <
    /// TCP_INIT_CWND`, even when a lost SYN started the connection from one segment), never below
    /// BBRMinPipeCwnd; then the ProbeRTT cap (§5.6.4.5) and the model's bounds (§5.6.4.7).
    pub(super) fn set_cwnd(&mut self, ev: &CongestionEvent<'_>, acked: u64) {
        let bdp = self.bdp_multiple(self.bw(), self.gains().1);
        let max_inflight = self.quantization_budget(bdp + self.ack_aggregation_cwnd());
        self.track_recovery(ev);
        if self.full_bw.filled_pipe {
            self.cwnd = (self.cwnd + acked).min(max_inflight);
        } else if self.cwnd < max_inflight || ev.delivered < self.initial_cwnd() {
            self.cwnd += acked;
        }
        self.cwnd = self.cwnd.max(self.min_pipe_cwnd());
        if matches!(self.mode, Mode::ProbeRtt(_)) {
            self.cwnd = self.cwnd.min(self.probe_rtt_cwnd());
        }
        self.bound_cwnd_for_model();
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{bbr_in, BDP};
    use super::*;

    #[test]
    fn bbr3_probe_rtt_cwnd_is_half_the_bdp() {
        let b = bbr_in(Mode::ProbeBw(Phase::Cruise));
        assert_eq!(b.probe_rtt_cwnd(), BDP / 2);
    }

    #[test]
    fn bbr3_probe_bw_up_budget_adds_two_packets() {
        let mut b = bbr_in(Mode::ProbeBw(Phase::Cruise));
        let cruise = b.inflight(b.bw(), 1.0);
        b.mode = Mode::ProbeBw(Phase::Up);
        assert_eq!(b.inflight(b.bw(), 1.0), cruise + 2 * b.mss);
        assert_eq!(cruise, BDP, "the BDP exceeds 3 send quanta and 4 packets");
    }
}
