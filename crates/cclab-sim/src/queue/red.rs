//! Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for Congestion
//! Avoidance", IEEE/ACM ToN 1993), in byte mode, with the "gentle" variant and optional ECN
//! marking (RFC 3168 §5).
//!
//! On each arrival the average backlog `avg` is updated; between `min_th` and `max_th` the
//! arrival is marked with probability `p_a`, above `max_th` always (gentle: ramping from
//! `max_p` to 1 between `max_th` and `2·max_th`). "Marked" means dropped, or, with `ecn = true`
//! and an ECN-capable packet, CE-marked and queued (as Linux `sch_red` does without
//! `harddrop`). The hard `limit` always drops.

use super::fifo::Fifo;
use super::{Queue, QueueStats};
use crate::engine::rng::{chance, Rng};
use crate::packet::InFlight;
use cclab_core::time::{Dur, Time};
use cclab_core::units::Bytes;
use cclab_core::wire::packet::Ecn;
use serde::Deserialize;

/// RED parameters (thresholds in bytes of backlog).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RedConfig {
    /// Average backlog where early marking starts (default 30 KB, 20 full-sized packets).
    pub min_th: Bytes,
    /// Average backlog where marking reaches `max_p` (default 90 KB = 3·min_th, as Floyd advises).
    pub max_th: Bytes,
    /// Marking probability at `max_th` (default 0.1).
    pub max_p: f64,
    /// Weight of the newest sample in the average, `w_q` (default 0.002).
    pub w_q: f64,
    /// Physical queue size in bytes; arrivals beyond it are dropped (default 300 KB).
    pub limit: Bytes,
    /// Ramp the probability from `max_p` to 1 between `max_th` and `2·max_th` (default true).
    pub gentle: bool,
    /// CE-mark ECN-capable packets instead of dropping them (default false).
    pub ecn: bool,
}

impl Default for RedConfig {
    fn default() -> Self {
        RedConfig {
            min_th: Bytes(30_000),
            max_th: Bytes(90_000),
            max_p: 0.1,
            w_q: 0.002,
            limit: Bytes(300_000),
            gentle: true,
            ecn: false,
        }
    }
}

/// A RED queue.
#[derive(Debug)]
pub struct Red {
    cfg: RedConfig,
    fifo: Fifo,
    /// Average backlog, bytes.
    avg: f64,
    /// Packets since the last mark (-1: below `min_th`).
    count: i64,
    /// Start of the current idle period, if the queue is empty.
    idle_since: Option<Time>,
    /// Transmission time of a typical packet, for the idle-time decay of `avg`.
    packet_time: Dur,
    stats: QueueStats,
}

impl Red {
    /// An empty RED queue; `packet_time` is the link's transmission time of a typical packet.
    pub fn new(cfg: &RedConfig, packet_time: Dur) -> Red {
        Red {
            cfg: cfg.clone(),
            fifo: Fifo::default(),
            avg: 0.0,
            count: -1,
            idle_since: Some(Time::ZERO),
            packet_time,
            stats: QueueStats::default(),
        }
    }

    /// Average backlog in bytes.
    pub fn average(&self) -> f64 {
        self.avg
    }

    /// Early-marking probability for the current average (before the count correction).
    fn p_b(&self) -> Option<f64> {
        let (min, max) = (self.cfg.min_th.0 as f64, self.cfg.max_th.0 as f64);
        if self.avg < min {
            None
        } else if self.avg < max {
            Some(self.cfg.max_p * (self.avg - min) / (max - min))
        } else if self.cfg.gentle && self.avg < 2.0 * max {
            Some(self.cfg.max_p + (1.0 - self.cfg.max_p) * (self.avg - max) / max)
        } else {
            Some(1.0)
        }
    }

    /// Decides whether the arriving packet is marked (Floyd & Jacobson Fig. 2).
    fn mark_decision(&mut self, rng: &mut Rng) -> bool {
        match self.p_b() {
            None => {
                self.count = -1;
                false
            }
            Some(p_b) if p_b >= 1.0 => {
                self.count = 0;
                true
            }
            Some(p_b) => {
                self.count += 1;
                // p_a = p_b / (1 - count·p_b): marks spread uniformly between marks.
                let denom = 1.0 - self.count as f64 * p_b;
                let p_a = if denom <= 0.0 { 1.0 } else { p_b / denom };
                let mark = chance(rng, p_a);
                if mark {
                    self.count = 0;
                }
                mark
            }
        }
    }
}

impl Queue for Red {
    fn enqueue(&mut self, now: Time, mut p: InFlight, rng: &mut Rng) -> bool {
        let w = self.cfg.w_q;
        match self.idle_since.take() {
            // Idle: decay as if m = idle / packet_time small packets had arrived to an empty queue.
            Some(since) => {
                let idle = now.saturating_since(since);
                self.avg *= if self.packet_time.0 == 0 {
                    0.0
                } else {
                    (1.0 - w).powf(idle.0 as f64 / self.packet_time.0 as f64)
                };
            }
            None => self.avg = (1.0 - w) * self.avg + w * self.fifo.bytes() as f64,
        }
        if self.fifo.bytes() + p.size() > self.cfg.limit.0 {
            self.stats.record_drop(&p);
            self.restore_idle(now);
            return false;
        }
        if self.mark_decision(rng) {
            if self.cfg.ecn && matches!(p.ecn, Ecn::Ect0 | Ecn::Ect1 | Ecn::Ce) {
                p.ecn = Ecn::Ce;
                self.stats.ecn_marked += 1;
            } else {
                self.stats.record_drop(&p);
                self.restore_idle(now);
                return false;
            }
        }
        p.enqueued = now;
        self.fifo.push(p);
        true
    }
    fn dequeue(&mut self, now: Time) -> Option<InFlight> {
        let p = self.fifo.pop();
        self.restore_idle(now);
        p
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
}

impl Red {
    fn restore_idle(&mut self, now: Time) {
        if self.fifo.is_empty() && self.idle_since.is_none() {
            self.idle_since = Some(now);
        }
    }
}
