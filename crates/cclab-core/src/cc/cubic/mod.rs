//! CUBIC, RFC 9438 (<https://www.rfc-editor.org/rfc/rfc9438>), in bytes, with QUIC recovery
//! semantics (RFC 9002 §7.3.2) and a pluggable slow start (HyStart++ by default, §4.10).
//!
//! Every time CUBIC reads comes from the event: the clock reading `ev.now` or the tick counter
//! `ev.ticks() · ev.tick`, chosen by [`TimeSource`]; the RTT comes from the estimator, smoothed or
//! quantised to ticks ([`RttSource`]). With ticks for both and the time-based Reno-friendly
//! estimate, this is FreeBSD's cc_cubic before commit a3aa6f6 (seed 001, digest §10).

pub mod picoquic;
mod window;

use super::slow_start::{SlowStart, SlowStartConfig};
use super::{initial_window, CcState, CongestionController, CongestionEvent};
use crate::cc::hystart::HyStartConfig;
use crate::time::Time;
use crate::units::Bytes;
use serde::Deserialize;
use window::EpochStart;

/// How CUBIC estimates the window of a Reno flow on the same path (RFC 9438 §4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RenoFriendly {
    /// `W_est += α·segments_acked/cwnd` per ACK, α → 1 once `W_est ≥ cwnd_prior` (RFC 9438 §4.3 Eq. 4).
    #[default]
    PerAck,
    /// `W_est(t) = W_max·β + 3(1−β)/(1+β)·t/RTT` (RFC 8312 §4.2 Eq. 4), driven by the clock.
    TimeBased,
    /// No Reno-friendly region.
    Off,
}

/// Where the elapsed time `t` since the epoch start comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeSource {
    /// The endpoint's clock reading (`ev.now`).
    #[default]
    Clock,
    /// The tick counter: `t = (ticks − epoch_ticks)·tick`, as FreeBSD's `ticks − t_epoch`.
    Ticks,
}

/// The RTT CUBIC uses in `target` and the time-based W_est.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RttSource {
    /// The smoothed RTT (RFC 9438 §4.1.2).
    #[default]
    Smoothed,
    /// The smoothed RTT in whole ticks, at least one (FreeBSD cc_cubic before a3aa6f6).
    Ticks,
}

/// CUBIC parameters.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CubicConfig {
    /// Multiplicative decrease factor β_cubic (RFC 9438 §4.6: 0.7).
    pub beta: f64,
    /// C in segments/s³ (RFC 9438 §5.1: 0.4).
    pub c: f64,
    /// Fast convergence (RFC 9438 §4.7: SHOULD; default on).
    pub fast_convergence: bool,
    /// Reno-friendly estimate: "per-ack" (default), "time-based" or "off".
    pub reno_friendly: RenoFriendly,
    /// Source of `t`: "clock" (default) or "ticks".
    pub time_source: TimeSource,
    /// Source of the RTT: "smoothed" (default) or "ticks".
    pub rtt_source: RttSource,
    /// Slow start (RFC 9438 §4.10: SHOULD be HyStart++; default "hystart++").
    pub slow_start: SlowStartConfig,
    /// Linux's growth before the first congestion event (`tcp_cubic.c` `bictcp_update`: while
    /// `last_max_cwnd` is 0, `cnt` is at most 20, "increase cwnd 5% per RTT"): after a slow start
    /// left without loss, and after a timeout, cwnd grows by at least 1/20 of the bytes acknowledged.
    /// RFC 9438 has no such floor (W_max = cwnd, K = 0: the cubic curve starts flat). Default false.
    pub linux_initial_growth: bool,
    /// Initial window, bytes. `None` = RFC 9002 §7.2: `min(10·mss, max(14720, 2·mss))`.
    pub initial_window: Option<Bytes>,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            beta: 0.7,
            c: 0.4,
            fast_convergence: true,
            reno_friendly: RenoFriendly::PerAck,
            time_source: TimeSource::Clock,
            rtt_source: RttSource::Smoothed,
            slow_start: SlowStartConfig::HyStartPlusPlus(HyStartConfig::default()),
            linux_initial_growth: false,
            initial_window: None,
        }
    }
}

