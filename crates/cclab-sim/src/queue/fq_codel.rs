//! FQ-CoDel, the Flow Queue CoDel packet scheduler and AQM (RFC 8290,
//! <https://www.rfc-editor.org/rfc/rfc8290>).
//!
//! Arrivals are classified into one of `flows` queues (§4.1.1; here by flow id modulo `flows`,
//! the simulator's stand-in for the 5-tuple hash: distinct flows never collide while there are
//! fewer than `flows`). Each queue runs its own CoDel instance (§4.2, `codel.rs`). A deficit
//! round robin with byte `quantum` serves the queues, new flows first (§4.2: a queue that
//! becomes active joins the new-flows list and is served before the old flows until it has used
//! one quantum or emptied). When the total backlog exceeds `limit_packets`, the head packet of
//! the queue holding the most bytes is dropped (§4.1). ECN marking is on by default (§5.2.7).

use super::codel::{Codel, CodelConfig};
use super::{Queue, QueueStats};
use crate::engine::Rng;
use crate::packet::InFlight;
use cclab_core::time::{Dur, Time};
use cclab_core::units::Bytes;
use serde::Deserialize;
use std::collections::VecDeque;

/// FQ-CoDel parameters (RFC 8290 §5.2 defaults, as Linux `sch_fq_codel`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FqCodelConfig {
    /// CoDel target of every flow queue (§5.2.3: 5 ms).
    pub target: Dur,
    /// CoDel interval (§5.2.4: 100 ms).
    pub interval: Dur,
    /// Bytes a queue may send per round (§5.2.2: 1514, one Ethernet frame).
    pub quantum: Bytes,
    /// Packets all queues together hold (§5.2.5: 10240).
    pub limit_packets: u64,
    /// Number of flow queues (§5.2.6: 1024).
    pub flows: u32,
    /// CE-mark ECN-capable packets instead of dropping them (§5.2.7: on).
    pub ecn: bool,
}

impl Default for FqCodelConfig {
    fn default() -> Self {
        FqCodelConfig {
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
            quantum: Bytes(1514),
            limit_packets: 10_240,
            flows: 1024,
            ecn: true,
        }
    }
}

impl FqCodelConfig {
    /// Checks parameters that would stall or break the scheduler.
    pub fn validate(&self) -> Result<(), String> {
        if self.target.0 == 0 || self.interval.0 == 0 {
            Err("FQ-CoDel needs a positive target and interval".into())
        } else if self.quantum.0 == 0 || self.flows == 0 || self.limit_packets == 0 {
            Err("FQ-CoDel needs a positive quantum, flows and limit_packets".into())
        } else if self.flows > 65_536 {
            Err(format!("FQ-CoDel flows must be at most 65536, got {}", self.flows))
        } else {
            Ok(())
        }
    }
}

/// Which scheduling list a flow queue is on (§4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum List {
    New,
    Old,
}

/// One flow queue: its CoDel instance and DRR credit.
#[derive(Debug)]
struct FlowQueue {
    codel: Codel,
    /// Bytes it may still send this round.
    deficit: i64,
    /// The list it is on; `None` while inactive.
    list: Option<List>,
}

/// An FQ-CoDel queue.
#[derive(Debug)]
pub struct FqCodel {
    quantum: i64,
    limit_packets: u64,
    queues: Vec<FlowQueue>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    packets: usize,
    bytes: u64,
    stats: QueueStats,
}

impl FqCodel {
    /// An FQ-CoDel queue with all flow queues empty and inactive.
    pub fn new(cfg: &FqCodelConfig) -> FqCodel {
        let codel = CodelConfig {
            target: cfg.target,
            interval: cfg.interval,
            limit_packets: u64::MAX,
            ecn: cfg.ecn,
        };
        FqCodel {
            quantum: cfg.quantum.0 as i64,
            limit_packets: cfg.limit_packets,
            queues: (0..cfg.flows)
                .map(|_| FlowQueue {
                    codel: Codel::new(&codel),
                    deficit: 0,
                    list: None,
                })
                .collect(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            packets: 0,
            bytes: 0,
            stats: QueueStats::default(),
        }
    }

    /// Recounts the totals after queue `i` changed from `(packets, bytes)` before.
    fn account(&mut self, i: usize, before: (usize, u64)) {
        let q = &self.queues[i].codel;
        self.packets = self.packets + q.packets() - before.0;
        self.bytes = self.bytes + q.bytes() - before.1;
    }

    /// §4.1: on overflow, drop the head of the queue with the largest byte backlog.
    fn drop_from_fattest(&mut self) {
        let Some(i) = (0..self.queues.len()).max_by_key(|&i| (self.queues[i].codel.bytes(), std::cmp::Reverse(i)))
        else {
            return;
        };
        let before = (self.queues[i].codel.packets(), self.queues[i].codel.bytes());
        self.queues[i].codel.drop_head();
        self.account(i, before);
    }
}

impl Queue for FqCodel {
    /// §4.1: classify, timestamp (inside CoDel), activate the queue as a new flow, enforce the limit.
    fn enqueue(&mut self, now: Time, p: InFlight, rng: &mut Rng) -> bool {
        let i = p.flow().0 as usize % self.queues.len();
        let before = (self.queues[i].codel.packets(), self.queues[i].codel.bytes());
        self.queues[i].codel.enqueue(now, p, rng);
        self.account(i, before);
        if self.queues[i].list.is_none() {
            self.queues[i].list = Some(List::New);
            self.queues[i].deficit = self.quantum;
            self.new_flows.push_back(i);
        }
        if self.packets as u64 > self.limit_packets {
            self.drop_from_fattest();
        }
        true
    }

