//! Queue disciplines of a link: one [`Queue`] trait, one file per discipline, and
//! [`AnyQueue`], the enum the link holds (no dynamic dispatch on the per-packet path).

mod codel;
mod droptail;
mod dualpi2;
pub(crate) mod fifo;
mod fq_codel;
mod pie;
mod red;
#[cfg(test)]
mod test_util;

pub use codel::{Codel, CodelConfig};
pub use droptail::{DropTail, DropTailConfig, QueueLimit, DEFAULT_LIMIT_PACKETS};
pub use dualpi2::{DualPi2, DualPi2Config};
pub use fq_codel::{FqCodel, FqCodelConfig};
pub use pie::{Pie, PieConfig};
pub use red::{Red, RedConfig};

use crate::engine::Rng;
use crate::packet::InFlight;
use cclab_core::time::{Dur, Time};
use serde::Deserialize;

/// Counters of one queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// Packets dropped (overflow or AQM).
    pub dropped_packets: u64,
    /// Their IP-layer bytes.
    pub dropped_bytes: u64,
    /// ECN-capable packets CE-marked instead of dropped.
    pub ecn_marked: u64,
}

impl QueueStats {
    /// Counts `p` as dropped.
    pub fn record_drop(&mut self, p: &InFlight) {
        self.dropped_packets += 1;
        self.dropped_bytes += p.size();
    }
}

/// A queue discipline in front of a link's serialiser.
pub trait Queue {
    /// Offers `p` at `now`; returns false if the queue dropped it (counted in `stats`).
    fn enqueue(&mut self, now: Time, p: InFlight, rng: &mut Rng) -> bool;
    /// The next packet for the serialiser at `now` (an AQM may drop packets on the way).
    fn dequeue(&mut self, now: Time) -> Option<InFlight>;
    /// Bytes queued.
    fn bytes(&self) -> u64;
    /// Packets queued.
    fn packets(&self) -> usize;
    /// Drop and mark counters.
    fn stats(&self) -> QueueStats;
    /// The discipline keeps no state while empty, so a packet arriving at an empty queue and an
    /// idle serialiser may skip it (drop-tail); AQMs must see every packet.
    fn is_passive(&self) -> bool {
        false
    }
}

/// A queue discipline as a scenario names it (`queue = { kind = "red", ... }`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum QueueConfig {
    /// Drop-tail FIFO.
    Droptail(DropTailConfig),
    /// Random Early Detection.
    Red(RedConfig),
    /// Controlled Delay (RFC 8289).
    Codel(CodelConfig),
    /// Dual-Queue Coupled AQM for L4S (RFC 9332).
    #[serde(rename = "dualpi2")]
    DualPi2(DualPi2Config),
    /// Flow Queue CoDel (RFC 8290).
    #[serde(rename = "fq-codel")]
    FqCodel(FqCodelConfig),
    /// Proportional Integral controller Enhanced (RFC 8033).
    Pie(PieConfig),
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig::Droptail(DropTailConfig::default())
    }
}

