//! Congestion signals BBRv3 gathers per round trip (§5.5.10.3, §5.5.10.3; Linux v3
//! `bbr_update_latest_delivery_signals`, `bbr_note_loss`, `bbr_update_ecn_alpha`): whether
//! the round saw loss or CE marks, the most data and the highest rate delivered in the latest
//! round (the floor of the short-term bounds), and a per-round EWMA of the CE-marked fraction.

use super::Bbr3;
use crate::cc::RateSample;

/// Per-round loss, ECN and delivery signals. Sizes in bytes, rates in bytes/s.
#[derive(Clone, Debug)]
pub(super) struct Signals {
    /// BBR.loss_round_delivered: `C.delivered` that ends the current loss round.
    loss_round_delivered: u64,
    /// BBR.loss_round_start: this ACK ended a loss round.
    pub(super) loss_round_start: bool,
    /// BBR.loss_in_round.
    pub(super) loss_in_round: bool,
    /// ECN marks were seen this round (only while ECN is eligible).
    pub(super) ecn_in_round: bool,
    /// Loss / ECN seen since the current ProbeBW cycle began (Linux v3 `loss_in_cycle`).
    pub(super) loss_in_cycle: bool,
    pub(super) ecn_in_cycle: bool,
    /// BBR.bw_latest: max delivery rate of the latest round.
    pub(super) bw_latest: f64,
    /// BBR.inflight_latest: max data delivered over one sample interval in the latest round.
    pub(super) inflight_latest: u64,
    /// ACKs with losses in this round (Startup's loss exit, §5.3.1.3).
    pub(super) loss_events_in_round: u32,
    /// The scenario allows ECN (`Bbr3Config::ecn`).
    ecn_enabled: bool,
    /// ECN is in use: allowed and BBR.min_rtt ≤ `ecn_max_rtt` once.
    pub(super) ecn_eligible: bool,
    /// EWMA of the CE fraction per round, 0..=1 (starts at 1: respond at once on a congested
    /// path, Linux v3 `bbr_ecn_alpha_init`).
    pub(super) ecn_alpha: f64,
    /// CE fraction of the last completed round.
    pub(super) ce_ratio: f64,
    /// Consecutive Startup rounds with `ce_ratio ≥ ecn_thresh`.
    pub(super) startup_ecn_rounds: u32,
    /// Bytes reported CE-marked so far (`C.delivered_ce`).
    delivered_ce: u64,
    alpha_last_delivered: u64,
    alpha_last_ce: u64,
}

impl Signals {
    /// No signals yet; `ecn_enabled` from the configuration.
    pub(super) fn new(ecn_enabled: bool) -> Signals {
        Signals {
            // Linux v3 `bbr_init`: the first loss round ends after the first flight is ACKed.
            loss_round_delivered: 1,
            loss_round_start: false,
            loss_in_round: false,
            ecn_in_round: false,
            loss_in_cycle: false,
            ecn_in_cycle: false,
            bw_latest: 0.0,
            inflight_latest: 0,
            loss_events_in_round: 0,
            ecn_enabled,
            ecn_eligible: false,
            ecn_alpha: 1.0,
            ce_ratio: 0.0,
            startup_ecn_rounds: 0,
            delivered_ce: 0,
            alpha_last_delivered: 0,
            alpha_last_ce: 0,
        }
    }

    /// One ACK: `lost` bytes newly declared lost, `ce` bytes newly reported CE-marked;
    /// `delivered` is `C.delivered` after it. The first loss of a round restarts the loss round
    /// (Linux v3 `bbr_note_loss`), so that the round measures the whole flight that saw loss.
    pub(super) fn on_ack(&mut self, delivered: u64, lost: u64, ce: u64) {
        if lost > 0 {
            if !self.loss_in_round {
                self.loss_round_delivered = delivered;
            }
            self.loss_in_round = true;
            self.loss_in_cycle = true;
            self.loss_events_in_round = self.loss_events_in_round.saturating_add(1);
        }
        self.delivered_ce += ce;
        if ce > 0 {
            self.ecn_in_cycle = true;
            self.ecn_in_round |= self.ecn_eligible;
        }
    }

    /// `BBRUpdateLatestDeliverySignals` (§5.5.10.3).
    pub(super) fn update_latest(&mut self, rs: Option<&RateSample>, delivered: u64) {
        self.loss_round_start = false;
        let Some(rs) = rs.filter(|rs| rs.delivery_rate > 0.0) else {
            return;
        };
        self.bw_latest = self.bw_latest.max(rs.delivery_rate);
        self.inflight_latest = self.inflight_latest.max(rs.delivered);
        if rs.prior_delivered >= self.loss_round_delivered {
            self.loss_round_delivered = delivered;
            self.loss_round_start = true;
        }
    }

    /// `BBRAdvanceLatestDeliverySignals` (§5.5.10.3): a new loss round starts from this sample.
    pub(super) fn advance_latest(&mut self, rs: Option<&RateSample>) {
        if let Some(rs) = rs.filter(|_| self.loss_round_start) {
            self.bw_latest = rs.delivery_rate;
            self.inflight_latest = rs.delivered;
        }
    }

    /// `BBRResetCongestionSignals` (§5.3.3.9): forget a probe's signals before adapting to new ones.
    pub(super) fn reset(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.loss_in_cycle = false;
        self.ecn_in_cycle = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
    }
}

impl Bbr3 {
    /// Once per round (Linux v3 `bbr_update_ecn_alpha`): the round's CE fraction, its EWMA
    /// `α ← (1 − g)·α + g·ce_ratio`, and Startup's ECN exit after `ecn_thresh` was reached in
    /// two consecutive rounds. `delivered` is `C.delivered`.
    pub(super) fn update_ecn_alpha(&mut self, delivered: u64) {
        let max_rtt = self.cfg.ecn_max_rtt;
        let s = &mut self.signals;
        if s.ecn_enabled && !s.ecn_eligible && self.min_rtt.get().is_some_and(|r| r <= max_rtt) {
            s.ecn_eligible = true;
        }
        let round = delivered - s.alpha_last_delivered;
        if !s.ecn_eligible || round == 0 {
            return;
        }
        s.ce_ratio = (s.delivered_ce - s.alpha_last_ce) as f64 / round as f64;
        let g = self.cfg.ecn_alpha_gain;
        s.ecn_alpha = ((1.0 - g) * s.ecn_alpha + g * s.ce_ratio).min(1.0);
        s.alpha_last_delivered = delivered;
        s.alpha_last_ce = s.delivered_ce;
        if self.full_bw.filled_pipe {
            return;
        }
        if s.ce_ratio >= self.cfg.ecn_thresh {
            s.startup_ecn_rounds += 1;
        } else {
            s.startup_ecn_rounds = 0;
        }
        // Linux v3 `bbr_full_ecn_cnt`: 2 rounds.
        if s.startup_ecn_rounds >= 2 {
            self.handle_queue_too_high_in_startup();
        }
    }
}
