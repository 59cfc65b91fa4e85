//! ACK policies: when a receiver acknowledges (RFC 9000 §13.2, RFC 1122/5681 delayed ACKs, ACK
//! ratios, draft-ietf-quic-ack-frequency), and the sender-side policy that chooses the
//! ACK_FREQUENCY frames a sender asks its peer to obey.
//!
//! The receiver computes the facts of each arriving ack-eliciting packet ([`Arrival`]) and asks
//! its policy whether to ACK at once; otherwise the delayed-ACK timer, armed when the first
//! unacknowledged ack-eliciting packet arrived, fires `max_ack_delay()` later (through the
//! receiver's clock model). Adding a policy = its file here + one variant and one arm in
//! [`AckPolicyConfig`], and one variant in [`AnyAckPolicy`] and its `each!` macro.

use core::fmt::Debug;

use serde::Deserialize;

use crate::time::{Dur, Time};
use crate::wire::packet::{AckFrequencyFrame, Packet};
use crate::wire::size::Profile;

pub mod ack_frequency;
pub mod ack_of_ack;
pub mod any;
pub mod frame_ranges;
pub mod frequency_sender;
pub mod ranges;
pub mod ratio;
pub mod ratio_after;
pub mod rfc9000;
pub mod tcp_delayed;

pub use ack_frequency::{AckFrequencyPolicy, AckFrequencyPolicyConfig};
pub use ack_of_ack::AckOfAck;
pub use any::{AnyAckPolicy, ArrivalFacts};
pub use frame_ranges::FrameRanges;
pub use ranges::RangeSet;
pub use ratio::{Ratio, RatioConfig};
pub use ratio_after::{RatioAfter, RatioAfterConfig};
pub use rfc9000::{Rfc9000, Rfc9000Config};
pub use tcp_delayed::{TcpDelayed, TcpDelayedConfig};

/// Facts about one arriving ack-eliciting packet, computed by the receiver before the policy
/// decides. "Received" counts every packet, ack-eliciting or not.
#[derive(Clone, Copy, Debug)]
pub struct Arrival<'a> {
    /// Clock reading of the receiver at arrival.
    pub now: Time,
    /// Packet number (TCP: segment index).
    pub pn: u64,
    /// The packet is CE-marked.
    pub ce: bool,
    /// The previously received packet was CE-marked (draft-ietf-quic-ack-frequency §6.3).
    pub prev_ce: bool,
    /// A larger packet number was received before: reordered, retransmitted or filling a gap
    /// (RFC 9000 §13.2.1 first case; RFC 5681 §4.2 gap filling).
    pub out_of_order: bool,
    /// The packet is above the largest received with packets missing in between (RFC 9000
    /// §13.2.1 second case; RFC 5681 §4.2 out-of-order segment).
    pub new_gap: bool,
    /// Stream data below the highest byte received was missing before or after this packet
    /// (Linux: the out-of-order queue was not empty; RFC 5681 §4.2: a segment that fills all or
    /// part of a gap is acknowledged at once).
    pub has_holes: bool,
    /// Largest Unacked (§6.2): the largest ack-eliciting packet number received.
    pub largest_unacked: u64,
    /// Largest Acked (§6.2): the largest packet number reported in an ACK sent so far.
    pub largest_acked: Option<u64>,
    /// Every packet number received (this one included), for the §6.2 Unreported Missing test.
    pub received: &'a RangeSet,
    /// The packet itself, for [`Arrival::bytes`].
    pub packet: &'a Packet,
    /// The flow's profile, for [`Arrival::bytes`] and [`Arrival::mss`].
    pub profile: &'a Profile,
}

impl Arrival<'_> {
    /// The packet's size in the unit of `mss` (TCP: payload bytes; QUIC: bytes in flight). Computed
    /// on demand: a QUIC packet's size walks its frames, and only byte-counting policies ask.
    pub fn bytes(&self) -> u64 {
        self.profile.in_flight_size(self.packet).into()
    }

    /// Size of a full-sized packet in the same unit (Linux `rcv_mss`).
    pub fn mss(&self) -> u64 {
        self.profile.mss().into()
    }
}

