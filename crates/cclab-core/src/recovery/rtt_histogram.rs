//! Every RTT sample of a connection in bounded memory, for the percentiles in `summary.json`.
//!
//! Log-linear buckets (the HDR-histogram layout): each power of two of nanoseconds is split into
//! 32 equal sub-buckets, so a bucket spans at most 1/32 of its values (≤ 3.2 % relative error)
//! and recording a sample is a leading-zero count and a shift, no logarithm. The 1,920 buckets
//! (values below 32 ns exactly, then 32 per power of two up to 2^64 ns) are `u32`s allocated at
//! the first sample: 7.5 KiB per connection, whatever its length.

use crate::time::Dur;

const SUB_BITS: u32 = 5;
const SUB: usize = 1 << SUB_BITS;
const BUCKETS: usize = (64 - SUB_BITS as usize + 1) * SUB;

/// Counts of RTT samples by magnitude.
#[derive(Clone, Debug, Default)]
pub struct RttHistogram {
    counts: Vec<u32>,
    total: u64,
    min: Dur,
    max: Dur,
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
    /// Counts one sample.
    pub fn record(&mut self, rtt: Dur) {
        if self.counts.is_empty() {
            self.counts = vec![0; BUCKETS];
            self.min = rtt;
        }
        let c = &mut self.counts[bucket(rtt.0)];
        *c = c.saturating_add(1);
        self.total += 1;
        self.min = self.min.min(rtt);
        self.max = self.max.max(rtt);
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
        let rank = ((q * self.total as f64).ceil() as u64).clamp(1, self.total);
        let mut seen = 0;
        for (i, &n) in self.counts.iter().enumerate() {
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
}
