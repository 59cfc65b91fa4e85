//! Scalable congestion controls (RFC 9330 §2): DCTCP (RFC 8257) and Prague
//! (draft-briscoe-iccrg-prague-congestion-control). Both reduce the window in proportion to the
//! fraction of CE-marked packets, `alpha` (`alpha.rs`), at most once per round trip, and react to
//! loss as Reno does; they differ in the additive increase, in what they do in the round after a
//! CE cut (`Response`) and in the ECN codepoint.
//! `ScalableWindow` holds the shared window logic; `dctcp.rs` and `prague.rs` configure it.

mod alpha;
mod dctcp;
mod prague;

pub use alpha::CeAlpha;
pub use dctcp::{Dctcp, DctcpConfig};
pub use prague::{Prague, PragueConfig};

use super::{CcState, CongestionEvent};
use crate::time::{Dur, Time};

/// Where DCTCP and Prague differ in their window response (Prague as its draft and its
/// reference, Linux `tcp_prague`, do it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Response {
    /// RFC 8257 on Linux's CWR state: no growth in the round after a CE cut, which also clears
    /// the fractional carry (`tcp_init_cwnd_reduction` clears `snd_cwnd_cnt`); every newly acked
    /// byte counts towards growth; alpha is updated from the first round on.
    Dctcp,
    /// Growth goes on through the round after a CE cut and its carry survives the cut; only
    /// unmarked acked bytes count towards growth; alpha keeps its initial value until the first
    /// CE mark, which therefore cuts by that value; a loss in the round of a CE cut completes
    /// the loss response (see `ScalableWindow::on_event` and `reduce` for the sources).
    Prague,
}

/// The window of a scalable controller: slow start, additive increase, proportional CE response.
#[derive(Clone, Debug)]
pub(crate) struct ScalableWindow {
    mss: u64,
    min_window: u64,
    cwnd: u64,
    ssthresh: u64,
    alpha: CeAlpha,
    /// Clock reading when the current reduction period began; packets sent up to then get no
    /// second reduction (RFC 8257 §3.4 "at most once per window"; RFC 9002 §7.3.2) and, unless
    /// marks started it and `response` is `Prague`, no growth.
    reduced_at: Option<Time>,
    in_reduction: bool,
    /// The current reduction period was started by a loss (not by CE marks).
    loss_reduction: bool,
    response: Response,
    /// When marks last cut the window.
    ce_cut_at: Option<Time>,
    /// The factor of the last CE cut, `1 − alpha/2` (for a loss in its round, `reduce`).
    ce_factor: f64,
    /// Alpha's observation windows (round trips) ended outside slow start.
    rounds: u64,
    /// Bytes acked in congestion avoidance not yet turned into growth, scaled by the increase.
    ca_acked: f64,
    app_limited: bool,
}

impl ScalableWindow {
    /// A window of `initial_window` bytes for packets of `mss` bytes, alpha starting at `alpha0`
    /// with gain `gain`, responding as `response` says.
    pub(crate) fn new(
        mss: u64,
        initial_window: u64,
        min_window: u64,
        alpha0: f64,
        gain: f64,
        response: Response,
    ) -> ScalableWindow {
        let alpha = CeAlpha::new(alpha0, gain);
        ScalableWindow {
            mss,
            min_window,
            cwnd: initial_window,
            ssthresh: u64::MAX,
            alpha: match response {
                Response::Dctcp => alpha,
                Response::Prague => alpha.held_until_marked(),
            },
            reduced_at: None,
            in_reduction: false,
            loss_reduction: false,
            response,
            ce_cut_at: None,
            ce_factor: 1.0,
            rounds: 0,
            ca_acked: 0.0,
            app_limited: false,
        }
    }

    /// Current alpha.
    pub(crate) fn alpha(&self) -> f64 {
        self.alpha.alpha()
    }

    fn sent_in_reduction(&self, sent: Time) -> bool {
        self.reduced_at.is_some_and(|r| sent <= r)
    }

    /// Round trips (alpha's observation windows) ended outside slow start.
    pub(crate) fn rounds(&self) -> u64 {
        self.rounds
    }