/// `cnt` cap of [`CubicConfig::linux_initial_growth`]: one segment per 20 acknowledged.
const LINUX_INITIAL_CNT: f64 = 20.0;

/// A congestion-avoidance epoch: its start and K.
#[derive(Clone, Copy, Debug)]
struct Epoch {
    start: EpochStart,
    /// K in seconds.
    k: f64,
}

/// CUBIC controller state. Windows in bytes (f64 so per-ACK fractions accumulate).
///
/// What an ACK or a send reads comes first (`repr(C)` keeps the order) and the struct starts on a
/// cache line: with thousands of flows every event finds the controller cold, and the state then
/// spans 5 lines, not 7; a send touches only the first (with HyStart++; 3 before the slow-start
/// state moved into it), an ACK in congestion avoidance lines 0, 3 and 4. Of the config only what the window arithmetic reads is kept, inline; the
/// slow-start config lives on as `slow_start`'s state.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Cubic {
    /// `cwnd` in whole bytes, what `window` answers: written once at the end of each input that may
    /// change `cwnd` (`sync_window`), where the sender asks several times an ACK (at 1,000 flows ~7:
    /// every send attempt, the ACK's statistics) and each `f64` conversion with Rust's saturation cost
    /// ~15 instructions.
    window: u64,
    ssthresh: u64,
    cwnd: f64,
    w_est: f64,
    mss: f64,
    /// C scaled to bytes/s³.
    c: f64,
    /// Here, not last: a send reads the window, `ssthresh`, which slow start this is and writes
    /// HyStart++'s next packet number, all in the first line (the layout test in `tests.rs`).
    slow_start: SlowStart,
    /// β_cubic (`CubicConfig::beta`). α_cubic is worked out from it where the Reno-friendly estimate
    /// reads it (a division an ACK of congestion avoidance, until W_est reaches cwnd_prior), not kept:
    /// its field made room for `window` in the five lines.
    beta: f64,
    /// W_max; `None` while undefined (before any congestion event, after persistent congestion).
    w_max: Option<f64>,
    /// cwnd_prior, set on each congestion event.
    cwnd_prior: Option<f64>,
    epoch: Option<Epoch>,
    /// congestion_recovery_start_time (RFC 9002 §7.3.2).
    recovery_start: Option<Time>,
    /// When the current app-limited period began, to be cut out of `t`.
    app_limited_since: Option<EpochStart>,
    in_recovery: bool,
    app_limited: bool,
    fast_convergence: bool,
    /// [`CubicConfig::linux_initial_growth`].
    linux_initial_growth: bool,
    /// A congestion event happened since the start or the last persistent congestion (Linux:
    /// `last_max_cwnd != 0`).
    congestion_seen: bool,
    reno_friendly: RenoFriendly,
    time_source: TimeSource,
    rtt_source: RttSource,
}

impl Cubic {
    /// CUBIC for a sender whose full-sized packet counts `mss` bytes in flight.
    pub fn new(cfg: &CubicConfig, _now: Time, mss: u64) -> Cubic {
        let cwnd = initial_window(cfg.initial_window, mss);
        Cubic {
            window: cwnd,
            mss: mss as f64,
            c: cfg.c * mss as f64,
            beta: cfg.beta,
            cwnd: cwnd as f64,
            ssthresh: u64::MAX,
            w_max: None,
            cwnd_prior: None,
            w_est: 0.0,
            epoch: None,
            recovery_start: None,
            in_recovery: false,
            app_limited: false,
            app_limited_since: None,
            fast_convergence: cfg.fast_convergence,
            linux_initial_growth: cfg.linux_initial_growth,
            congestion_seen: false,
            reno_friendly: cfg.reno_friendly,
            time_source: cfg.time_source,
            rtt_source: cfg.rtt_source,
            slow_start: SlowStart::new(&cfg.slow_start, mss),
        }
    }

    /// kMinimumWindow = 2·max_datagram_size (RFC 9002 §7.2).
    fn min_window(&self) -> f64 {
        2.0 * self.mss
    }

    /// Brings `window` up to date with `cwnd`: at the end of every input that may change it, and after
    /// the loss's reduction, which the same input's slow-start test reads.
    fn sync_window(&mut self) {
        self.window = self.cwnd as u64;
    }

