//! Intervals between consecutive ACK packets of one flow, in bounded memory.
//!
//! Short runs keep every interval and report exact nearest-rank quantiles. Past
//! [`EXACT_MAX`] intervals the values move into a DDSketch (Masson, Rim, Lee, "DDSketch: A
//! Fast and Fully-Mergeable Quantile Sketch with Relative-Error Guarantees", VLDB 2019, §2),
//! whose quantiles are within [`SKETCH_ALPHA`] of a true value at the requested rank, in a
//! fixed number of bins: a 100 GB transfer no longer keeps 4 bytes per ACK.

use cclab_core::time::{Dur, Time};
use sketches_ddsketch::{Config, DDSketch};

/// Intervals kept exactly per flow (16 KB as u32) before switching to the sketch.
pub const EXACT_MAX: usize = 4096;
/// Relative accuracy of the sketch's quantiles (0.5 %).
pub const SKETCH_ALPHA: f64 = 0.005;
/// Bins of the sketch: with α = 0.5 % one bin spans 1 % of value, so 4096 bins cover
/// 1 ns to beyond 10^17 ns; the sketch never collapses bins on ACK intervals.
const SKETCH_BINS: u32 = 4096;

/// Where the intervals are.
#[derive(Clone)]
enum Store {
    /// Every interval: 4 bytes below 2^32 ns (4.29 s), 8 for the rare longer one (boxed, allocated
    /// at the first: the accumulator stays within one cache line).
    Exact {
        short_ns: Vec<u32>,
        #[allow(
            clippy::box_collection,
            reason = "a pointer, not a vector's three words, keeps the accumulator in one line"
        )]
        long_ns: Option<Box<Vec<u64>>>,
    },
    /// Past `EXACT_MAX` intervals (boxed: the sketch is larger than the vectors), and the latest run of
    /// equal intervals (value in ns, count) not yet added: a paced flow repeats one interval many times,
    /// and each `add` takes a logarithm. The sketch reads only bin counts, so adding a run at once
    /// gives the same quantiles as adding its values one by one.
    Sketch(Box<DDSketch>, (u64, u64)),
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Store::Exact { short_ns, long_ns } => {
                write!(
                    f,
                    "Exact({} intervals)",
                    short_ns.len() + long_ns.as_ref().map_or(0, |l| l.len())
                )
            }
            Store::Sketch(sk, run) => write!(f, "Sketch({} intervals)", sk.count() as u64 + run.1),
        }
    }
}

impl Default for Store {
    fn default() -> Self {
        Store::Exact {
            short_ns: Vec::new(),
            long_ns: None,
        }
    }
}

/// Intervals between consecutive ACK packets of one flow, recorded as the receiver sends them.
///
/// O(1) per ACK and at most [`EXACT_MAX`] stored values; the count and sum are exact. One cache
/// line (aligned to it): with thousands of flows every ACK touches a cold accumulator, and what
/// it updates then sits in one line, not two.
#[derive(Clone, Debug, Default)]
#[repr(align(64))]
pub struct AckIntervalStats {
    /// ACK packets recorded (one more than the intervals, once there is one).
    acks: u64,
    /// Time of the latest, ns (meaningless while `acks` is 0).
    last_ns: u64,
    /// Sum of the intervals, ns: the latest time less the first, so it fits a `u64` as times do.
    sum_ns: u64,
    store: Store,
}

const _: () = assert!(size_of::<AckIntervalStats>() == 64);

/// Mean and quantiles of the ACK intervals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IntervalSummary {
    /// Number of intervals (ACKs − 1).
    pub count: u64,
    /// Mean interval, s.
    pub mean_s: f64,
    /// Median (nearest rank; within [`SKETCH_ALPHA`] once sketched).
    pub p50: Dur,
    /// 99th percentile (nearest rank; within [`SKETCH_ALPHA`] once sketched).
    pub p99: Dur,
}

fn sketch() -> DDSketch {
    // Intervals are whole nanoseconds; 0 ns (two ACKs in one instant) goes to the sketch's zero bin.
    DDSketch::new(Config::new(SKETCH_ALPHA, SKETCH_BINS, 1.0))
}

/// Adds `values` to `sk` one run of equal neighbours at a time, as `record` adds to a sketch: each `add`
/// takes a logarithm (~125 instructions), and a paced flow's 4,097 kept intervals are a few hundred runs
/// (on 100 MB at 10 Gbit/s the move to the sketch cost 0.52 M instructions, a sixth of the ACKs' records).
fn add_runs(sk: &mut DDSketch, values: impl Iterator<Item = u64>) {
    let mut run = (0, 0);
    for v in values {
        if run.1 > 0 && v == run.0 {
            run.1 += 1;
        } else {
            sk.add_with_count(run.0 as f64, run.1);
            run = (v, 1);
        }
    }
    sk.add_with_count(run.0 as f64, run.1);
}

