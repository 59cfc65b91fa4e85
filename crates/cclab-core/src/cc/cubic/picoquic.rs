//! CUBIC as picoquic implements it (private-octopus/picoquic, `picoquic/cubic.c` and the loss
//! filter of `picoquic/cc_common.c`), the implementation seed 000's report measured. Windows in
//! bytes; picoquic keeps W_max in packets with C = 0.4 packets/s³, the same curve as C·MSS here.
//!
//! Where it departs from RFC 9438 ([`super::Cubic`]):
//! - a loss reduces the window only when the smoothed drop rate over recent packet numbers exceeds
//!   a threshold (`picoquic_hystart_loss_test`, "Cubic will only back off after repeated losses"),
//!   and only for a packet sent after the last reduction began (`recovery_sequence`);
//! - the reduction restarts the curve at t = 0: cwnd = W_cubic(0) = β·W_max, where fast convergence
//!   has already set W_max = β·cwnd, so a window still below the previous peak keeps β² of itself
//!   (`picoquic_cubic_enter_recovery`);
//! - the Reno estimate restarts at half the window and grows one MSS per W_reno acknowledged
//!   (`W_reno += acked·MTU/W_reno`), and cwnd = max(W_cubic(t), W_reno), without RFC 9438's
//!   t + RTT target or 1.5× clamp; growth continues through recovery (picoquic enters congestion
//!   avoidance at once);
//! - the epoch never starts before the last sender-limited instant.
//!
//! - the initial slow start also ends when the RTT rises (`picoquic_hystart_test`, the default
//!   `slow_start = "picoquic"`, [`crate::cc::delay_exit`]); the curve then starts on its plateau.
//!
//! Not modelled: the window correction of that exit for RTTs above 100 ms, the peak-bandwidth floor
//! in slow start (`cubic_update_bandwidth`), and the spurious-loss correction
//! (`picoquic_cubic_correct_spurious`: the model declares no spurious losses).

use super::window;
use crate::cc::slow_start::{SlowStart, SlowStartConfig};
use crate::cc::{initial_window, CcState, CongestionController, CongestionEvent};
use crate::time::Time;
use crate::units::Bytes;
use serde::Deserialize;

/// cc_common.h `PICOQUIC_SMOOTHED_LOSS_FACTOR`: weight of one packet number in the drop rate.
const LOSS_FACTOR: f64 = 1.0 / 16.0;
/// cc_common.h `PICOQUIC_SMOOTHED_LOSS_SCOPE`: most packet numbers one gap decays the rate by.
const LOSS_SCOPE: u64 = 32;

/// picoquic CUBIC parameters (defaults: cubic.c `picoquic_cubic_reset`, cc_common.h).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PicoquicCubicConfig {
    /// β (cubic.c: 7/8).
    pub beta: f64,
    /// C in segments/s³ (cubic.c: 0.4).
    pub c: f64,
    /// Fast convergence: W_max = β·cwnd when cwnd is below the previous peak (cubic.c: always on).
    pub fast_convergence: bool,
    /// Smoothed drop rate a loss must push past to reduce the window, 0–1
    /// (cc_common.h `PICOQUIC_SMOOTHED_LOSS_THRESHOLD`: 0.2; 0 = every loss counts).
    pub loss_threshold: f64,
    /// Slow start (picoquic: cwnd += acked bytes, ended early by an RTT rise).
    pub slow_start: SlowStartConfig,
    /// Initial window, bytes. `None` = RFC 9002 §7.2, as the other controllers.
    pub initial_window: Option<Bytes>,
}

impl Default for PicoquicCubicConfig {
    fn default() -> Self {
        PicoquicCubicConfig {
            beta: 7.0 / 8.0,
            c: 0.4,
            fast_convergence: true,
            loss_threshold: 0.2,
            slow_start: SlowStartConfig::Picoquic,
            initial_window: None,
        }
    }
}

/// picoquic's CUBIC controller state. Windows in bytes, times in seconds.
#[derive(Clone, Debug)]
pub struct PicoquicCubic {
    cfg: PicoquicCubicConfig,
    mss: f64,
    /// C scaled to bytes/s³.
    c: f64,
    cwnd: f64,
    ssthresh: u64,
    /// W_max of the current curve; `None` before the first reduction or slow-start exit.
    w_max: Option<f64>,
    /// W_last_max: the window at the previous reduction (unbounded at first, as picoquic's).
    w_last_max: f64,
    /// K in seconds.
    k: f64,
    /// start_of_epoch, seconds since the start of the run (may be negative: t = K at once).
    epoch_start: f64,
    w_reno: f64,
    /// When the last reduction began; packets sent up to then do not reduce again.
    recovery_start: Option<Time>,
    in_recovery: bool,
    /// last_sender_limited_time.
    sender_limited_at: Option<Time>,
    app_limited: bool,
    /// smoothed_drop_rate and last_lost_packet_number of the loss filter.
    drop_rate: f64,
    last_lost_pn: u64,
    slow_start: SlowStart,
}