    /// One ACK frame or loss event. `increase` is the additive increase in packets per round trip
    /// in congestion avoidance (1 for Reno and DCTCP). `virtual_rtt` is the least time between two
    /// CE cuts and between two updates of alpha (zero: once per round trip, RFC 8257 §3.3–3.4;
    /// Prague's `rtt_virt` once it is RTT-independent, draft-01 §2.4.4: Linux
    /// `prague_enter_cwr` skips a cut within `prague_rtt_target` of the last, and
    /// `prague_should_update_ewma` waits as long, so a short-RTT flow responds to marks as one
    /// with the virtual RTT would; a loss is answered at once either way).
    pub(crate) fn on_event(&mut self, ev: &CongestionEvent<'_>, increase: f64, virtual_rtt: Dur) {
        self.app_limited = ev.app_limited;
        // Prague's first CE cut uses alpha's initial value: draft-01 §2.3.2 sets alpha to 1 "at
        // the first sign of ECN feedback, which ensures the maximum congestion response to the
        // first appearance of congestion" (Linux `tcp_prague` enters CWR, `prague_enter_cwr`,
        // before `prague_cong_control` folds the ACK into alpha). Cut after the update, a first
        // mark on the ACK that ends a round cut by `1 − ((1 − g) + g·M)/2`, not a half.
        let first_mark_alpha = self.alpha.before_first_mark().then(|| self.alpha.alpha());
        if let Some(last) = ev.acked.last() {
            let ended = self.alpha.on_ack(
                ev.now,
                virtual_rtt,
                ev.acked.len() as u64,
                ev.ecn_ce,
                last.pn,
                ev.next_pn,
            );
            // Linux `prague_new_round` counts rounds outside slow start only.
            if ended && self.cwnd >= self.ssthresh {
                self.rounds += 1;
            }
        }
        // Prague grows only on unmarked bytes: the draft's per-ACK increase is over
        // `acked − newly marked` (draft-01 §2.4.3, Linux `prague_update_cwnd`: `acked_sacked −
        // ece_delta`, slow start included), so a fully marked round adds nothing and the window
        // settles where `(1 − p)/p` increase meets the cut. ECN counts do not say which packets
        // were marked; the first `ecn_ce` packets that would grow are taken as the marked ones.
        let mut marked = match self.response {
            Response::Dctcp => 0,
            Response::Prague => ev.ecn_ce,
        };
        for p in ev.acked {
            if !self.sent_in_reduction(p.time_sent) {
                self.in_reduction = false;
            } else if self.loss_reduction || self.response == Response::Dctcp {
                // Linux `tcp_prague` keeps growing in CWR ("cwnd is updated for every ACK,
                // regardless of the congestion status") but not in loss recovery (`in_loss`).
                continue;
            }
            if ev.app_limited {
                continue;
            }
            if marked > 0 {
                marked -= 1;
                continue;
            }
            if self.cwnd < self.ssthresh {
                // Slow start, RFC 9002 §7.3.1 / RFC 5681 §3.1.
                self.cwnd = self.cwnd.saturating_add(p.bytes);
            } else {
                // Congestion avoidance: `increase` MSS per cwnd of acknowledged bytes
                // (RFC 9002 §7.3.3 with Prague's scaled increase).
                self.ca_acked += increase * p.bytes as f64;
                let steps = (self.ca_acked / self.cwnd as f64).floor();
                if steps >= 1.0 {
                    self.ca_acked -= steps * self.cwnd as f64;
                    self.cwnd = self.cwnd.saturating_add((steps as u64).saturating_mul(self.mss));
                }
            }
        }
        if let Some(sent) = ev.largest_lost_sent() {
            // RFC 8257 §3.5: loss is answered as by standard TCP, halving the window.
            self.reduce(ev.now, sent, 0.5, true);
        }
        let cut_due = self.ce_cut_at.is_none_or(|t| ev.now.saturating_since(t) >= virtual_rtt);
        if ev.ecn_ce > 0 && cut_due {
            if let Some(p) = ev.acked.last() {
                // RFC 8257 §3.4, draft-01 §2.4.2: cwnd = cwnd · (1 − alpha/2).
                let alpha = match self.response {
                    Response::Dctcp => self.alpha.alpha(),
                    Response::Prague => first_mark_alpha.unwrap_or(self.alpha.alpha()),
                };
                self.reduce(ev.now, p.time_sent, 1.0 - alpha / 2.0, false);
            }
        }
    }

    /// One reduction per window of data, by `factor`, for the congestion signal (a loss when
    /// `loss`, else CE marks) carried by a packet sent at `sent`.
    fn reduce(&mut self, now: Time, sent: Time, factor: f64, loss: bool) {
        let factor = if !self.sent_in_reduction(sent) {
            factor
        } else if loss && !self.loss_reduction && self.response == Response::Prague {
            // A loss in the round of a CE cut. Prague MUST answer a loss as Reno does
            // (draft-01 §2.4.1); it MAY cut less there, "as long as the reductions, due to ECN
            // and the loss, when multiplied together result in the reduction that the
            // implementation usually makes in response to loss": `factor / ce_factor`, §3.2.1's
            // `1/(2 − alpha)` for a halving. Ignored as a second signal of one round, the loss
            // would leave the round's cut at `1 − alpha/2`, ~1 % at a steady-state alpha.
            // (Linux `tcp_prague` halves again, `prague_enter_loss`: down to a quarter in one
            // round when alpha is 1, §3.2.1.) DCTCP keeps one reduction per round (RFC 9002
            // §7.3.2).
            factor / self.ce_factor
        } else {
            return;
        };
        self.reduced_at = Some(now);
        self.in_reduction = true;
        self.loss_reduction = loss;
        if !loss {
            self.ce_cut_at = Some(now);
            self.ce_factor = factor;
        }
        self.cwnd = ((self.cwnd as f64 * factor) as u64).max(self.min_window);
        self.ssthresh = self.cwnd;
        // The carry is a fraction of an MSS (`ca_acked / cwnd`): Prague keeps that fraction through
        // the cut (Linux `tcp_prague` keeps one fractional window, `frac_cwnd`, and cuts it, by
        // `alpha/2` in `prague_enter_cwr`, by half in `prague_enter_loss`); reset by every cut, a
        // carry that takes several rounds to reach one MSS ((srtt/rtt_virt)² per round) would
        // never turn into growth.
        self.ca_acked = match self.response {
            Response::Dctcp => 0.0,
            Response::Prague => self.ca_acked * factor,
        };
    }

    /// RFC 9002 §7.6.2: persistent congestion collapses the window.
    pub(crate) fn on_persistent_congestion(&mut self) {
        self.cwnd = self.min_window;
        self.reduced_at = None;
        self.in_reduction = false;
        self.ca_acked = 0.0;
    }

    pub(crate) fn window(&self) -> u64 {
        self.cwnd
    }

    pub(crate) fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    pub(crate) fn state(&self) -> CcState {
        CcState::of_window(self.in_reduction, self.app_limited, self.cwnd < self.ssthresh)
    }
}
