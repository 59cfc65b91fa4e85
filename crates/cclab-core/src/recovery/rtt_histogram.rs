//! Every RTT sample of a connection in bounded memory, for the percentiles in `summary.json`.
//!
//! Log-linear buckets (the HDR-histogram layout): each power of two of nanoseconds is split into
//! 32 equal sub-buckets, so a bucket spans at most 1/32 of its values (≤ 3.2 % relative error)
//! and recording a sample is a leading-zero count and a shift, no logarithm. Of the 1,920 buckets
//! (values below 32 ns exactly, then 32 per power of two up to 2^64 ns) only the span between the
//! smallest and largest sample is allocated (`u32`s, grown as samples leave it): a path whose RTT
//! stays within a factor of 4 needs ~64 buckets, 256 bytes, where all of them took 7.5 KiB per
//! connection (with 10,000 flows, 75 MB of mostly zeros).

use crate::time::Dur;

const SUB_BITS: u32 = 5;
const SUB: usize = 1 << SUB_BITS;
const BUCKETS: usize = (64 - SUB_BITS as usize + 1) * SUB;

/// Buckets added beyond a new sample when the span grows, so a slowly widening RTT range
/// reallocates every few buckets, not at each one.
const GROW_SLACK: usize = 8;

/// Counts of RTT samples by magnitude.
#[derive(Clone, Debug, Default)]
pub struct RttHistogram {
    /// Counts of buckets `first..first + counts.len()` (every other bucket is empty).
    counts: Vec<u32>,
    first: usize,
    total: u64,
    min: Dur,
    max: Dur,
    /// Samples not yet in `counts`, as `(bucket, samples)` for the two buckets used last, the latest
    /// first (count 0 = unused). Consecutive RTT samples mostly share a bucket or step back and forth
    /// between two neighbours (at 10,000 flows, 88 % of samples fell in the latest sample's bucket and
    /// 8 % in the next one), and `counts` lives apart from the sender: with thousands of flows each
    /// add there is a cold line read before it can be written, so only a third bucket flushes one.
    runs: [(u32, u32); 2],
    /// The values of `runs[0]`'s bucket, `[lo, lo + width)` as `(lo, width)`; width 0 while it holds no
    /// run: a sample in it is counted with a subtraction and a comparison, not its bucket worked out.
    latest_span: (u64, u64),
}

/// The bucket of `ns` and the smallest value in it.
fn bucket(ns: u64) -> usize {
    if ns < SUB as u64 {
        return ns as usize;
    }
    let e = 63 - ns.leading_zeros(); // ns in [2^e, 2^(e+1))
    let sub = (ns >> (e - SUB_BITS)) as usize & (SUB - 1);
    (e - SUB_BITS + 1) as usize * SUB + sub
}

/// The smallest value in bucket `i` (inverse of `bucket` on bucket boundaries); `u64::MAX` past
/// the last bucket.
fn lower_bound(i: usize) -> u64 {
    if i < SUB {
        return i as u64;
    }
    if i >= BUCKETS {
        return u64::MAX;
    }
    let (e, sub) = ((i / SUB) as u32 + SUB_BITS - 1, (i % SUB) as u64);
    (1u64 << e) + (sub << (e - SUB_BITS))
}

impl RttHistogram {
    /// Counts one sample. Inlined into the sender's ACK handling (the widening stays a call): always, as
    /// LLVM's own choice made it a call when 64-byte sent records grew that handling (+18 instructions an ACK).
    #[inline(always)]
    pub fn record(&mut self, rtt: Dur) {
        let (lo, width) = self.latest_span;
        let latest = &mut self.runs[0];
        if rtt.0.wrapping_sub(lo) < width && latest.1 < u32::MAX {
            latest.1 += 1;
        } else {
            self.record_by_bucket(rtt);
        }
        self.min = if self.total == 0 { rtt } else { self.min.min(rtt) };
        self.max = self.max.max(rtt);
        self.total += 1;
    }

    /// Counts a sample outside the latest run's bucket (or in a full run).
    #[inline(never)]
    fn record_by_bucket(&mut self, rtt: Dur) {
        let b = bucket(rtt.0) as u32;
        let [latest, other] = &mut self.runs;
        if latest.1 > 0 && latest.0 == b && latest.1 < u32::MAX {
            latest.1 += 1;
        } else if other.1 > 0 && other.0 == b && other.1 < u32::MAX {
            other.1 += 1;
            self.runs.swap(0, 1);
        } else {
            self.flush_run(1);
            self.runs = [(b, 1), self.runs[0]];
        }
        let lo = lower_bound(self.runs[0].0 as usize);
        self.latest_span = (lo, lower_bound(self.runs[0].0 as usize + 1) - lo);
    }

