//! DualPI2, the Dual-Queue Coupled AQM of RFC 9332 (<https://www.rfc-editor.org/rfc/rfc9332>).
//!
//! Packets marked ECT(1) or CE go to the L queue, Not-ECT and ECT(0) to the C queue (§2.5.1).
//! One PI controller updates a base probability `p'` every `tupdate` from the C queue's delay
//! (Appendix A.1, `dualpi2_update`); the C queue drops (or CE-marks ECT(0)) with `p_C = p'²` and
//! the L queue CE-marks with `max(p_CL, native ramp)` where `p_CL = k·p'` (§2.4, the coupling).
//! A weighted scheduler serves L first but guarantees the C queue a share under contention
//! (§4.2.2; Linux `sch_dualpi2`'s `c_protection`).
//!
//! The queue never reads a clock: the PI update runs lazily, catching up on every `tupdate`
//! boundary passed before each enqueue or dequeue. Between two of those calls the queues do not
//! change, so each catch-up step sees the delay it would have seen on time. The random numbers
//! for the dequeue-time decisions are drawn at arrival (the only call given the link's RNG) and
//! stored with the packet: a draw independent of the probability it is later compared with.

use super::fifo::Fifo;
use super::{Queue, QueueStats};
use crate::engine::rng::{uniform, Rng};
use crate::packet::InFlight;
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::Ecn;
use serde::Deserialize;
use std::collections::VecDeque;

/// DualPI2 parameters (RFC 9332 Appendix A.1 defaults, with Linux's `tupdate` and gains).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DualPi2Config {
    /// Classic queue delay target (A.1: 15 ms).
    pub target: Dur,
    /// PI update interval (A.1: `min(target, RTT_max/3)`; Linux 16 ms, the default).
    pub tupdate: Dur,
    /// PI integral gain, Hz (A.1: `0.1·Tupdate/RTT_max²` = 0.16 for RTT_max = 100 ms).
    pub alpha: f64,
    /// PI proportional gain, Hz (A.1 gives `0.3/RTT_max` = 3; Linux and this default 3.2).
    pub beta: f64,
    /// Coupling factor k (§2.4: `p_CL = k·p'`; default 2).
    pub k: f64,
    /// Delay where the L queue's native marking ramp starts (A.1 `minTh`: 800 µs).
    pub min_th: Dur,
    /// Width of that ramp (A.1 `range`: 400 µs); marking reaches 1 at `min_th + range`.
    pub range: Dur,
    /// No native L marking while the L queue holds at most this many packets (A.1 `Th_len`: 1).
    pub th_len: u64,
    /// Share of the link the C queue is guaranteed when both queues are backlogged (Linux
    /// `c_protection`: 10 %).
    pub classic_share: f64,
    /// Both queues together hold at most this many packets (Linux default 10000).
    pub limit_packets: u64,
}

impl Default for DualPi2Config {
    fn default() -> Self {
        DualPi2Config {
            target: Dur::from_millis(15),
            tupdate: Dur::from_millis(16),
            alpha: 0.16,
            beta: 3.2,
            k: 2.0,
            min_th: Dur::from_micros(800),
            range: Dur::from_micros(400),
            th_len: 1,
            classic_share: 0.10,
            limit_packets: 10_000,
        }
    }
}

impl DualPi2Config {
    /// Checks ranges that are valid alone but not together.
    pub fn validate(&self) -> Result<(), String> {
        if self.target.0 == 0 || self.tupdate.0 == 0 {
            Err("DualPI2 needs a positive target and tupdate".into())
        } else if ![self.alpha, self.beta, self.k]
            .iter()
            .all(|v| v.is_finite() && *v >= 0.0)
            || self.k == 0.0
        {
            Err(format!(
                "DualPI2 needs finite alpha, beta >= 0 and k > 0, got {}, {}, {}",
                self.alpha, self.beta, self.k
            ))
        } else if !(self.classic_share > 0.0 && self.classic_share < 1.0) {
            Err(format!(
                "DualPI2 needs classic_share in (0, 1), got {}",
                self.classic_share
            ))
        } else {
            Ok(())
        }
    }
}

/// One of the two queues, with each packet's uniform draw.
#[derive(Debug, Default)]
struct Lane {
    fifo: Fifo,
    draws: VecDeque<f64>,
}

impl Lane {
    fn push(&mut self, p: InFlight, u: f64) {
        self.fifo.push(p);
        self.draws.push_back(u);
    }
    fn pop(&mut self) -> Option<(InFlight, f64)> {
        Some((self.fifo.pop()?, self.draws.pop_front()?))
    }
    /// Sojourn time of the head packet at `now` (A.1 `time()`), zero when empty.
    fn time(&self, now: Time) -> Dur {
        self.fifo
            .front()
            .map_or(Dur::ZERO, |p| now.saturating_since(p.enqueued))
    }
}

