//! A receiver that obeys ACK_FREQUENCY and IMMEDIATE_ACK frames
//! (draft-ietf-quic-ack-frequency-14 §4–6); RFC 9000 §13.2 until the first frame arrives.

use serde::Deserialize;

use super::{AckPolicy, Arrival, DEFAULT_MAX_ACK_DELAY};
use crate::time::Dur;
use crate::wire::packet::AckFrequencyFrame;

/// max_ack_delay values of 2^14 ms or more are invalid (RFC 9000 §18.2, draft §4).
const MAX_ACK_DELAY_LIMIT: Dur = Dur::from_millis((1 << 14) - 1);

/// Parameters of the ACK-frequency receiver policy (its transport parameters).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AckFrequencyPolicyConfig {
    /// The max_ack_delay transport parameter, in force until a frame arrives (RFC 9000 §18.2
    /// default 25 ms).
    pub max_ack_delay: Dur,
    /// The min_ack_delay transport parameter (draft §3): the shortest delay this receiver can
    /// honour, its timer granularity (picoquic: 1 ms). Requests below it are raised to it.
    pub min_ack_delay: Dur,
}

impl Default for AckFrequencyPolicyConfig {
    fn default() -> Self {
        AckFrequencyPolicyConfig {
            max_ack_delay: DEFAULT_MAX_ACK_DELAY,
            min_ack_delay: Dur::from_millis(1),
        }
    }
}

/// The draft §6 receiver. Before any ACK_FREQUENCY frame it behaves as RFC 9000 (threshold 1,
/// reordering threshold 1, §4).
#[derive(Clone, Debug)]
pub struct AckFrequencyPolicy {
    min_ack_delay: Dur,
    max_ack_delay: Dur,
    /// Ack-Eliciting Threshold: ACK after more than this many ack-eliciting packets (§4).
    threshold: u64,
    /// Reordering Threshold (§4, §6.2).
    reordering: u64,
    /// Largest Sequence Number processed (§4).
    sequence: Option<u64>,
    /// Ack-eliciting packets received since the last ACK.
    pending: u64,
}

impl AckFrequencyPolicy {
    /// A receiver that has received no frame yet.
    pub fn new(cfg: &AckFrequencyPolicyConfig) -> Self {
        AckFrequencyPolicy {
            min_ack_delay: cfg.min_ack_delay,
            max_ack_delay: cfg.max_ack_delay,
            threshold: 1,
            reordering: 1,
            sequence: None,
            pending: 0,
        }
    }

    /// The Ack-Eliciting Threshold in force.
    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// The Reordering Threshold in force.
    pub fn reordering_threshold(&self) -> u64 {
        self.reordering
    }

    /// §6.2: whether reordering calls for an immediate ACK.
    fn reordering_ack(&self, a: &Arrival<'_>) -> bool {
        let t = self.reordering;
        match t {
            // §6.2: threshold 0 → never an immediate ACK for reordering.
            0 => false,
            // §4: 1 is RFC 9000 §13.2.1 (reordered packet, or new gap above the largest).
            1 => a.out_of_order || a.new_gap,
            // §6.2: Unreported Missing = missing packets above Largest Reported Missing
            // (Largest Acked − t); ACK when Largest Unacked − smallest of them ≥ t, or when the
            // packet is at or below Largest Acked − t (the sender may have declared it lost).
            _ => {
                let reported_missing = a.largest_acked.and_then(|la| la.checked_sub(t));
                let unreported = a.received.smallest_missing_above(reported_missing);
                unreported.is_some_and(|m| a.largest_unacked.saturating_sub(m) >= t)
                    || a.out_of_order && reported_missing.is_some_and(|lrm| a.pn <= lrm)
            }
        }
    }
}

impl AckPolicy for AckFrequencyPolicy {
    fn on_packet(&mut self, a: &Arrival<'_>) -> bool {
        self.pending += 1;
        // §6.3: with threshold > 1 only a non-CE → CE transition is urgent; with 0 or 1 every
        // CE-marked packet is (RFC 9000 §13.2.1).
        let ce = if self.threshold > 1 { a.ce && !a.prev_ce } else { a.ce };
        // §6: ACK once more than `threshold` ack-eliciting packets arrived since the last ACK.
        self.pending > self.threshold || ce || self.reordering_ack(a)
    }
    fn on_ack_sent(&mut self) {
        self.pending = 0;
    }
    fn max_ack_delay(&self) -> Dur {
        self.max_ack_delay
    }
    fn on_ack_frequency(&mut self, f: &AckFrequencyFrame) {
        // §4: ignore a frame unless its sequence number exceeds the largest processed.
        if self.sequence.is_some_and(|s| f.sequence <= s) {
            return;
        }
        self.sequence = Some(f.sequence);
        self.threshold = f.ack_eliciting_threshold;
        self.reordering = f.reordering_threshold;
        // §4: a request below our min_ack_delay or ≥ 2^14 ms is a PROTOCOL_VIOLATION; the model
        // clamps instead, as a timer cannot fire sooner than its granularity anyway.
        let requested = f.request_max_ack_delay_us.min(MAX_ACK_DELAY_LIMIT.as_micros());
        self.max_ack_delay = Dur::from_micros(requested)
            .max(self.min_ack_delay)
            .min(MAX_ACK_DELAY_LIMIT);
    }
    fn on_immediate_ack(&mut self) -> bool {
        // §5: SHOULD send an ACK immediately.
        true
    }
}
