//! The built-in ACK policies as one enum, so the receiver's calls on every packet and every ACK are
//! a match it can inline instead of calls through a `dyn AckPolicy` box (the style's "enum over
//! built-ins on the hot path"); [`AckPolicy`] stays the trait each policy implements.

use super::{AckFrequencyPolicy, AckPolicy, Arrival, Ratio, RatioAfter, Rfc9000, TcpDelayed};
use crate::time::Dur;
use crate::wire::packet::AckFrequencyFrame;

/// One of the built-in ACK policies ([`super::AckPolicyConfig::build_any`]).
///
/// 24 bytes, held in the receiver among the fields every arrival reads: the default policy (RFC 9000)
/// inline, the larger kinds boxed. The policy in a box of its own was one more cold line per arrival
/// with many flows.
#[derive(Clone, Debug)]
pub enum AnyAckPolicy {
    /// RFC 9000 §13.2.
    Rfc9000(Rfc9000),
    /// A fixed ACK ratio.
    Ratio(Box<Ratio>),
    /// 1:a, then 1:b.
    RatioAfter(Box<RatioAfter>),
    /// TCP delayed ACKs with quick-ACK mode.
    TcpDelayed(Box<TcpDelayed>),
    /// draft-ietf-quic-ack-frequency.
    AckFrequency(Box<AckFrequencyPolicy>),
}

const _: () = assert!(size_of::<AnyAckPolicy>() == 24);

/// Applies `$body` to the policy inside `$self`, whatever its kind.
macro_rules! each {
    ($self:expr, $p:ident => $body:expr) => {
        match $self {
            AnyAckPolicy::Rfc9000($p) => $body,
            AnyAckPolicy::Ratio($p) => $body,
            AnyAckPolicy::RatioAfter($p) => $body,
            AnyAckPolicy::TcpDelayed($p) => $body,
            AnyAckPolicy::AckFrequency($p) => $body,
        }
    };
}

/// What an [`Arrival`] is built from, handed to [`AnyAckPolicy::on_arrival`]; the implementation should
/// mark `arrival` `#[inline(always)]`, so that only the fields a policy reads are worked out.
pub trait ArrivalFacts<'a> {
    /// The facts of the arriving packet.
    fn arrival(self) -> Arrival<'a>;
}

impl AnyAckPolicy {
    /// [`AckPolicy::on_packet`] with the [`Arrival`] built from `facts` inside each policy's arm: the
    /// default policy's (RFC 9000) is inlined and reads three of its fields, so the others are never
    /// worked out, where the built struct cost ~20 stores on every data packet. (A closure in `facts`'
    /// place stayed a call: a closure cannot be marked `inline`.)
    #[inline(always)]
    pub fn on_arrival<'a>(&mut self, facts: impl ArrivalFacts<'a>) -> bool {
        each!(self, p => p.on_packet(&facts.arrival()))
    }
}

impl AckPolicy for AnyAckPolicy {
    #[inline]
    fn on_packet(&mut self, a: &Arrival<'_>) -> bool {
        each!(self, p => p.on_packet(a))
    }
    #[inline]
    fn on_ack_sent(&mut self) {
        each!(self, p => p.on_ack_sent())
    }
    #[inline]
    fn max_ack_delay(&self) -> Dur {
        each!(self, p => p.max_ack_delay())
    }
    fn on_ack_frequency(&mut self, frame: &AckFrequencyFrame) {
        each!(self, p => p.on_ack_frequency(frame))
    }
    fn on_immediate_ack(&mut self) -> bool {
        each!(self, p => p.on_immediate_ack())
    }
}