/// A DualPI2 queue.
#[derive(Debug)]
pub struct DualPi2 {
    cfg: DualPi2Config,
    l: Lane,
    c: Lane,
    /// Base probability p' of the PI controller.
    p_base: f64,
    /// C queue delay at the previous update (A.1 `prevq`), seconds.
    prev_q: f64,
    next_update: Time,
    /// Scheduler credit: positive means the C queue is owed service.
    credit: f64,
    stats: QueueStats,
}

impl DualPi2 {
    /// An empty DualPI2 queue.
    pub fn new(cfg: &DualPi2Config) -> DualPi2 {
        DualPi2 {
            cfg: cfg.clone(),
            l: Lane::default(),
            c: Lane::default(),
            p_base: 0.0,
            prev_q: 0.0,
            next_update: Time::ZERO + cfg.tupdate,
            credit: 0.0,
            stats: QueueStats::default(),
        }
    }

    /// The base probability p' and the two coupled probabilities: `(p', p_C, p_CL)`, with
    /// RFC 9332 §2.4: `p_C = p'²` (the Classic squaring) and `p_CL = min(k·p', 1)`.
    pub fn probabilities(&self) -> (f64, f64, f64) {
        let p = self.p_base;
        (p, p * p, (self.cfg.k * p).min(1.0))
    }

    /// Runs every PI update due by `now` (A.1 `dualpi2_update`, once per `tupdate`):
    /// `p' += alpha·(curq − target) + beta·(curq − prevq)`, clamped to [0, 1].
    fn catch_up(&mut self, now: Time) {
        while self.next_update <= now {
            let at = self.next_update;
            let curq = self.c.time(at).as_secs_f64();
            if curq == 0.0 && self.prev_q == 0.0 && self.p_base == 0.0 {
                // Fixed point while idle: skip the remaining steps at once.
                let steps = (now.saturating_since(at).0 / self.cfg.tupdate.0) + 1;
                self.next_update = at + self.cfg.tupdate * steps;
                break;
            }
            let target = self.cfg.target.as_secs_f64();
            let p = self.p_base + self.cfg.alpha * (curq - target) + self.cfg.beta * (curq - self.prev_q);
            self.p_base = p.clamp(0.0, 1.0);
            self.prev_q = curq;
            self.next_update = at + self.cfg.tupdate;
        }
    }

    /// The L queue's native ramp on its head's sojourn time (A.1 `laqm`): 0 below `min_th`,
    /// rising linearly to 1 at `min_th + range`, and 0 while the queue is at most `th_len` long.
    fn native_l(&self, sojourn: Dur) -> f64 {
        if (self.l.fifo.len() as u64) <= self.cfg.th_len || sojourn <= self.cfg.min_th {
            0.0
        } else if self.cfg.range.0 == 0 {
            1.0
        } else {
            ((sojourn - self.cfg.min_th).as_secs_f64() / self.cfg.range.as_secs_f64()).min(1.0)
        }
    }

    /// Whether the L queue is served next: it is when only it is backlogged, or when both are
    /// and the C queue is not owed service.
    fn serve_l(&self) -> Option<bool> {
        match (self.l.fifo.is_empty(), self.c.fifo.is_empty()) {
            (true, true) => None,
            (false, true) => Some(true),
            (true, false) => Some(false),
            (false, false) => Some(self.credit <= 0.0),
        }
    }

    fn mark(&mut self, p: &mut InFlight) {
        p.ecn = Ecn::Ce;
        self.stats.ecn_marked += 1;
    }
}

impl Queue for DualPi2 {
    /// A.1 `dualpi2_enqueue`: limit test, timestamp, classify on the ECN field.
    fn enqueue(&mut self, now: Time, mut p: InFlight, rng: &mut Rng) -> bool {
        self.catch_up(now);
        if (self.l.fifo.len() + self.c.fifo.len()) as u64 >= self.cfg.limit_packets {
            self.stats.record_drop(&p);
            return false;
        }
        p.enqueued = now;
        let u = uniform(rng);
        if matches!(p.ecn, Ecn::Ect1 | Ecn::Ce) {
            self.l.push(p, u);
        } else {
            self.c.push(p, u);
        }
        true
    }