impl AckIntervalStats {
    /// Empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts loading where the next interval is stored while they are kept exactly (a prefetch hint).
    #[inline]
    pub fn prefetch_tail(&self) {
        if let Store::Exact { short_ns, .. } = &self.store {
            cclab_core::prefetch::prefetch_bytes(short_ns.as_ptr_range().end as usize, 1);
        }
    }

    /// An ACK packet left the receiver at `now` (non-decreasing).
    pub fn record(&mut self, now: Time) {
        let last = std::mem::replace(&mut self.last_ns, now.0);
        self.acks += 1;
        if self.acks == 1 {
            return;
        }
        let d = now.0.saturating_sub(last);
        self.sum_ns += d;
        match &mut self.store {
            Store::Exact { short_ns, long_ns } => {
                match u32::try_from(d) {
                    Ok(short) => short_ns.push(short),
                    Err(_) => long_ns.get_or_insert_default().push(d),
                }
                let long = long_ns.as_deref().map_or(&[][..], Vec::as_slice);
                if short_ns.len() + long.len() > EXACT_MAX {
                    let mut sk = sketch();
                    add_runs(&mut sk, short_ns.iter().map(|&v| v as u64).chain(long.iter().copied()));
                    self.store = Store::Sketch(Box::new(sk), (0, 0));
                }
            }
            Store::Sketch(_, (v, n)) if *v == d => *n += 1,
            Store::Sketch(sk, run) => {
                sk.add_with_count(run.0 as f64, run.1);
                *run = (d, 1);
            }
        }
    }

    /// Number of intervals recorded.
    pub fn count(&self) -> u64 {
        self.acks.saturating_sub(1)
    }

    /// The intervals are still kept exactly.
    pub fn is_exact(&self) -> bool {
        matches!(self.store, Store::Exact { .. })
    }