impl PicoquicCubic {
    /// picoquic CUBIC for a sender whose full-sized packet counts `mss` bytes in flight.
    pub fn new(cfg: &PicoquicCubicConfig, mss: u64) -> PicoquicCubic {
        PicoquicCubic {
            mss: mss as f64,
            c: cfg.c * mss as f64,
            cwnd: initial_window(cfg.initial_window, mss) as f64,
            ssthresh: u64::MAX,
            w_max: None,
            w_last_max: f64::INFINITY,
            k: 0.0,
            epoch_start: 0.0,
            w_reno: 0.0,
            recovery_start: None,
            in_recovery: false,
            sender_limited_at: None,
            app_limited: false,
            drop_rate: 0.0,
            last_lost_pn: 0,
            slow_start: SlowStart::new(&cfg.slow_start, mss),
            cfg: cfg.clone(),
        }
    }

    /// PICOQUIC_CWIN_MINIMUM, taken as kMinimumWindow = 2·max_datagram_size (RFC 9002 §7.2).
    fn min_window(&self) -> f64 {
        2.0 * self.mss
    }

    fn in_slow_start(&self) -> bool {
        (self.cwnd as u64) < self.ssthresh
    }

    fn sent_in_recovery(&self, sent: Time) -> bool {
        self.recovery_start.is_some_and(|start| sent <= start)
    }

    /// `picoquic_hystart_loss_test` for a loss of packet `pn`: the drop rate decays by
    /// (1 − 1/16) per packet number since the last loss (at most 32), moves 1/16 of the way to 1,
    /// and the loss counts when it exceeds the threshold. Packet numbers not above the last one
    /// are ignored (as picoquic's, whose last number starts at 0).
    fn loss_counts(&mut self, pn: u64) -> bool {
        if pn <= self.last_lost_pn {
            return false;
        }
        let steps = (pn - self.last_lost_pn).min(LOSS_SCOPE);
        self.drop_rate *= (1.0 - LOSS_FACTOR).powi(steps as i32);
        self.drop_rate += (1.0 - self.drop_rate) * LOSS_FACTOR;
        self.last_lost_pn = pn;
        self.drop_rate > self.cfg.loss_threshold
    }

    /// `picoquic_cubic_enter_avoidance`: a new curve through W_max starting at `start` seconds.
    fn enter_avoidance(&mut self, w_max: f64, start: f64) {
        self.w_max = Some(w_max);
        // K = ∛(W_max (1 − β)/C): W_cubic(0) = β·W_max (RFC 9438 §4.2 Eq. 2 with cwnd_epoch = β·W_max).
        self.k = window::k(w_max, w_max * self.cfg.beta, self.c);
        self.epoch_start = start;
    }

    /// `picoquic_cubic_enter_recovery` on a counted loss or ECN-CE at `now`.
    fn enter_recovery(&mut self, now: Time) {
        self.recovery_start = Some(now);
        self.in_recovery = true;
        let cwnd = self.cwnd;
        // Fast convergence (cubic.c): a window below the last peak also lowers W_max by β.
        let w_max = if self.cfg.fast_convergence && cwnd < self.w_last_max {
            cwnd * self.cfg.beta
        } else {
            cwnd
        };
        self.w_last_max = cwnd;
        let ssthresh = w_max * self.cfg.beta;
        if ssthresh < self.min_window() {
            // "If things are that bad, fall back to slow start."
            self.ssthresh = u64::MAX;
            self.w_max = None;
            self.cwnd = self.min_window();
            return;
        }
        self.ssthresh = ssthresh as u64;
        self.enter_avoidance(w_max, now.as_secs_f64());
        // cwnd = max(W_cubic(0), W_reno) with W_reno = cwnd/2.
        self.w_reno = cwnd / 2.0;
        let w_cubic = window::w_cubic(0.0, self.k, w_max, self.c);
        self.cwnd = w_cubic.max(self.w_reno).max(self.min_window());
    }

