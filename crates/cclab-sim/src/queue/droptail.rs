//! Drop-tail: a FIFO that refuses arrivals beyond a byte, packet or time limit.
//!
//! A time limit (`limit = "600ms"`) drops an arrival when the backlog including it would take
//! longer than the limit to drain at the link's rate, as satellite emulators and picoquic's
//! simulator bound their queues (picoquic `picoquictest_sim_link.c`: `queue_delay_max`). The
//! queue converts it once into bytes (`rate · limit / 8`), so it never reads a clock and runs
//! the same under the simulator and a real-time driver. Per-packet costs (`max_pps`,
//! `per_packet_cost`) are not part of the drain time.

use super::fifo::Fifo;
use super::{Queue, QueueStats};
use crate::engine::Rng;
use crate::packet::InFlight;
use cclab_core::time::{Dur, Time};
use cclab_core::units::{parse_bytes, parse_duration, Bytes};
use core::fmt;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// Packets a drop-tail queue holds when no limit is given (Linux `txqueuelen` default).
pub const DEFAULT_LIMIT_PACKETS: u64 = 1000;

/// A drop-tail backlog limit as a size (`"64KB"`) or as a drain time at the link rate (`"600ms"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// Largest backlog in bytes (IP sizes).
    Bytes(Bytes),
    /// Longest time the backlog may take to drain at the link's rate.
    Time(Dur),
}

impl QueueLimit {
    /// The limit in bytes on a link of `rate_bps` (`None`: no rate, so a time limit has no size).
    pub fn bytes(self, rate_bps: Option<u64>) -> Option<u64> {
        match self {
            QueueLimit::Bytes(b) => Some(b.0),
            // bytes = rate · time / 8, rounded down so the drain time never exceeds the limit.
            QueueLimit::Time(d) => {
                rate_bps.map(|r| u64::try_from(r as u128 * d.0 as u128 / 8_000_000_000).unwrap_or(u64::MAX))
            }
        }
    }
}

impl<'de> Deserialize<'de> for QueueLimit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<QueueLimit, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = QueueLimit;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a size (\"64KB\") or a drain time (\"600ms\")")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<QueueLimit, E> {
                parse_bytes(v)
                    .map(QueueLimit::Bytes)
                    .or_else(|_| parse_duration(v).map(QueueLimit::Time))
                    .map_err(|_| {
                        E::custom(format!(
                            "expected a size (B, KB, MB, KiB, ...) or a duration (us, ms, s), e.g. \"64KB\" or \"600ms\", got {v:?}"
                        ))
                    })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<QueueLimit, E> {
                Err(E::custom(format!(
                    "expected a size or a duration with a unit as a string, e.g. \"{v}KB\" or \"{v}ms\"; got the bare number {v}"
                )))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<QueueLimit, E> {
                self.visit_i64(v as i64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<QueueLimit, E> {
                Err(E::custom(format!(
                    "expected a size or a duration with a unit as a string; got the bare number {v}"
                )))
            }
        }
        d.deserialize_any(V)
    }
}

/// Drop-tail limits; with neither given the queue holds [`DEFAULT_LIMIT_PACKETS`] packets.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DropTailConfig {
    /// Largest backlog in bytes (IP sizes) or as a drain time at the link rate; an arrival that
    /// would exceed it is dropped.
    pub limit: Option<QueueLimit>,
    /// Largest backlog in packets.
    pub limit_packets: Option<u64>,
}

/// A drop-tail queue.
#[derive(Debug)]
pub struct DropTail {
    fifo: Fifo,
    limit_bytes: u64,
    limit_packets: u64,
    stats: QueueStats,
}

impl DropTail {
    /// An empty queue with the configured limits on a link of `rate_bps` (`None`: unlimited or
    /// trace-driven; [`crate::link::LinkConfig::resolve`] rejects a time limit there).
    pub fn new(cfg: &DropTailConfig, rate_bps: Option<u64>) -> DropTail {
        let limit_packets = match (cfg.limit, cfg.limit_packets) {
            (None, None) => DEFAULT_LIMIT_PACKETS,
            (_, n) => n.unwrap_or(u64::MAX),
        };
        DropTail {
            fifo: Fifo::default(),
            limit_bytes: cfg.limit.and_then(|l| l.bytes(rate_bps)).unwrap_or(u64::MAX),
            limit_packets,
            stats: QueueStats::default(),
        }
    }

    /// The ring of queued packets, for a link that keeps departed packets in it while they
    /// propagate (see `queue::fifo`).
    #[inline]
    pub(crate) fn ring(&self) -> &Fifo {
        &self.fifo
    }

    /// The ring of queued packets, to depart from in place.
    #[inline]
    pub(crate) fn ring_mut(&mut self) -> &mut Fifo {
        &mut self.fifo
    }
}

// `#[inline]` on the per-packet pair: the link's `AnyQueue` dispatch then moves the packet straight into
// the FIFO instead of through a call's by-value argument (the default queue, on every link).
impl Queue for DropTail {
    #[inline(always)]
    fn enqueue(&mut self, now: Time, mut p: InFlight, _rng: &mut Rng) -> bool {
        if self.fifo.bytes() + p.size() > self.limit_bytes || self.fifo.len() as u64 >= self.limit_packets {
            self.stats.record_drop(&p);
            return false;
        }
        p.enqueued = now;
        self.fifo.push(p);
        true
    }
    #[inline]
    fn dequeue(&mut self, _now: Time) -> Option<InFlight> {
        self.fifo.pop()
    }
    fn bytes(&self) -> u64 {
        self.fifo.bytes()
    }
    fn packets(&self) -> usize {
        self.fifo.len()
    }
    fn stats(&self) -> QueueStats {
        self.stats
    }
    fn is_passive(&self) -> bool {
        true
    }
}