impl QueueConfig {
    /// Checks parameters that are valid alone but not together, and limits that could never let a packet
    /// through; the error is (key relative to the link, message).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let never = "a limit of 0 never lets a packet through; expected a positive limit".to_string();
        match self {
            QueueConfig::Droptail(c)
                if matches!(c.limit, Some(QueueLimit::Bytes(b)) if b.0 == 0)
                    || matches!(c.limit, Some(QueueLimit::Time(t)) if t.0 == 0) =>
            {
                Err(("queue.limit", never))
            }
            QueueConfig::Droptail(c) if c.limit_packets == Some(0) => Err(("queue.limit_packets", never)),
            QueueConfig::Droptail(_) => Ok(()),
            QueueConfig::Red(c) => {
                if c.limit.0 == 0 {
                    Err(("queue.limit", never))
                } else if c.min_th >= c.max_th {
                    Err((
                        "queue",
                        format!("RED needs min_th < max_th, got {} B and {} B", c.min_th.0, c.max_th.0),
                    ))
                } else if !(c.max_p > 0.0 && c.max_p <= 1.0 && c.w_q > 0.0 && c.w_q <= 1.0) {
                    Err((
                        "queue",
                        format!("RED needs max_p and w_q in (0, 1], got {} and {}", c.max_p, c.w_q),
                    ))
                } else {
                    Ok(())
                }
            }
            QueueConfig::Codel(c) if c.limit_packets == 0 => Err(("queue.limit_packets", never)),
            QueueConfig::Codel(c) if c.target.0 == 0 || c.interval.0 == 0 => {
                Err(("queue", "CoDel needs a positive target and interval".into()))
            }
            QueueConfig::Codel(_) => Ok(()),
            QueueConfig::DualPi2(c) => c.validate().map_err(|m| ("queue", m)),
            QueueConfig::FqCodel(c) => c.validate().map_err(|m| ("queue", m)),
            QueueConfig::Pie(c) if c.target.0 == 0 || c.t_update.0 == 0 => {
                Err(("queue", "PIE needs a positive target and t_update".into()))
            }
            QueueConfig::Pie(c) if ![c.alpha, c.beta].iter().all(|v| v.is_finite() && *v >= 0.0) => Err((
                "queue",
                format!("PIE needs finite alpha, beta >= 0, got {} and {}", c.alpha, c.beta),
            )),
            QueueConfig::Pie(c) if !(0.0..=1.0).contains(&c.mark_ecn_threshold) => Err((
                "queue",
                format!("PIE needs mark_ecn_threshold in [0, 1], got {}", c.mark_ecn_threshold),
            )),
            QueueConfig::Pie(_) => Ok(()),
        }
    }

    /// Builds the queue; `packet_time` is the link's transmission time of a full-sized packet,
    /// `rate_bps` its rate (`None`: unlimited or trace-driven).
    pub fn build(&self, packet_time: Dur, rate_bps: Option<u64>) -> AnyQueue {
        match self {
            QueueConfig::Droptail(c) => AnyQueue::DropTail(DropTail::new(c, rate_bps)),
            QueueConfig::Red(c) => AnyQueue::Red(Red::new(c, packet_time)),
            QueueConfig::Codel(c) => AnyQueue::Codel(Codel::new(c)),
            QueueConfig::DualPi2(c) => AnyQueue::DualPi2(DualPi2::new(c)),
            QueueConfig::FqCodel(c) => AnyQueue::FqCodel(FqCodel::new(c)),
            QueueConfig::Pie(c) => AnyQueue::Pie(Pie::new(c)),
        }
    }
}

/// One of the built-in queues.
#[derive(Debug)]
pub enum AnyQueue {
    /// Drop-tail.
    DropTail(DropTail),
    /// RED.
    Red(Red),
    /// CoDel.
    Codel(Codel),
    /// DualPI2.
    DualPi2(DualPi2),
    /// FQ-CoDel.
    FqCodel(FqCodel),
    /// PIE.
    Pie(Pie),
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            AnyQueue::DropTail($q) => $e,
            AnyQueue::Red($q) => $e,
            AnyQueue::Codel($q) => $e,
            AnyQueue::DualPi2($q) => $e,
            AnyQueue::FqCodel($q) => $e,
            AnyQueue::Pie($q) => $e,
        }
    };
}

impl Queue for AnyQueue {
    fn enqueue(&mut self, now: Time, p: InFlight, rng: &mut Rng) -> bool {
        dispatch!(self, q => q.enqueue(now, p, rng))
    }
    fn dequeue(&mut self, now: Time) -> Option<InFlight> {
        dispatch!(self, q => q.dequeue(now))
    }
    fn bytes(&self) -> u64 {
        dispatch!(self, q => q.bytes())
    }
    fn packets(&self) -> usize {
        dispatch!(self, q => q.packets())
    }
    fn stats(&self) -> QueueStats {
        dispatch!(self, q => q.stats())
    }
    fn is_passive(&self) -> bool {
        dispatch!(self, q => q.is_passive())
    }
}
