//! BBR's control parameters (§4.2): pacing rate, send quantum and congestion window, including
//! the window's response to loss recovery and ProbeRTT.

use super::{Bbr, Mode};
use crate::cc::CongestionEvent;
use crate::time::Dur;

impl Bbr {
    /// `BBRInitPacingRate` (§4.2.1): `BBRHighGain · InitialCwnd / RTT`, from the window the
    /// connection started with (Linux `bbr_init_pacing_rate_from_rtt` reads its cwnd: one segment
    /// after a lost SYN).
    pub(super) fn init_pacing_rate(&mut self, rtt: Dur) {
        self.pacing_rate = self.cfg.high_gain * self.start_cwnd() as f64 / rtt.as_secs_f64().max(1e-9);
    }

    /// `BBRSetPacingRateWithGain` (§4.2.1): `gain · BtlBw`, never lowered before the pipe is full.
    pub(super) fn set_pacing_rate_with_gain(&mut self, gain: f64) {
        let rate = gain * self.model.btl_bw();
        if self.full_pipe.reached() || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `BBRSetSendQuantum` (§4.2.2): 1 packet below 1.2 Mbps, 2 below 24 Mbps, else 1 ms of
    /// pacing up to 64 KB.
    pub(super) fn set_send_quantum(&mut self) {
        self.send_quantum = if self.pacing_rate < 1.2e6 / 8.0 {
            self.mss
        } else if self.pacing_rate < 24e6 / 8.0 {
            2 * self.mss
        } else {
            ((self.pacing_rate * 1e-3) as u64).min(64 * 1024)
        };
    }

    /// `BBRInflight(gain)` (§4.2.3.2): `gain · BDP + 3 · send_quantum`; InitialCwnd while RTprop
    /// is unknown (Linux `bbr_bdp`: `TCP_INIT_CWND`, whatever the connection started from).
    pub(super) fn inflight(&self, gain: f64) -> u64 {
        self.model
            .bdp(gain)
            .map_or(self.initial_cwnd(), |bdp| bdp + 3 * self.send_quantum)
    }

    /// `BBRSaveCwnd` (§4.2.3.4): the last cwnd that recovery or ProbeRTT had not cut.
    pub(super) fn save_cwnd(&mut self) {
        let cut = self.recovery_start.is_some() || matches!(self.mode, Mode::ProbeRtt(_));
        self.prior_cwnd = if cut { self.prior_cwnd.max(self.cwnd) } else { self.cwnd };
    }

    /// `BBRRestoreCwnd` (§4.2.3.4).
    pub(super) fn restore_cwnd(&mut self) {
        self.cwnd = self.cwnd.max(self.prior_cwnd);
    }

    /// `BBRModulateCwndForRecovery` (§4.2.3.4, Linux `bbr_set_cwnd_to_recover_or_restore`).
    ///
    /// A recovery episode is the one of the BBR authors' QUIC implementation (quiche/Chromium
    /// `BbrSender::UpdateRecoveryState`, as in quic-go and WebRTC): it starts on a loss outside one,
    /// with a round of packet conservation; each later loss extends it, without another such round;
    /// it ends, restoring the saved cwnd, on an ACK without loss of a packet sent after the last loss
    /// ("no losses for a round"). Draft-00 ends recovery when all losses are repaired, TCP's
    /// `snd_una` passing the highest sequence sent before it began, which QUIC has no counterpart of.
    /// RFC 9002 §7.3.2's periods (a new one for each loss of a packet sent after the last began)
    /// restarted the conservation round every round under random loss, so the window never grew:
    /// at 1 % loss a 10 Gbit/s, 100 ms path carried 117 Mbit/s, where BBR keeps about (1 − p) of
    /// the link up to 5 % loss (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM
    /// Queue 14(5), 2016, Figure 8).
    fn modulate_cwnd_for_recovery(&mut self, ev: &CongestionEvent<'_>, acked: u64, lost: u64) {
        if let Some(start) = self.recovery_start {
            if lost == 0 && ev.acked.last().is_some_and(|p| p.time_sent > start) {
                self.recovery_start = None;
                self.packet_conservation = false;
                self.restore_cwnd();
            } else if lost > 0 {
                // The episode now lasts until a packet sent from here on is acked without loss.
                self.recovery_start = Some(ev.now);
            }
        }
        let new_period = lost > 0 && self.recovery_start.is_none();
        if new_period {
            self.save_cwnd();
            self.recovery_start = Some(ev.now);
            // Packet conservation for one round: one packet out per packet delivered. The round
            // ends when a packet sent from now on is delivered.
            self.packet_conservation = true;
            self.model.rounds.restart(ev.delivered);
            self.cwnd = ev.bytes_in_flight + acked.max(self.mss);
        } else if lost > 0 {
            self.cwnd = self.cwnd.saturating_sub(lost).max(self.mss);
        }
        if self.packet_conservation {
            self.cwnd = self.cwnd.max(ev.bytes_in_flight + acked);
        }
    }

    /// cwnd allowance for ACK aggregation (Linux `bbr_ack_aggregation_cwnd`): once the pipe is
    /// full, `extra_acked_gain · extra_acked`, at most `BtlBw · extra_acked_max`; 0 when disabled.
    pub(super) fn ack_aggregation_cwnd(&self) -> u64 {
        if !self.cfg.ack_aggregation || !self.full_pipe.reached() {
            return 0;
        }
        let max = self.model.btl_bw() * self.cfg.extra_acked_max.as_secs_f64();
        (self.cfg.extra_acked_gain * self.aggregation.extra_acked() as f64).min(max) as u64
    }

    /// `BBRSetCwnd` (§4.2.3.6): grow toward `BBRInflight(cwnd_gain)` (plus the ACK-aggregation
    /// allowance, Linux `bbr_set_cwnd`) by the bytes acked, or snap down to it once the pipe is
    /// full; never below BBRMinPipeCwnd, except in ProbeRTT where BBRMinPipeCwnd is the cap
    /// (§4.2.3.5). Before the pipe is full it also grows while `C.delivered < InitialCwnd`: the
    /// configured initial window, as Linux's `tp->delivered < TCP_INIT_CWND`, even when a lost SYN
    /// started the connection from one segment.
    pub(super) fn set_cwnd(&mut self, ev: &CongestionEvent<'_>, acked: u64, lost: u64) {
        let target = self.inflight(self.gains().1) + self.ack_aggregation_cwnd();
        self.modulate_cwnd_for_recovery(ev, acked, lost);
        if !self.packet_conservation {
            if self.full_pipe.reached() {
                self.cwnd = (self.cwnd + acked).min(target);
            } else if self.cwnd < target || ev.delivered < self.initial_cwnd() {
                self.cwnd += acked;
            }
            self.cwnd = self.cwnd.max(self.min_pipe_cwnd());
        }
        if matches!(self.mode, Mode::ProbeRtt(_)) {
            self.cwnd = self.cwnd.min(self.min_pipe_cwnd());
        }
    }
}