    /// Reads `window`, which every change of `cwnd` ahead of this test brings up to date.
    fn in_slow_start(&self) -> bool {
        self.window < self.ssthresh
    }

    /// A packet sent at `sent` belongs to the current recovery period (RFC 9002 §B.5
    /// `InCongestionRecovery`).
    fn sent_in_recovery(&self, sent: Time) -> bool {
        self.recovery_start.is_some_and(|start| sent <= start)
    }

    /// A loss or ECN-CE of a packet sent at `sent`: one reduction per recovery period.
    fn on_congestion(&mut self, now: Time, sent: Time) {
        // RFC 9002 §7.3.2: packets sent before the recovery period began do not reduce again.
        if self.sent_in_recovery(sent) {
            return;
        }
        self.recovery_start = Some(now);
        self.in_recovery = true;
        self.congestion_seen = true;
        let cwnd = self.cwnd;
        // RFC 9438 §4.7 fast convergence: W_max = cwnd·(1+β)/2 when the last peak was not reached.
        self.w_max = Some(match self.w_max {
            Some(w) if self.fast_convergence && cwnd < w => cwnd * (1.0 + self.beta) / 2.0,
            _ => cwnd,
        });
        self.cwnd_prior = Some(cwnd);
        // RFC 9438 §4.6: ssthresh = cwnd·β (cwnd, not flight size: allowed for QUIC, with §7.8's
        // no growth while app-limited); cwnd = max(ssthresh, kMinimumWindow), in whole bytes.
        let reduced = (cwnd * self.beta).max(self.min_window()).round();
        self.ssthresh = reduced as u64;
        self.cwnd = reduced;
        // Here too: the same input then asks `in_slow_start`.
        self.sync_window();
        self.epoch = None;
        self.app_limited_since = None;
    }

    /// Starts a congestion-avoidance epoch at this ACK.
    fn start_epoch(&mut self, ev: &CongestionEvent<'_>) -> Epoch {
        let cwnd = self.cwnd;
        let k = match self.w_max {
            Some(w_max) => window::k(w_max, cwnd, self.c),
            // RFC 9438 §4.10 (HyStart++ left slow start without loss) and §4.8 (first CA after
            // persistent congestion): K = 0, W_max = cwnd; §4.10 also sets cwnd_prior = cwnd.
            None => {
                self.w_max = Some(cwnd);
                self.cwnd_prior.get_or_insert(cwnd);
                0.0
            }
        };
        // RFC 9438 §4.3: W_est = cwnd_epoch at the start of congestion avoidance.
        self.w_est = cwnd;
        let epoch = Epoch {
            start: EpochStart::at(ev),
            k,
        };
        self.epoch = Some(epoch);
        epoch
    }

    /// Congestion avoidance for `acked` bytes that may grow the window (RFC 9438 §4.2–4.5).
    fn congestion_avoidance(&mut self, ev: &CongestionEvent<'_>, acked: f64) {
        let mut epoch = match self.epoch {
            Some(e) => e,
            None => self.start_epoch(ev),
        };
        if let Some(since) = self.app_limited_since.take() {
            epoch.start.skip(since, ev);
            self.epoch = Some(epoch);
        }
        let before = self.cwnd;
        let t = epoch.start.elapsed(self.time_source, ev);
        let rtt = window::rtt_secs(self.rtt_source, ev);
        let w_max = self.w_max.unwrap_or(self.cwnd);
        let w_cubic = window::w_cubic(t, epoch.k, w_max, self.c);
        let w_est = match self.reno_friendly {
            RenoFriendly::PerAck => {
                // RFC 9438 §4.3 Eq. 4 in bytes: W_est += α·acked·MSS/cwnd; α = 1 once W_est ≥ cwnd_prior.
                let reached = self.cwnd_prior.is_some_and(|p| self.w_est >= p);
                let alpha = if reached { 1.0 } else { window::alpha(self.beta) };
                self.w_est += alpha * acked * self.mss / self.cwnd;
                Some(self.w_est)
            }
            RenoFriendly::TimeBased => {
                self.w_est = window::w_est_time_based(w_max, self.beta, window::alpha(self.beta), t, rtt, self.mss);
                Some(self.w_est)
            }
            RenoFriendly::Off => None,
        };
        match w_est {
            // Reno-friendly region (§4.3): cwnd = W_est (never below the current window).
            Some(est) if w_cubic < est => self.cwnd = self.cwnd.max(est),
            // Concave (§4.4) or convex (§4.5) region: cwnd += (target − cwnd)/cwnd per segment.
            _ => {
                let target = window::target(window::w_cubic(t + rtt, epoch.k, w_max, self.c), self.cwnd);
                self.cwnd += (target - self.cwnd) / self.cwnd * acked;
            }
        }
        if self.linux_initial_growth && !self.congestion_seen {
            // tcp_cubic.c: `if (ca->last_max_cwnd == 0 && ca->cnt > 20) ca->cnt = 20;`
            self.cwnd = self.cwnd.max(before + acked / LINUX_INITIAL_CNT);
        }
    }

