//! The emulator measuring itself: how late each packet left against the time the link model
//! gave it, and the rate each link really held while the model kept it busy.

use cclab_core::time::{Dur, Time};
use cclab_sim::summary::EmulatorSummary;

/// Histogram resolution: 1 µs buckets up to 10 ms; later releases share the last bucket (the
/// maximum is kept exactly).
const BUCKET_NS: u64 = 1_000;
const BUCKETS: usize = 10_000;
/// A packet released this late counts as served late (the timing budget the emulator is held to).
pub const LATE_THRESHOLD: Dur = Dur(50_000);

/// Release errors of every packet, in bounded memory.
#[derive(Clone, Debug)]
pub struct ReleaseStats {
    buckets: Vec<u64>,
    count: u64,
    max: Dur,
    late: u64,
}

impl Default for ReleaseStats {
    fn default() -> Self {
        ReleaseStats {
            buckets: vec![0; BUCKETS],
            count: 0,
            max: Dur::ZERO,
            late: 0,
        }
    }
}

impl ReleaseStats {
    /// A packet the model released at `modelled` left at `actual`.
    pub fn record(&mut self, modelled: Time, actual: Time) {
        let err = actual.saturating_since(modelled);
        self.buckets[((err.0 / BUCKET_NS) as usize).min(BUCKETS - 1)] += 1;
        self.count += 1;
        self.max = self.max.max(err);
        self.late += (err > LATE_THRESHOLD) as u64;
    }

    /// Packets recorded.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The `q` quantile (0..=1) of the errors, to the bucket's upper edge (never below the truth).
    pub fn quantile(&self, q: f64) -> Dur {
        if self.count == 0 {
            return Dur::ZERO;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (i, &n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Dur((i as u64 + 1) * BUCKET_NS).min(self.max);
            }
        }
        self.max
    }

    /// The summary's emulator section (CPU and address counters filled in by the caller).
    pub fn summary(&self) -> EmulatorSummary {
        EmulatorSummary {
            packets: self.count,
            release_error_p50_s: self.quantile(0.5).as_secs_f64(),
            release_error_p99_s: self.quantile(0.99).as_secs_f64(),
            release_error_max_s: self.max.as_secs_f64(),
            late_packets: self.late,
            late_threshold_s: LATE_THRESHOLD.as_secs_f64(),
            ..EmulatorSummary::default()
        }
    }
}

/// The rate a link held while the model kept its serialiser busy: over each pair of packets the
/// model sent back to back (the second left exactly one serialisation time after the first),
/// the bits of the second over the wall-clock gap between their releases.
#[derive(Clone, Debug, Default)]
pub struct RateMeter {
    rate_bps: Option<u64>,
    last: Option<(Time, Time)>,
    bits: u128,
    wall_ns: u128,
}

impl RateMeter {
    /// A meter for a link of `rate_bps` (none: unlimited, nothing to measure).
    pub fn new(rate_bps: Option<u64>) -> RateMeter {
        RateMeter {
            rate_bps,
            ..RateMeter::default()
        }
    }

    /// A packet of `size` bytes the model released at `modelled` left at `actual`.
    pub fn record(&mut self, size: u64, modelled: Time, actual: Time) {
        let Some(rate) = self.rate_bps else { return };
        if let Some((m0, a0)) = self.last {
            let service = cclab_core::time::transmission_time(size, rate);
            let gap = modelled.saturating_since(m0);
            // Back to back in the model, within a nanosecond of rounding.
            if gap.0.abs_diff(service.0) <= 1 {
                self.bits += size as u128 * 8;
                self.wall_ns += actual.saturating_since(a0).0 as u128;
            }
        }
        self.last = Some((modelled, actual));
    }

    /// Bits per wall-clock second over the back-to-back pairs, if there were any.
    pub fn achieved_bps(&self) -> Option<f64> {
        (self.wall_ns > 0).then(|| self.bits as f64 * 1e9 / self.wall_ns as f64)
    }

    /// The configured rate, bits/s.
    pub fn configured_bps(&self) -> Option<f64> {
        self.rate_bps.map(|r| r as f64)
    }
}