    /// Adds pending run `i` of samples to `counts` (saturating, as adding them one by one would).
    fn flush_run(&mut self, i: usize) {
        let (b, n) = std::mem::take(&mut self.runs[i]);
        let b = b as usize;
        if n == 0 {
            return;
        }
        if self.counts.is_empty() {
            self.first = b;
            self.counts.push(0);
        } else if b < self.first || b >= self.first + self.counts.len() {
            self.widen(b);
        }
        let c = &mut self.counts[b - self.first];
        *c = c.saturating_add(n);
    }

    /// Grows the span to include bucket `b` (outside it), with `GROW_SLACK` more on that side.
    #[cold]
    fn widen(&mut self, b: usize) {
        if b < self.first {
            let first = b.saturating_sub(GROW_SLACK);
            self.counts.splice(0..0, std::iter::repeat_n(0, self.first - first));
            self.first = first;
        } else {
            self.counts.resize((b + 1 + GROW_SLACK).min(BUCKETS) - self.first, 0);
        }
    }

    fn flush_all(&mut self) {
        self.latest_span = (0, 0);
        self.flush_run(0);
        self.flush_run(1);
    }

    /// Samples recorded.
    pub fn count(&self) -> u64 {
        self.total
    }

    /// The `q` quantile (0..=1, nearest rank), as the midpoint of its bucket clamped to the
    /// smallest and largest sample; `None` before any sample.
    pub fn quantile(&self, q: f64) -> Option<Dur> {
        if self.total == 0 {
            return None;
        }
        if self.runs.iter().any(|r| r.1 > 0) {
            // Read at the end of a run, a few times: a copy with the pending runs added is cheap.
            let mut all = self.clone();
            all.flush_all();
            return all.quantile(q);
        }
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (i, &n) in (self.first..).zip(&self.counts) {
            seen += n as u64;
            if seen >= rank {
                let (lo, hi) = (lower_bound(i), lower_bound(i + 1));
                return Some(Dur(lo + (hi - lo) / 2).clamp(self.min, self.max));
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rtt_histogram_buckets_tile_the_line() {
        for i in 0..BUCKETS - 1 {
            assert_eq!(bucket(lower_bound(i)), i, "bucket {i}");
            assert_eq!(bucket(lower_bound(i + 1) - 1), i, "end of bucket {i}");
        }
        assert_eq!(bucket(u64::MAX), BUCKETS - 1);
    }

    #[test]
    fn rtt_histogram_quantiles_are_within_the_bucket_width() {
        let mut h = RttHistogram::default();
        // 1..=1000 µs: the median is 500 µs, p99 990 µs.
        for us in 1..=1000u64 {
            h.record(Dur::from_micros(us));
        }
        let within = |got: Dur, want: f64| ((got.0 as f64 - want) / want).abs() <= 1.0 / SUB as f64;
        assert!(within(h.quantile(0.5).unwrap(), 500_000.0), "{:?}", h.quantile(0.5));
        assert!(within(h.quantile(0.99).unwrap(), 990_000.0), "{:?}", h.quantile(0.99));
        assert_eq!(h.quantile(1.0), Some(Dur::from_micros(1000)));
        assert_eq!(h.quantile(0.0), Some(Dur::from_micros(1)));
        assert_eq!(RttHistogram::default().quantile(0.5), None);
    }

    #[test]
    fn rtt_histogram_latest_run_takes_exactly_its_bucket() {
        // Samples at both edges of the latest run's bucket and just outside it, with a quantile read (which
        // flushes a copy) between them: each lands in its own bucket, as counted one by one.
        let b = bucket(20_000_000);
        let (lo, hi) = (lower_bound(b), lower_bound(b + 1));
        let mut h = RttHistogram::default();
        let mut want = vec![0u64; BUCKETS];
        for ns in [lo, hi - 1, hi, lo - 1, lo, hi - 1, lo, u64::MAX, u64::MAX, 0, 0] {
            h.record(Dur(ns));
            want[bucket(ns)] += 1;
            h.quantile(0.5);
        }
        h.flush_all();
        for (i, &n) in want.iter().enumerate() {
            let got = i
                .checked_sub(h.first)
                .and_then(|j| h.counts.get(j))
                .map_or(0, |&n| n as u64);
            assert_eq!(got, n, "bucket {i}");
        }
    }

    #[test]
    fn rtt_histogram_two_alternating_buckets_stay_pending() {
        // RTT stepping between two neighbouring buckets touches no counts until a third one comes.
        let (a, b) = (20_000_000u64, 20_600_000u64);
        assert_ne!(bucket(a), bucket(b));
        let mut h = RttHistogram::default();
        for i in 0..100 {
            h.record(Dur(if i % 3 == 0 { a } else { b }));
        }
        assert!(h.counts.is_empty(), "{} buckets allocated", h.counts.len());
        // Bucket midpoints, clamped to the largest sample.
        let mid = (lower_bound(bucket(a)) + lower_bound(bucket(a) + 1)) / 2;
        assert_eq!(h.quantile(0.3), Some(Dur(mid)));
        assert_eq!(h.quantile(0.5), Some(Dur(b)));
        h.record(Dur(40_000_000));
        // The bucket used less recently (b: the 100th sample was a) went to `counts`; a and the new one are pending.
        assert_eq!(h.counts.iter().map(|&n| n as u64).sum::<u64>(), 66);
        assert_eq!(h.count(), 101);
        assert_eq!(h.quantile(1.0), Some(Dur(40_000_000)));
    }

    #[test]
    fn rtt_histogram_span_grows_both_ways_and_keeps_every_quantile() {
        // Samples that widen the span below and above, far apart, and at both ends of the range: each
        // quantile must be the one a histogram of all 1,920 buckets gives (counted here directly).
        let samples: Vec<u64> = [
            5_000_000u64,
            4_000_000,
            90_000_000,
            1,
            0,
            3_000_000_000,
            u64::MAX,
            20_000_000,
        ]
        .into_iter()
        .chain((0..500).map(|i| 1_000_000 + i * 997_331 % 80_000_000))
        .collect();
        let mut h = RttHistogram::default();
        let mut all = vec![0u64; BUCKETS];
        for &ns in &samples {
            h.record(Dur(ns));
            all[bucket(ns)] += 1;
        }
        let (min, max) = (Dur(*samples.iter().min().unwrap()), Dur(*samples.iter().max().unwrap()));
        for q in [0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0] {
            let rank = ((q * samples.len() as f64).ceil() as u64).clamp(1, samples.len() as u64);
            let mut seen = 0;
            let i = all.iter().position(|&n| {
                seen += n;
                seen >= rank
            });
            let (lo, hi) = (lower_bound(i.unwrap()), lower_bound(i.unwrap() + 1));
            let want = Dur(lo + (hi - lo) / 2).clamp(min, max);
            assert_eq!(h.quantile(q), Some(want), "q {q}");
        }
        // Runs of samples in one bucket count like single ones, pending or added.
        let mut runs = RttHistogram::default();
        let mut one_by_one = vec![0u64; BUCKETS];
        for (ns, n) in [
            (20_000_000u64, 3),
            (90_000_000, 1),
            (20_100_000, 4),
            (5_000_000, 2),
            (90_000_000, 7),
        ] {
            for _ in 0..n {
                runs.record(Dur(ns));
                one_by_one[bucket(ns)] += 1;
            }
        }
        let mid = |ns: u64| {
            let (lo, hi) = (lower_bound(bucket(ns)), lower_bound(bucket(ns) + 1));
            Some(Dur(lo + (hi - lo) / 2))
        };
        assert_eq!(
            runs.runs,
            [(bucket(90_000_000) as u32, 7), (bucket(5_000_000) as u32, 2)]
        );
        // 17 samples: rank 6 is in the 20 ms bucket, ranks 10 and 17 in the 90 ms one (7 of them pending).
        assert_eq!(runs.quantile(0.3), mid(20_000_000));
        assert_eq!(runs.quantile(0.55), mid(90_000_000));
        assert_eq!(runs.quantile(1.0), mid(90_000_000));
        assert_eq!(runs.quantile(0.0), mid(5_000_000));
        runs.flush_all();
        let counted: Vec<u64> = (0..BUCKETS)
            .map(|i| {
                i.checked_sub(runs.first)
                    .and_then(|j| runs.counts.get(j))
                    .map_or(0, |&n| n as u64)
            })
            .collect();
        assert_eq!(counted, one_by_one);
        // A narrow RTT range allocates a few dozen buckets, not all of them.
        let mut narrow = RttHistogram::default();
        for us in 20_000..=60_000u64 {
            narrow.record(Dur::from_micros(us));
        }
        narrow.flush_all();
        assert!(
            narrow.counts.len() <= 64,
            "{} buckets for 20-60 ms",
            narrow.counts.len()
        );
    }
}