    /// Mean, p50 and p99; `None` with fewer than two ACKs.
    ///
    /// Quantile q is the nearest-rank value: the ⌈q·n⌉-th smallest interval (1-based), always
    /// an interval that occurred; once sketched, a value within [`SKETCH_ALPHA`] of one.
    pub fn intervals(&self) -> Option<IntervalSummary> {
        let n = self.count();
        if n == 0 {
            return None;
        }
        let nearest_rank = |q_percent: u64| (q_percent * n).div_ceil(100);
        let (p50, p99) = match &self.store {
            Store::Exact { short_ns, long_ns } => {
                let mut short = short_ns.clone();
                short.sort_unstable();
                let mut long = long_ns.as_deref().cloned().unwrap_or_default();
                long.sort_unstable();
                // Every long interval exceeds every short one, so `short ++ long` is sorted.
                let at = |rank: u64| -> Dur {
                    let i = (rank.max(1) - 1) as usize;
                    Dur(short.get(i).map_or_else(|| long[i - short.len()], |&v| v as u64))
                };
                (at(nearest_rank(50)), at(nearest_rank(99)))
            }
            Store::Sketch(sk, run) => {
                let mut sk = sk.clone();
                sk.add_with_count(run.0 as f64, run.1);
                // The sketch reads rank ⌊q·(n−1)⌋ (0-based); asking for the nearest rank's q keeps the same rule.
                let at = |rank: u64| -> Dur {
                    let q = (rank.max(1) - 1) as f64 / (n - 1).max(1) as f64;
                    let v = sk.quantile(q.min(1.0)).ok().flatten().unwrap_or(0.0);
                    Dur(v.round() as u64)
                };
                (at(nearest_rank(50)), at(nearest_rank(99)))
            }
        };
        Some(IntervalSummary {
            count: n,
            mean_s: self.sum_ns as f64 / n as f64 / 1e9,
            p50,
            p99,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acks_at(times_us: &[u64]) -> AckIntervalStats {
        let mut s = AckIntervalStats::new();
        for &t in times_us {
            s.record(Time(t * 1_000));
        }
        s
    }

    #[test]
    fn ack_intervals_nearest_rank_on_known_data() {
        // Intervals 1..=100 µs in shuffled order: mean 50.5 µs, p50 = 50th = 50 µs,
        // p99 = 99th = 99 µs.
        let mut t = 0;
        let mut times = vec![0];
        for k in (1..=100u64).map(|i| (i * 37) % 101) {
            t += k;
            times.push(t);
        }
        let s = acks_at(&times).intervals().unwrap();
        assert_eq!(s.count, 100);
        assert!((s.mean_s - 50.5e-6).abs() < 1e-15);
        assert_eq!(s.p50, Dur::from_micros(50));
        assert_eq!(s.p99, Dur::from_micros(99));
    }

    #[test]
    fn ack_intervals_longer_than_u32_stay_exact() {
        // Intervals 1 ms, 2 ms, 10 s: p50 = 2nd = 2 ms, p99 = 3rd = 10 s, mean = 10.003/3 s.
        let s = acks_at(&[0, 1_000, 3_000, 10_003_000]).intervals().unwrap();
        assert_eq!(s.p50, Dur::from_millis(2));
        assert_eq!(s.p99, Dur::from_secs(10));
        assert!((s.mean_s - 10.003 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn ack_intervals_need_two_acks() {
        assert_eq!(acks_at(&[]).intervals(), None);
        assert_eq!(acks_at(&[5]).intervals(), None);
    }

    #[test]
    fn ack_intervals_switch_to_a_sketch_within_its_accuracy() {
        // Intervals cycle through 1..=1000 µs, 100 times: exact p50 = 500 µs, p99 = 990 µs.
        let mut s = AckIntervalStats::new();
        let mut t = 0;
        s.record(Time(0));
        for i in 0..100_000u64 {
            t += (i % 1000 + 1) * 1_000;
            s.record(Time(t));
        }
        assert!(!s.is_exact());
        let r = s.intervals().unwrap();
        assert_eq!(r.count, 100_000);
        assert!((r.mean_s - 500.5e-6).abs() < 1e-12);
        let close = |got: Dur, want: f64| (got.as_nanos() as f64 / want - 1.0).abs() <= SKETCH_ALPHA * 1.01;
        assert!(close(r.p50, 500_000.0), "{:?}", r.p50);
        assert!(close(r.p99, 990_000.0), "{:?}", r.p99);
    }

    #[test]
    fn ack_intervals_runs_of_equal_intervals_give_the_sketch_of_every_value() {
        // Runs of 1 to 7 equal intervals, zeros included, against a sketch fed each value on its own.
        let mut s = AckIntervalStats::new();
        let mut want = sketch();
        let (mut t, mut n) = (0u64, 0u64);
        s.record(Time(0));
        for i in 0..20_000u64 {
            let d = (i * 7919) % 13 * 1_000;
            for _ in 0..i % 7 + 1 {
                t += d;
                s.record(Time(t));
                want.add(d as f64);
                n += 1;
            }
        }
        assert!(!s.is_exact());
        let r = s.intervals().unwrap();
        assert_eq!(r.count, n);
        let q = |rank: u64| {
            let v = want.quantile((rank - 1) as f64 / (n - 1) as f64).unwrap().unwrap();
            Dur(v.round() as u64)
        };
        assert_eq!(r.p50, q((50 * n).div_ceil(100)));
        assert_eq!(r.p99, q((99 * n).div_ceil(100)));
        // Every quantile, not just the two reported, reads the same bins.
        let Store::Sketch(sk, run) = &s.store else {
            panic!("sketched")
        };
        let mut got = (**sk).clone();
        got.add_with_count(run.0 as f64, run.1);
        for k in 0..=100 {
            let at = |sk: &DDSketch| sk.quantile(k as f64 / 100.0).unwrap();
            assert_eq!(at(&got), at(&want), "q = {k}%");
        }
    }

    #[test]
    fn ack_intervals_move_to_the_sketch_by_runs_as_if_value_by_value() {
        // The kept intervals, in runs of 4 (zeros among them) with the long ones (beyond 2^32 ns) kept apart, move to
        // the sketch at the 4,097th: its count and every quantile (minimum and maximum included) are those
        // of a sketch fed every value on its own.
        let mut s = AckIntervalStats::new();
        let mut want = sketch();
        let mut t = 0u64;
        s.record(Time(0));
        for i in 0..=EXACT_MAX as u64 {
            let d = if i % 1000 == 999 {
                5_000_000_000 + i
            } else {
                i / 4 % 11 * 1_000
            };
            t += d;
            s.record(Time(t));
            want.add(d as f64);
        }
        let Store::Sketch(sk, run) = &s.store else {
            panic!("sketched at {} intervals", EXACT_MAX + 1)
        };
        assert_eq!(*run, (0, 0));
        assert_eq!(sk.count(), EXACT_MAX + 1);
        for k in 0..=100 {
            let at = |sk: &DDSketch| sk.quantile(k as f64 / 100.0).unwrap();
            assert_eq!(at(sk), at(&want), "q = {k}%");
        }
    }

    #[test]
    fn ack_intervals_stay_exact_up_to_the_limit() {
        let mut s = AckIntervalStats::new();
        for i in 0..=EXACT_MAX as u64 {
            s.record(Time(i * 7));
        }
        assert!(s.is_exact());
        assert_eq!(s.intervals().unwrap().p99, Dur(7));
        s.record(Time(EXACT_MAX as u64 * 7 + 7));
        assert!(!s.is_exact());
    }
}