    /// Slow start ended without a loss at `now`: picoquic's delay-based exit sets W_max = W_reno =
    /// cwnd and starts the epoch K earlier, on the curve's plateau; crossing an ssthresh set by a
    /// loss keeps that loss's curve and starts it now with W_reno = cwnd/2.
    fn leave_slow_start(&mut self, now: Time) {
        let now_s = now.as_secs_f64();
        match self.w_max {
            None => {
                self.w_last_max = self.cwnd;
                self.w_reno = self.cwnd;
                self.enter_avoidance(self.cwnd, now_s);
                self.epoch_start = now_s - self.k;
            }
            Some(w_max) => {
                self.w_reno = self.cwnd / 2.0;
                self.enter_avoidance(w_max, now_s);
            }
        }
    }

    /// Congestion avoidance for `acked` bytes (cubic.c, acknowledgement in congestion avoidance).
    fn congestion_avoidance(&mut self, now: Time, acked: f64) {
        if let Some(limited) = self.sender_limited_at {
            // "Protection against limited senders."
            self.epoch_start = self.epoch_start.max(limited.as_secs_f64());
        }
        let w_max = self.w_max.unwrap_or(self.cwnd);
        let w_cubic = window::w_cubic(now.as_secs_f64() - self.epoch_start, self.k, w_max, self.c);
        self.w_reno += acked * self.mss / self.w_reno;
        self.cwnd = w_cubic.max(self.w_reno);
    }
}

impl CongestionController for PicoquicCubic {
    fn on_packet_sent(&mut self, now: Time, _pn: u64, bytes: u64, _bytes_in_flight: u64) {
        self.slow_start.on_packet_sent(now, bytes);
    }

    fn on_congestion_event(&mut self, ev: &CongestionEvent<'_>) {
        self.app_limited = ev.app_limited;
        if ev.ecn_ce > 0 && ev.acked.last().is_some_and(|p| !self.sent_in_recovery(p.time_sent)) {
            self.enter_recovery(ev.now);
        }
        for p in ev.lost {
            // cubic.c: `lost_packet_number >= recovery_sequence && picoquic_hystart_loss_test(..)`:
            // the filter only sees packets sent after the last reduction began.
            if !self.sent_in_recovery(p.time_sent) && self.loss_counts(p.pn) {
                self.enter_recovery(ev.now);
            }
        }
        let acked: u64 = ev.acked.iter().map(|p| p.bytes).sum();
        if ev.acked.iter().any(|p| !self.sent_in_recovery(p.time_sent)) {
            self.in_recovery = false;
        }
        if acked == 0 {
            return;
        }
        if ev.app_limited {
            // No growth while sender-limited (`last_time_acked_data_frame_sent > last_sender_limited_time`).
            self.sender_limited_at = Some(ev.now);
            return;
        }
        if self.in_slow_start() {
            let before = self.cwnd.floor() as u64;
            let mut cwnd = before;
            self.slow_start.on_ack(ev, acked, &mut cwnd, &mut self.ssthresh);
            self.cwnd += (cwnd - before) as f64;
            if !self.in_slow_start() {
                self.leave_slow_start(ev.now);
            }
            return;
        }
        self.congestion_avoidance(ev.now, acked as f64);
    }

    fn on_persistent_congestion(&mut self, now: Time) {
        // cubic.c, timeout: always a reduction (the loss filter returns 1 for timeouts), unless the
        // congestion event that declared the losses just made one; then cwnd = PICOQUIC_CWIN_MINIMUM
        // and slow start up to the new ssthresh.
        if self.recovery_start != Some(now) {
            self.enter_recovery(now);
        }
        self.cwnd = self.min_window();
        self.recovery_start = None;
        self.in_recovery = false;
    }

    fn window(&self) -> u64 {
        self.cwnd as u64
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn pause_until(&self) -> Option<Time> {
        self.slow_start.pause_until().filter(|_| self.in_slow_start())
    }

    fn burst_allowance(&self) -> Option<u64> {
        self.slow_start.burst_allowance().filter(|_| self.in_slow_start())
    }

    fn gate_is_window(&self) -> bool {
        // Only the train estimator's pause and train join the window.
        !self.slow_start.trains()
    }

    fn reads_rate_samples(&self) -> bool {
        false
    }

    fn reads_sends(&self) -> bool {
        // Only the train estimator reads sends; HyStart's rounds take SND.NXT from the ACK.
        self.slow_start.reads_sends()
    }

    fn state(&self) -> CcState {
        CcState::of_window(self.in_recovery, self.app_limited, self.in_slow_start())
    }

    fn name(&self) -> &'static str {
        "cubic-picoquic"
    }
}

#[cfg(test)]
#[path = "picoquic_tests.rs"]
mod tests;
