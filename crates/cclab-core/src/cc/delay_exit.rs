//! picoquic's delay-based exit from the initial slow start (`picoquic_hystart_test` and
//! `picoquic_filter_rtt_min_max` in `picoquic/cc_common.c`), which picoquic's CUBIC and NewReno run
//! on every RTT sample while ssthresh is unset.
//!
//! At most one sample per millisecond enters a ring of the last 7. `filtered_min` is the lowest
//! maximum of a full ring ever seen, a minimum RTT that tolerates jitter. A test counts an excess
//! when the ring's minimum exceeds `filtered_min · 5/4`, and slow start ends at the 7th excess; a ring
//! whose minimum is at or below `filtered_min` clears the count (a minimum between the two does
//! neither). Unlike HyStart++ (RFC 9406) there is no per-round structure and no 4 ms floor on the
//! threshold, so on a µs path jitter alone can end slow start.

use crate::time::{Dur, Time};

/// cc_common.h `PICOQUIC_MIN_MAX_RTT_SCOPE`: samples in the ring, and excesses that end slow start.
pub const SCOPE: usize = 7;
/// A sample enters only if more than this has passed since the previous one (`+ 1000` µs).
pub const SAMPLE_INTERVAL: Dur = Dur::from_millis(1);

/// State of the delay test of one connection.
#[derive(Clone, Debug, Default)]
pub struct DelayExit {
    samples: [Dur; SCOPE],
    next: usize,
    full: bool,
    last_sample: Option<Time>,
    filtered_min: Option<Dur>,
    excess: usize,
}

impl DelayExit {
    /// A test with no samples.
    pub fn new() -> DelayExit {
        DelayExit::default()
    }

    /// Offers the RTT sample `rtt` taken at `now`; true when slow start should end.
    pub fn on_rtt_sample(&mut self, now: Time, rtt: Dur) -> bool {
        // picoquic starts with last_rtt_sample_time = 0, so the first sample of a run enters too.
        if self.last_sample.is_some_and(|t| now <= t + SAMPLE_INTERVAL) {
            return false;
        }
        self.last_sample = Some(now);
        self.samples[self.next] = rtt;
        self.next = (self.next + 1) % SCOPE;
        self.full |= self.next == 0;
        if !self.full {
            return false;
        }
        let ring_min = *self.samples.iter().min().expect("SCOPE > 0");
        let ring_max = *self.samples.iter().max().expect("SCOPE > 0");
        let filtered = self.filtered_min.map_or(ring_max, |f| f.min(ring_max));
        self.filtered_min = Some(filtered);
        if ring_min <= filtered {
            self.excess = 0;
        } else if ring_min > filtered + filtered / 4 {
            self.excess += 1;
        }
        self.excess >= SCOPE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_ms(ms: u64) -> Time {
        Time(ms * 1_000_000 + 1)
    }

    fn us(us: u64) -> Dur {
        Dur::from_micros(us)
    }

    /// A test whose ring holds seven samples of `rtt_us` taken 2 ms apart (the last at 12 ms), so
    /// filtered_min = `rtt_us`; none of them ends slow start.
    fn filled(rtt_us: u64) -> DelayExit {
        let mut d = DelayExit::new();
        for ms in 0..7 {
            assert!(!d.on_rtt_sample(at_ms(2 * ms), us(rtt_us)));
        }
        d
    }

    /// The first of `n` samples of `rtt_us`, 2 ms apart from `from_ms`, that ends slow start (1-based).
    fn ends_at(d: &mut DelayExit, from_ms: u64, rtt_us: u64, n: u64) -> Option<u64> {
        (0..n)
            .find(|k| d.on_rtt_sample(at_ms(from_ms + 2 * k), us(rtt_us)))
            .map(|k| k + 1)
    }

    #[test]
    fn delay_exit_needs_seven_excesses_over_the_filtered_minimum() {
        // The ring's minimum passes 25 µs only once all seven entries exceed it: the 7th sample
        // of 30 µs is the first excess, and the 13th the seventh.
        assert_eq!(ends_at(&mut filled(20), 20, 30, 20), Some(13));
    }

    #[test]
    fn delay_exit_ignores_samples_within_a_millisecond_and_resets_on_a_low_ring() {
        let mut d = filled(20);
        // 1 ms after the previous sample is not "more than" 1 ms: ignored, the ring is unchanged.
        assert!(!d.on_rtt_sample(at_ms(13), us(500)));
        assert_eq!(ends_at(&mut d, 20, 30, 12), None, "six excesses");
        // One low sample brings the ring's minimum back to filtered_min and clears them.
        assert!(!d.on_rtt_sample(at_ms(50), us(20)));
        assert_eq!(ends_at(&mut d, 60, 30, 13), Some(13));
    }

    #[test]
    fn delay_exit_tolerates_a_rise_of_a_quarter() {
        // 50 µs = filtered_min + 1/4: neither an excess nor a reset.
        assert_eq!(ends_at(&mut filled(40), 20, 50, 100), None);
    }
}
