//! Drop-tail: a FIFO that refuses arrivals beyond a byte or packet limit.

use super::fifo::Fifo;
use super::{Queue, QueueStats};
use crate::engine::Rng;
use crate::packet::InFlight;
use cclab_core::time::Time;
use cclab_core::units::Bytes;
use serde::Deserialize;

/// Packets a drop-tail queue holds when no limit is given (Linux `txqueuelen` default).
pub const DEFAULT_LIMIT_PACKETS: u64 = 1000;

/// Drop-tail limits; with neither given the queue holds [`DEFAULT_LIMIT_PACKETS`] packets.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DropTailConfig {
    /// Largest backlog in bytes (IP sizes); an arrival that would exceed it is dropped.
    pub limit: Option<Bytes>,
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
    /// An empty queue with the configured limits.
    pub fn new(cfg: &DropTailConfig) -> DropTail {
        let limit_packets = match (cfg.limit, cfg.limit_packets) {
            (None, None) => DEFAULT_LIMIT_PACKETS,
            (_, n) => n.unwrap_or(u64::MAX),
        };
        DropTail {
            fifo: Fifo::default(),
            limit_bytes: cfg.limit.map_or(u64::MAX, |b| b.0),
            limit_packets,
            stats: QueueStats::default(),
        }
    }
}

impl Queue for DropTail {
    fn enqueue(&mut self, now: Time, mut p: InFlight, _rng: &mut Rng) -> bool {
        if self.fifo.bytes() + p.size() > self.limit_bytes || self.fifo.len() as u64 >= self.limit_packets {
            self.stats.record_drop(&p);
            return false;
        }
        p.enqueued = now;
        self.fifo.push(p);
        true
    }
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
