//! ACK ratio 1:a for the first K ack-eliciting packets, then 1:b: Chromium's ACK decimation
//! (`kDefaultRetransmittablePacketsBeforeAck = 2`, `kMinReceivedBeforeAckDecimation = 100`,
//! `kMaxRetransmittablePacketsBeforeAck = 10`), the model of draft-fairhurst-quic-ack-scaling
//! (quicwg/base-drafts #3529: 1:2 for the first 100 packets, then 1:10).

use core::num::NonZeroU64;

use serde::Deserialize;

use super::{rfc9000_immediate, AckPolicy, Arrival, DEFAULT_MAX_ACK_DELAY};
use crate::time::Dur;

/// Parameters of the two-phase ratio policy.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RatioAfterConfig {
    /// Ack-eliciting packets per ACK during the first phase (Chromium: 2).
    pub first_ratio: NonZeroU64,
    /// Ack-eliciting packets received in the first phase (Chromium: 100).
    pub packets: u64,
    /// Ack-eliciting packets per ACK afterwards (Chromium, draft-fairhurst: 10).
    pub then_ratio: NonZeroU64,
    /// Longest delay before acknowledging (RFC 9000 §18.2 default 25 ms).
    pub max_ack_delay: Dur,
}

impl Default for RatioAfterConfig {
    fn default() -> Self {
        RatioAfterConfig {
            first_ratio: NonZeroU64::new(2).expect("2 is not 0"),
            packets: 100,
            then_ratio: NonZeroU64::new(10).expect("10 is not 0"),
            max_ack_delay: DEFAULT_MAX_ACK_DELAY,
        }
    }
}

/// ACK every `first_ratio`-th ack-eliciting packet among the first `packets`, then every
/// `then_ratio`-th; reordering, new gaps and CE marks get an immediate ACK (RFC 9000 §13.2.1).
#[derive(Clone, Debug)]
pub struct RatioAfter {
    cfg: RatioAfterConfig,
    /// Ack-eliciting packets received so far.
    received: u64,
    pending: u64,
}

impl RatioAfter {
    /// A policy that has received nothing.
    pub fn new(cfg: &RatioAfterConfig) -> Self {
        RatioAfter {
            cfg: cfg.clone(),
            received: 0,
            pending: 0,
        }
    }
}

impl AckPolicy for RatioAfter {
    fn on_packet(&mut self, a: &Arrival<'_>) -> bool {
        self.received += 1;
        self.pending += 1;
        let ratio = if self.received <= self.cfg.packets {
            self.cfg.first_ratio
        } else {
            self.cfg.then_ratio
        };
        self.pending >= ratio.get() || rfc9000_immediate(a)
    }
    fn on_ack_sent(&mut self) {
        self.pending = 0;
    }
    fn max_ack_delay(&self) -> Dur {
        self.cfg.max_ack_delay
    }
}
