//! CoDel, Controlled Delay AQM (RFC 8289), with optional ECN marking.
//!
//! Decisions happen at dequeue from each packet's sojourn time. Once the sojourn time has stayed
//! above `target` for `interval`, CoDel enters the dropping state and drops at times following
//! the control law `t + interval/√count` (RFC 8289 §5.5) until the sojourn time falls below
//! `target` or the queue holds less than one maximum-sized packet. With `ecn = true`,
//! ECN-capable packets are CE-marked and delivered instead of dropped (as Linux `codel_dequeue`).

use super::fifo::Fifo;
use super::{Queue, QueueStats};
use crate::engine::Rng;
use crate::packet::InFlight;
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::Ecn;
use serde::Deserialize;

/// CoDel parameters (RFC 8289 §4.2–4.4 defaults).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CodelConfig {
    /// Acceptable standing queue delay (default 5 ms).
    pub target: Dur,
    /// Window over which the sojourn time must stay above target (default 100 ms).
    pub interval: Dur,
    /// Physical queue size in packets; arrivals beyond it are dropped (default 1000, as Linux).
    pub limit_packets: u64,
    /// CE-mark ECN-capable packets instead of dropping them (default false).
    pub ecn: bool,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig {
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
            limit_packets: 1000,
            ecn: false,
        }
    }
}

/// A CoDel queue.
#[derive(Debug)]
pub struct Codel {
    cfg: CodelConfig,
    fifo: Fifo,
    /// When the sojourn time will have been above target for a whole interval (RFC: first_above_time).
    first_above_time: Option<Time>,
    drop_next: Time,
    count: u32,
    lastcount: u32,
    dropping: bool,
    /// Largest packet seen, bytes (RFC 8289 §5: "maxpacket").
    max_packet: u64,
    stats: QueueStats,
}

impl Codel {
    /// An empty CoDel queue.
    pub fn new(cfg: &CodelConfig) -> Codel {
        Codel {
            cfg: cfg.clone(),
            fifo: Fifo::default(),
            first_above_time: None,
            drop_next: Time::ZERO,
            count: 0,
            lastcount: 0,
            dropping: false,
            max_packet: 0,
            stats: QueueStats::default(),
        }
    }

    /// RFC 8289 §5.5: `t + interval / sqrt(count)`.
    fn control_law(&self, t: Time) -> Time {
        t + Dur::from_secs_f64(self.cfg.interval.as_secs_f64() / (self.count.max(1) as f64).sqrt())
    }

    /// RFC 8289 §5.4 `dodequeue`: the head packet and whether it may be dropped.
    fn dodequeue(&mut self, now: Time) -> (Option<InFlight>, bool) {
        let Some(p) = self.fifo.pop() else {
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now.saturating_since(p.enqueued);
        let mut ok_to_drop = false;
        if sojourn < self.cfg.target || self.fifo.bytes() <= self.max_packet {
            self.first_above_time = None;
        } else {
            match self.first_above_time {
                None => self.first_above_time = Some(now + self.cfg.interval),
                Some(t) if now >= t => ok_to_drop = true,
                Some(_) => {}
            }
        }
        (Some(p), ok_to_drop)
    }

    /// Drops the head packet regardless of its sojourn time (FQ-CoDel's overflow drop from the
    /// fattest flow, RFC 8290 §4.1); returns it, counted as dropped.
    pub(super) fn drop_head(&mut self) -> Option<InFlight> {
        let p = self.fifo.pop()?;
        self.stats.record_drop(&p);
        Some(p)
    }

    /// Drops `p`, or with ECN marks it; returns it back when marked.
    fn drop_or_mark(&mut self, mut p: InFlight) -> Option<InFlight> {
        if self.cfg.ecn && matches!(p.ecn, Ecn::Ect0 | Ecn::Ect1 | Ecn::Ce) {
            p.ecn = Ecn::Ce;
            self.stats.ecn_marked += 1;
            Some(p)
        } else {
            self.stats.record_drop(&p);
            None
        }
    }
}

impl Queue for Codel {
    fn enqueue(&mut self, now: Time, mut p: InFlight, _rng: &mut Rng) -> bool {
        if self.fifo.len() as u64 >= self.cfg.limit_packets {
            self.stats.record_drop(&p);
            return false;
        }
        self.max_packet = self.max_packet.max(p.size());
        p.enqueued = now;
        self.fifo.push(p);
        true
    }

    /// RFC 8289 §5.6 `dequeue`.
    fn dequeue(&mut self, now: Time) -> Option<InFlight> {
        let (mut r, mut ok_to_drop) = self.dodequeue(now);
        let Some(mut p) = r.take() else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok_to_drop {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count += 1;
                if let Some(marked) = self.drop_or_mark(p) {
                    self.drop_next = self.control_law(self.drop_next);
                    return Some(marked);
                }
                (r, ok_to_drop) = self.dodequeue(now);
                match r.take() {
                    None => {
                        self.dropping = false;
                        return None;
                    }
                    Some(next) => p = next,
                }
                if !ok_to_drop {
                    self.dropping = false;
                } else {
                    self.drop_next = self.control_law(self.drop_next);
                }
            }
            return Some(p);
        }
        if ok_to_drop {
            let marked = self.drop_or_mark(p);
            let next = match marked {
                Some(m) => Some(m),
                None => {
                    let (r, _) = self.dodequeue(now);
                    r
                }
            };
            self.dropping = true;
            // Re-enter with the previous drop rate if the last dropping state ended recently.
            let delta = self.count.saturating_sub(self.lastcount);
            self.count = if delta > 1 && now.saturating_since(self.drop_next) < self.cfg.interval * 16 {
                delta
            } else {
                1
            };
            self.drop_next = self.control_law(now);
            self.lastcount = self.count;
            return next;
        }
        Some(p)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{stream_rng, Stream};
    use cclab_core::wire::packet::{Datagram, FlowId, Packet};

    fn pkt(size: u32) -> InFlight {
        let dgram = Datagram {
            flow: FlowId(0),
            size,
            ecn: Ecn::NotEct,
            packet: Packet::default(),
        };
        InFlight::new(dgram, 0, 0, Time::ZERO)
    }

    #[test]
    fn codel_drops_follow_the_control_law() {
        // Arrivals every 0.5 ms, one dequeue per ms: packet j leaves at j ms after waiting
        // j/2 ms, above the 5 ms target from j = 10 on. First drop one interval later (110 ms),
        // then at 110 + 100/√1 = 210, 210 + 100/√2 = 280.7 → 281, 280.7 + 100/√3 = 338.4 → 339.
        let mut q = Codel::new(&CodelConfig::default());
        let mut rng = stream_rng(1, Stream::LinkQueue, 0);
        let mut drop_times = Vec::new();
        for ms in 0..400u64 {
            for half in 0..2 {
                q.enqueue(Time(ms * 1_000_000 + half * 500_000), pkt(1000), &mut rng);
            }
            let before = q.stats().dropped_packets;
            assert!(q.dequeue(Time(ms * 1_000_000)).is_some());
            if q.stats().dropped_packets > before {
                drop_times.push(ms);
            }
        }
        assert_eq!(drop_times[..4], [110, 210, 281, 339]);
    }
}