    /// An ACK frame's or loss timeout's congestion event (`on_congestion_event`), before `window` is
    /// brought up to date.
    #[inline(always)]
    fn update(&mut self, ev: &CongestionEvent<'_>) {
        self.app_limited = ev.app_limited;
        // RFC 9002 App. B order: ECN, then losses, then the acknowledged packets.
        if ev.ecn_ce > 0 {
            if let Some(p) = ev.acked.last() {
                self.on_congestion(ev.now, p.time_sent);
            }
        }
        if let Some(sent) = ev.largest_lost_sent() {
            self.on_congestion(ev.now, sent);
        }
        // RFC 9002 §7.3.2: packets sent before the recovery start do not grow the window; the
        // first one sent after it ends recovery.
        let growth: u64 = ev
            .acked
            .iter()
            .filter(|p| !self.sent_in_recovery(p.time_sent))
            .map(|p| p.bytes)
            .sum();
        if growth > 0 {
            self.in_recovery = false;
        }
        if self.in_recovery {
            return;
        }
        if self.in_slow_start() {
            // RFC 9002 §7.8: no growth while app-limited, nor on an ACK the sender does not grow
            // on (a TCP duplicate ACK, RFC 5681 §3.2); the slow start still sees the ACK, as
            // Linux's HyStart does (`bictcp_acked` runs on every ACK).
            let acked = if ev.app_limited || !ev.may_raise_window {
                0
            } else {
                growth
            };
            // `cwnd`'s whole bytes (it is positive): `window`, up to date here.
            let before = self.window;
            let mut cwnd = before;
            self.slow_start.on_ack(ev, acked, &mut cwnd, &mut self.ssthresh);
            self.cwnd += (cwnd - before) as f64;
            return;
        }
        if growth == 0 || !ev.may_raise_window {
            return;
        }
        if ev.app_limited {
            // RFC 9438 §5.8: no growth, and the period is cut out of t once growth resumes.
            if self.epoch.is_some() {
                self.app_limited_since.get_or_insert(EpochStart::at(ev));
            }
            return;
        }
        self.congestion_avoidance(ev, growth as f64);
    }
}

impl CongestionController for Cubic {
    fn on_packet_sent(&mut self, now: Time, _pn: u64, bytes: u64, _bytes_in_flight: u64) {
        self.slow_start.on_packet_sent(now, bytes);
    }

    fn on_congestion_event(&mut self, ev: &CongestionEvent<'_>) {
        self.update(ev);
        self.sync_window();
    }

    fn on_persistent_congestion(&mut self, _now: Time) {
        // RFC 9002 §7.6.2: cwnd = kMinimumWindow, recovery start reset (ssthresh was set by the
        // congestion event that declared the losses). RFC 9438 §4.8: the next CA has K = 0 and
        // W_max = cwnd at its start.
        self.cwnd = self.min_window();
        self.sync_window();
        self.recovery_start = None;
        self.in_recovery = false;
        // Linux resets `last_max_cwnd` on a timeout (`cubictcp_state` → `bictcp_reset`).
        self.congestion_seen = false;
        self.w_max = None;
        self.epoch = None;
        self.app_limited_since = None;
    }

    fn window(&self) -> u64 {
        self.window
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
        "cubic"
    }
}

#[cfg(test)]
mod tests;