    /// A.1 `dualpi2_dequeue`: schedule, then apply the chosen queue's AQM; drops continue the loop.
    fn dequeue(&mut self, now: Time) -> Option<InFlight> {
        self.catch_up(now);
        let (_, p_c, p_cl) = self.probabilities();
        // §4.2.3: once p_CL saturates the L queue is overloaded and drops like the C queue.
        let overloaded = p_cl >= 1.0;
        while let Some(from_l) = self.serve_l() {
            let both = !self.l.fifo.is_empty() && !self.c.fifo.is_empty();
            // A.1 `laqm(lq.time())`: the ramp reads the head's sojourn before it leaves.
            let native = if from_l { self.native_l(self.l.time(now)) } else { 0.0 };
            let lane = if from_l { &mut self.l } else { &mut self.c };
            let (mut p, u) = lane.pop().expect("scheduled lane is backlogged");
            if both {
                let share = self.cfg.classic_share;
                self.credit += if from_l { share } else { share - 1.0 } * p.size() as f64;
            }
            if from_l {
                if overloaded && u < p_c {
                    self.stats.record_drop(&p);
                    continue;
                }
                // A.1: p_L = max(native ramp, coupled p_CL).
                let p_l = native.max(p_cl);
                if u < p_l {
                    self.mark(&mut p);
                }
                return Some(p);
            }
            if u < p_c {
                if p.ecn == Ecn::Ect0 {
                    self.mark(&mut p);
                    return Some(p);
                }
                self.stats.record_drop(&p);
                continue;
            }
            return Some(p);
        }
        None
    }
    fn bytes(&self) -> u64 {
        self.l.fifo.bytes() + self.c.fifo.bytes()
    }
    fn packets(&self) -> usize {
        self.l.fifo.len() + self.c.fifo.len()
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
    fn dualpi2_pi_update_and_coupling() {
        // One Classic packet waits from t = 0. RFC 9332 A.1 update with alpha 0.16, beta 3.2,
        // target 15 ms: at 16 ms curq = 16 ms, p' = 0.16·0.001 + 3.2·0.016 = 0.05136; at 32 ms
        // p' += 0.16·0.017 + 3.2·0.016 = 0.05392 → 0.10528. Then §2.4: p_C = p'², p_CL = 2·p'.
        let mut q = DualPi2::new(&DualPi2Config::default());
        let mut rng = stream_rng(1, Stream::LinkQueue, 0);
        assert!(q.enqueue(Time::ZERO, pkt(1500, Ecn::NotEct), &mut rng));
        q.catch_up(Time(16_000_000));
        assert!((q.probabilities().0 - 0.05136).abs() < 1e-12, "{:?}", q.probabilities());
        q.catch_up(Time(32_000_000));
        let (p, p_c, p_cl) = q.probabilities();
        assert!((p - 0.10528).abs() < 1e-12, "p' {p}");
        assert!((p_c - p * p).abs() < 1e-15 && (p_cl - 2.0 * p).abs() < 1e-15);
    }

    #[test]
    fn dualpi2_marks_l_at_k_p_and_c_at_p_squared() {
        // Hold p' at 0.2 (no updates fall inside the window) and pass 20000 packets of each kind
        // one at a time: L packets are CE-marked with p_CL = 0.4, ECT(0) C packets with p_C = 0.04.
        let cfg = DualPi2Config {
            tupdate: Dur::from_secs(1000),
            ..DualPi2Config::default()
        };
        let mut q = DualPi2::new(&cfg);
        q.p_base = 0.2;
        let mut rng = stream_rng(7, Stream::LinkQueue, 0);
        let n = 20_000;
        let mut marked = [0u32; 2];
        for (i, ecn) in [Ecn::Ect1, Ecn::Ect0].into_iter().enumerate() {
            for j in 0..n {
                let t = Time(j as u64 * 1000);
                q.enqueue(t, pkt(1500, ecn), &mut rng);
                marked[i] += (q.dequeue(t).unwrap().ecn == Ecn::Ce) as u32;
            }
        }
        let share = |m: u32| m as f64 / n as f64;
        assert!((share(marked[0]) - 0.4).abs() < 0.015, "L marked {}", share(marked[0]));
        assert!((share(marked[1]) - 0.04).abs() < 0.005, "C marked {}", share(marked[1]));
    }

    #[test]
    fn dualpi2_classifies_on_ect1_and_protects_classic() {
        // Both queues backlogged with equal-sized packets: the L queue is served first, and the
        // C queue receives its 10 % share (one packet in ten).
        let mut q = DualPi2::new(&DualPi2Config::default());
        let mut rng = stream_rng(3, Stream::LinkQueue, 0);
        for _ in 0..200 {
            q.enqueue(Time::ZERO, pkt(1500, Ecn::Ect1), &mut rng);
            q.enqueue(Time::ZERO, pkt(1500, Ecn::NotEct), &mut rng);
        }
        let order: Vec<bool> = (0..100)
            .map(|_| q.dequeue(Time::ZERO).unwrap().ecn != Ecn::NotEct)
            .collect();
        assert!(order[0], "L first");
        let classic = order.iter().filter(|l| !**l).count();
        assert!((9..=11).contains(&classic), "C served {classic} of 100");
    }
}
