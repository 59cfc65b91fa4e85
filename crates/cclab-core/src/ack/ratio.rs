//! A fixed ACK ratio 1:N: one ACK per N ack-eliciting packets, within a max delay
//! (draft-fairhurst-quic-ack-scaling proposes 1:10 for asymmetric paths; RFC 9000 is 1:2).

use core::num::NonZeroU64;

use serde::Deserialize;

use super::{rfc9000_immediate, AckPolicy, Arrival, DEFAULT_MAX_ACK_DELAY};
use crate::time::Dur;

/// Parameters of the fixed-ratio policy.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RatioConfig {
    /// Ack-eliciting packets per ACK (draft-fairhurst-quic-ack-scaling: 10).
    pub ratio: NonZeroU64,
    /// Longest delay before acknowledging (RFC 9000 §18.2 default 25 ms).
    pub max_ack_delay: Dur,
}

impl Default for RatioConfig {
    fn default() -> Self {
        RatioConfig {
            ratio: NonZeroU64::new(10).expect("10 is not 0"),
            max_ack_delay: DEFAULT_MAX_ACK_DELAY,
        }
    }
}

/// ACK every `ratio`-th ack-eliciting packet; reordering, new gaps and CE marks still get an
/// immediate ACK as in RFC 9000 §13.2.1.
#[derive(Clone, Debug)]
pub struct Ratio {
    ratio: u64,
    max_ack_delay: Dur,
    pending: u64,
}

impl Ratio {
    /// A policy with nothing pending.
    pub fn new(cfg: &RatioConfig) -> Self {
        Ratio {
            ratio: cfg.ratio.get(),
            max_ack_delay: cfg.max_ack_delay,
            pending: 0,
        }
    }
}

impl AckPolicy for Ratio {
    fn on_packet(&mut self, a: &Arrival<'_>) -> bool {
        self.pending += 1;
        self.pending >= self.ratio || rfc9000_immediate(a)
    }
    fn on_ack_sent(&mut self) {
        self.pending = 0;
    }
    fn max_ack_delay(&self) -> Dur {
        self.max_ack_delay
    }
}