    /// §4.2: deficit round robin over the new, then the old flows; CoDel decides per queue.
    fn dequeue(&mut self, now: Time) -> Option<InFlight> {
        loop {
            let (list, i) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&i), _) => (List::New, i),
                (None, Some(&i)) => (List::Old, i),
                (None, None) => return None,
            };
            let pop = |s: &mut Self| match list {
                List::New => s.new_flows.pop_front(),
                List::Old => s.old_flows.pop_front(),
            };
            if self.queues[i].deficit <= 0 {
                // Quantum used up: refill and go to the back of the old flows.
                self.queues[i].deficit += self.quantum;
                pop(self);
                self.queues[i].list = Some(List::Old);
                self.old_flows.push_back(i);
                continue;
            }
            let before = (self.queues[i].codel.packets(), self.queues[i].codel.bytes());
            let p = self.queues[i].codel.dequeue(now);
            self.account(i, before);
            match p {
                Some(p) => {
                    self.queues[i].deficit -= p.size() as i64;
                    return Some(p);
                }
                None => {
                    pop(self);
                    // §4.2: an emptied new flow moves to the old list (so it cannot regain
                    // priority at once); an emptied old flow becomes inactive.
                    if list == List::New && !self.old_flows.is_empty() {
                        self.queues[i].list = Some(List::Old);
                        self.old_flows.push_back(i);
                    } else {
                        self.queues[i].list = None;
                    }
                }
            }
        }
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn packets(&self) -> usize {
        self.packets
    }
    fn stats(&self) -> QueueStats {
        let mut s = self.stats;
        for q in &self.queues {
            let c = q.codel.stats();
            s.dropped_packets += c.dropped_packets;
            s.dropped_bytes += c.dropped_bytes;
            s.ecn_marked += c.ecn_marked;
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{stream_rng, Stream};
    use crate::queue::test_util::flow_pkt;
    use cclab_core::wire::packet::Ecn;

    #[test]
    fn fq_codel_new_flow_is_served_before_backlogged_flows() {
        let mut q = FqCodel::new(&FqCodelConfig::default());
        let mut rng = stream_rng(1, Stream::LinkQueue, 0);
        for _ in 0..50 {
            q.enqueue(Time::ZERO, flow_pkt(1, 1500, Ecn::NotEct), &mut rng);
        }
        // Flow 1 spends its first quantum (1514 B: two packets) and moves to the old flows.
        for _ in 0..3 {
            assert_eq!(q.dequeue(Time::ZERO).unwrap().flow().0, 1);
        }
        // A packet of a new flow jumps ahead of the 47 packets still queued.
        q.enqueue(Time::ZERO, flow_pkt(2, 200, Ecn::NotEct), &mut rng);
        assert_eq!(q.dequeue(Time::ZERO).unwrap().flow().0, 2);
        assert_eq!(q.packets(), 47);
        // Flow 2 spends what is left of its first quantum, then the two alternate one quantum each.
        for _ in 0..20 {
            q.enqueue(Time::ZERO, flow_pkt(2, 1500, Ecn::NotEct), &mut rng);
        }
        let order: Vec<u32> = (0..12).map(|_| q.dequeue(Time::ZERO).unwrap().flow().0).collect();
        let flow2 = order.iter().filter(|&&f| f == 2).count();
        assert_eq!(order[..3], [2, 2, 1]);
        assert_eq!(flow2, 7, "order {order:?}");
    }

    #[test]
    fn fq_codel_overflow_drops_from_the_fattest_flow() {
        let cfg = FqCodelConfig {
            limit_packets: 10,
            ..FqCodelConfig::default()
        };
        let mut q = FqCodel::new(&cfg);
        let mut rng = stream_rng(1, Stream::LinkQueue, 0);
        for _ in 0..8 {
            q.enqueue(Time::ZERO, flow_pkt(1, 1500, Ecn::NotEct), &mut rng);
        }
        for _ in 0..3 {
            q.enqueue(Time::ZERO, flow_pkt(2, 1500, Ecn::NotEct), &mut rng);
        }
        assert_eq!(q.packets(), 10);
        assert_eq!(q.stats().dropped_packets, 1);
        assert_eq!(q.queues[1].codel.packets(), 7, "the drop came from flow 1");
        assert_eq!(q.queues[2].codel.packets(), 3);
    }
}
