//! The RFC 9000 default ACK policy (§13.2.1–13.2.2,
//! <https://www.rfc-editor.org/rfc/rfc9000#section-13.2>).

use serde::Deserialize;

use super::{rfc9000_immediate, AckPolicy, Arrival, DEFAULT_MAX_ACK_DELAY};
use crate::time::Dur;

/// Parameters of the RFC 9000 policy.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rfc9000Config {
    /// The max_ack_delay transport parameter (§18.2 default 25 ms).
    pub max_ack_delay: Dur,
}

impl Default for Rfc9000Config {
    fn default() -> Self {
        Rfc9000Config {
            max_ack_delay: DEFAULT_MAX_ACK_DELAY,
        }
    }
}

/// ACK every 2nd ack-eliciting packet (§13.2.2), within max_ack_delay (§13.2.1), and at once on
/// reordering, a new gap or a CE mark (§13.2.1).
#[derive(Clone, Debug)]
pub struct Rfc9000 {
    max_ack_delay: Dur,
    /// Ack-eliciting packets received since the last ACK.
    pending: u64,
}

/// §13.2.2: "SHOULD send an ACK frame after receiving at least two ack-eliciting packets".
const PACKETS_PER_ACK: u64 = 2;

impl Rfc9000 {
    /// A policy with nothing pending.
    pub fn new(cfg: &Rfc9000Config) -> Self {
        Rfc9000 {
            max_ack_delay: cfg.max_ack_delay,
            pending: 0,
        }
    }
}

impl AckPolicy for Rfc9000 {
    #[inline]
    fn on_packet(&mut self, a: &Arrival<'_>) -> bool {
        self.pending += 1;
        self.pending >= PACKETS_PER_ACK || rfc9000_immediate(a)
    }
    fn on_ack_sent(&mut self) {
        self.pending = 0;
    }
    fn max_ack_delay(&self) -> Dur {
        self.max_ack_delay
    }
}