/// When a receiver acknowledges. The receiver calls `on_packet` for each new ack-eliciting
/// packet (after the packet's ACK_FREQUENCY and IMMEDIATE_ACK frames were handed over) and
/// `on_ack_sent` for each ACK it sends; any ACK resets the count and the delayed-ACK timer.
pub trait AckPolicy: Send + Debug {
    /// A new ack-eliciting packet arrived; returns `true` to ACK at once, `false` to leave it
    /// to the delayed-ACK timer (or a later packet).
    fn on_packet(&mut self, a: &Arrival<'_>) -> bool;
    /// An ACK frame was sent.
    fn on_ack_sent(&mut self);
    /// Longest intentional delay before acknowledging an ack-eliciting packet. It may change only in
    /// `on_ack_frequency`: the receiver works out its timer's deadline when the timer is armed and
    /// again after that hook, not at every poll.
    fn max_ack_delay(&self) -> Dur;
    /// An ACK_FREQUENCY frame arrived (policies that do not implement the extension ignore it).
    fn on_ack_frequency(&mut self, _frame: &AckFrequencyFrame) {}
    /// An IMMEDIATE_ACK frame arrived; returns `true` to ACK at once.
    fn on_immediate_ack(&mut self) -> bool {
        false
    }
}

/// RFC 9000 §13.2.1: ACK at once a packet that arrives out of order, that opens a gap above the
/// largest received, or that is CE-marked.
fn rfc9000_immediate(a: &Arrival<'_>) -> bool {
    a.out_of_order || a.new_gap || a.ce
}

/// Default max_ack_delay, RFC 9000 §18.2.
const DEFAULT_MAX_ACK_DELAY: Dur = Dur::from_millis(25);

/// An ACK policy with its parameters, as a scenario names it (`[flow.receiver.ack] policy = "ratio"`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "policy", rename_all = "kebab-case")]
pub enum AckPolicyConfig {
    /// RFC 9000 §13.2: every 2nd ack-eliciting packet, max_ack_delay, immediate on reordering/CE.
    Rfc9000(Rfc9000Config),
    /// A fixed ACK ratio 1:N with a max delay (draft-fairhurst-quic-ack-scaling).
    Ratio(RatioConfig),
    /// 1:a for the first K packets, then 1:b (Chromium ACK decimation).
    RatioAfter(RatioAfterConfig),
    /// TCP delayed ACKs (RFC 1122 §4.2.3.2, RFC 5681 §4.2) with Linux quick-ACK mode.
    TcpDelayed(TcpDelayedConfig),
    /// RFC 9000 until an ACK_FREQUENCY frame arrives, then draft-ietf-quic-ack-frequency §6.
    AckFrequency(AckFrequencyPolicyConfig),
}

impl Default for AckPolicyConfig {
    fn default() -> Self {
        AckPolicyConfig::Rfc9000(Rfc9000Config::default())
    }
}

impl AckPolicyConfig {
    /// The policy's name as a scenario writes it (`policy = "…"`).
    pub fn name(&self) -> &'static str {
        match self {
            AckPolicyConfig::Rfc9000(_) => "rfc9000",
            AckPolicyConfig::Ratio(_) => "ratio",
            AckPolicyConfig::RatioAfter(_) => "ratio-after",
            AckPolicyConfig::TcpDelayed(_) => "tcp-delayed",
            AckPolicyConfig::AckFrequency(_) => "ack-frequency",
        }
    }

    /// Builds the policy.
    pub fn build(&self) -> Box<dyn AckPolicy> {
        Box::new(self.build_any())
    }

    /// Builds the policy as the enum of built-ins the receiver holds.
    pub fn build_any(&self) -> AnyAckPolicy {
        match self {
            AckPolicyConfig::Rfc9000(c) => AnyAckPolicy::Rfc9000(Rfc9000::new(c)),
            AckPolicyConfig::Ratio(c) => AnyAckPolicy::Ratio(Box::new(Ratio::new(c))),
            AckPolicyConfig::RatioAfter(c) => AnyAckPolicy::RatioAfter(Box::new(RatioAfter::new(c))),
            AckPolicyConfig::TcpDelayed(c) => AnyAckPolicy::TcpDelayed(Box::new(TcpDelayed::new(c))),
            AckPolicyConfig::AckFrequency(c) => AnyAckPolicy::AckFrequency(Box::new(AckFrequencyPolicy::new(c))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_parses_each_policy_by_name() {
        let parse = |s: &str| toml::from_str::<AckPolicyConfig>(s).unwrap();
        assert_eq!(parse("policy = \"rfc9000\""), AckPolicyConfig::default());
        let r = parse("policy = \"ratio\"\nratio = 10\nmax_ack_delay = \"40ms\"");
        assert_eq!(
            r,
            AckPolicyConfig::Ratio(RatioConfig {
                ratio: core::num::NonZeroU64::new(10).unwrap(),
                max_ack_delay: Dur::from_millis(40)
            })
        );
        assert!(matches!(
            parse("policy = \"ratio-after\""),
            AckPolicyConfig::RatioAfter(_)
        ));
        assert!(matches!(
            parse("policy = \"tcp-delayed\""),
            AckPolicyConfig::TcpDelayed(_)
        ));
        assert!(matches!(
            parse("policy = \"ack-frequency\""),
            AckPolicyConfig::AckFrequency(_)
        ));
        let e = toml::from_str::<AckPolicyConfig>("policy = \"ratio\"\nratoi = 3").unwrap_err();
        assert!(e.to_string().contains("ratoi"), "{e}");
    }
}
