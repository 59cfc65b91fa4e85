//! PIE, Proportional Integral controller Enhanced (RFC 8033,
//! <https://www.rfc-editor.org/rfc/rfc8033>).
//!
//! Every `t_update` a PI controller moves the drop probability by
//! `alpha·(qdelay − target) + beta·(qdelay − qdelay_old)`, scaled down while the probability is
//! small (§4.2 auto-tuning); arrivals are dropped at random with that probability (§4.1) unless
//! the burst allowance (§4.4) or the work-conserving safeguard (§5.1 `drop_early`) lets them in.
//! `qdelay` is the head packet's sojourn time (timestamps, as Linux `sch_pie` by default, instead
//! of §4.3's departure-rate estimate). With `ecn = true`, ECN-capable arrivals are CE-marked
//! instead of dropped while the probability is at most `mark_ecn_threshold` (§5.1).
//!
//! The queue never reads a clock: updates run lazily on the `t_update` boundaries passed before
//! each enqueue or dequeue; the queue does not change between those calls, so each catch-up
//! step sees the delay it would have seen on time.

use super::fifo::Fifo;
use super::{Queue, QueueStats};
use crate::engine::rng::{uniform, Rng};
use crate::packet::InFlight;
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::Ecn;
use serde::Deserialize;

/// PIE parameters (RFC 8033 §4 and §5 defaults).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PieConfig {
    /// Queue delay reference, QDELAY_REF (default 15 ms).
    pub target: Dur,
    /// Probability update interval, T_UPDATE (default 15 ms).
    pub t_update: Dur,
    /// Integral gain, Hz (default 0.125).
    pub alpha: f64,
    /// Proportional gain, Hz (default 1.25).
    pub beta: f64,
    /// Burst allowance, MAX_BURST (default 150 ms).
    pub max_burst: Dur,
    /// Physical queue size in packets (default 1000, as Linux).
    pub limit_packets: u64,
    /// CE-mark ECN-capable packets instead of dropping them (default false).
    pub ecn: bool,
    /// Above this probability ECN-capable packets are dropped too (§5.1: 10 %).
    pub mark_ecn_threshold: f64,
}

impl Default for PieConfig {
    fn default() -> Self {
        PieConfig {
            target: Dur::from_millis(15),
            t_update: Dur::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            max_burst: Dur::from_millis(150),
            limit_packets: 1000,
            ecn: false,
            mark_ecn_threshold: 0.1,
        }
    }
}

/// Mean packet size for the §5.1 safeguard (`2 * MEAN_PKTSIZE`), bytes.
const MEAN_PACKET_SIZE: u64 = 1500;

/// A PIE queue.
#[derive(Debug)]
pub struct Pie {
    cfg: PieConfig,
    fifo: Fifo,
    drop_prob: f64,
    /// Queue delay at the previous update, seconds.
    qdelay_old: f64,
    burst_allowance: Dur,
    next_update: Time,
    stats: QueueStats,
}

impl Pie {
    /// An empty PIE queue (burst allowance full, §4.4).
    pub fn new(cfg: &PieConfig) -> Pie {
        Pie {
            cfg: cfg.clone(),
            fifo: Fifo::default(),
            drop_prob: 0.0,
            qdelay_old: 0.0,
            burst_allowance: cfg.max_burst,
            next_update: Time::ZERO + cfg.t_update,
            stats: QueueStats::default(),
        }
    }

    /// Current drop probability.
    pub fn drop_probability(&self) -> f64 {
        self.drop_prob
    }

    /// Runs every update due by `now` (§4.2 `calculate_drop_prob`, §4.4 burst allowance).
    fn catch_up(&mut self, now: Time) {
        while self.next_update <= now {
            let at = self.next_update;
            let qdelay = self
                .fifo
                .front()
                .map_or(0.0, |p| at.saturating_since(p.enqueued).as_secs_f64());
            if qdelay == 0.0 && self.qdelay_old == 0.0 && self.drop_prob == 0.0 {
                // Fixed point while idle: skip the remaining steps at once.
                let steps = now.saturating_since(at).0 / self.cfg.t_update.0 + 1;
                self.next_update = at + self.cfg.t_update * steps;
                self.burst_allowance = self.cfg.max_burst;
                break;
            }
            self.update(qdelay);
            self.next_update = at + self.cfg.t_update;
        }
    }

    /// One §4.2 update with the current queue delay `qdelay` (seconds).
    fn update(&mut self, qdelay: f64) {
        let target = self.cfg.target.as_secs_f64();
        let mut p = self.cfg.alpha * (qdelay - target) + self.cfg.beta * (qdelay - self.qdelay_old);
        // §4.2: scale the step down while the probability is small, so it can settle there.
        p /= match self.drop_prob {
            d if d < 0.000_001 => 2048.0,
            d if d < 0.000_01 => 512.0,
            d if d < 0.000_1 => 128.0,
            d if d < 0.001 => 32.0,
            d if d < 0.01 => 8.0,
            d if d < 0.1 => 2.0,
            _ => 1.0,
        };
        // §4.2: at high probabilities a single step adds at most 2 %.
        if self.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob += p;
        // §4.2: decay while the queue stays empty.
        if qdelay == 0.0 && self.qdelay_old == 0.0 {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        // §4.4: the burst allowance drains by T_UPDATE and refills once the queue is calm.
        self.burst_allowance = self.burst_allowance.saturating_sub(self.cfg.t_update);
        if self.drop_prob == 0.0 && qdelay < target / 2.0 && self.qdelay_old < target / 2.0 {
            self.burst_allowance = self.cfg.max_burst;
        }
        self.qdelay_old = qdelay;
    }

    /// §5.1 `drop_early`: whether an arrival is subject to the random drop at all.
    fn may_drop(&self) -> bool {
        let calm = self.qdelay_old < self.cfg.target.as_secs_f64() / 2.0 && self.drop_prob < 0.2;
        self.burst_allowance.0 == 0 && !calm && self.fifo.bytes() > 2 * MEAN_PACKET_SIZE
    }
}

impl Queue for Pie {
    fn enqueue(&mut self, now: Time, mut p: InFlight, rng: &mut Rng) -> bool {
        self.catch_up(now);
        if self.fifo.len() as u64 >= self.cfg.limit_packets {
            self.stats.record_drop(&p);
            return false;
        }
        if self.may_drop() && uniform(rng) < self.drop_prob {
            let ect = matches!(p.ecn, Ecn::Ect0 | Ecn::Ect1 | Ecn::Ce);
            if self.cfg.ecn && ect && self.drop_prob <= self.cfg.mark_ecn_threshold {
                p.ecn = Ecn::Ce;
                self.stats.ecn_marked += 1;
            } else {
                self.stats.record_drop(&p);
                return false;
            }
        }
        p.enqueued = now;
        self.fifo.push(p);
        true
    }
    fn dequeue(&mut self, now: Time) -> Option<InFlight> {
        self.catch_up(now);
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{stream_rng, Stream};
    use crate::queue::test_util::pkt;

    #[test]
    fn pie_drop_probability_update_is_autotuned() {
        // One packet waits from t = 0; updates every 15 ms (RFC 8033 §4.2):
        // 15 ms: p = 0.125·0 + 1.25·0.015 = 0.01875, prob < 1e-6 → /2048 → 9.155e-6;
        // 30 ms: p = 0.125·0.015 + 1.25·0.015 = 0.020625, prob < 1e-5 → /512 → + 4.028e-5.
        let mut q = Pie::new(&PieConfig::default());
        let mut rng = stream_rng(1, Stream::LinkQueue, 0);
        q.enqueue(Time::ZERO, pkt(1500, Ecn::NotEct), &mut rng);
        q.catch_up(Time(15_000_000));
        let p1 = 0.01875 / 2048.0;
        assert!((q.drop_probability() - p1).abs() < 1e-15, "{}", q.drop_probability());
        q.catch_up(Time(30_000_000));
        let p2 = p1 + 0.020625 / 512.0;
        assert!((q.drop_probability() - p2).abs() < 1e-15, "{}", q.drop_probability());
        // The burst allowance (150 ms) has drained by two updates.
        assert_eq!(q.burst_allowance, Dur::from_millis(120));
    }

    #[test]
    fn pie_caps_large_steps_and_decays_when_empty() {
        let mut q = Pie::new(&PieConfig::default());
        q.drop_prob = 0.3;
        q.update(0.5); // a huge step is capped at +0.02
        assert!((q.drop_prob - 0.32).abs() < 1e-12, "{}", q.drop_prob);
        q.qdelay_old = 0.0;
        q.drop_prob = 0.3;
        // Empty queue: p = −alpha·target = −0.001875 (no scaling at 0.3), then ×0.98.
        q.update(0.0);
        assert!((q.drop_prob - (0.3 - 0.001875) * 0.98).abs() < 1e-12, "{}", q.drop_prob);
    }

    #[test]
    fn pie_drops_at_its_probability_once_the_burst_allowance_is_spent() {
        let mut q = Pie::new(&PieConfig::default());
        let mut rng = stream_rng(5, Stream::LinkQueue, 0);
        q.drop_prob = 0.25;
        q.qdelay_old = 0.030;
        // Inside the burst allowance nothing is dropped early.
        for _ in 0..100 {
            assert!(q.enqueue(Time::ZERO, pkt(1500, Ecn::NotEct), &mut rng));
        }
        q.burst_allowance = Dur::ZERO;
        let n = 20_000;
        let dropped = (0..n)
            .filter(|_| {
                // Keep the backlog at 100 packets (above the §5.1 two-packet safeguard).
                let ok = q.enqueue(Time::ZERO, pkt(1500, Ecn::NotEct), &mut rng);
                if ok {
                    q.dequeue(Time::ZERO);
                }
                !ok
            })
            .count();
        let rate = dropped as f64 / n as f64;
        assert!((rate - 0.25).abs() < 0.015, "drop rate {rate}");
    }
}
