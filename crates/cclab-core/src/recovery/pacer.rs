//! Token-bucket pacer (RFC 9002 §7.7, <https://www.rfc-editor.org/rfc/rfc9002#section-7.7>).
//!
//! Tokens (bytes) accrue at the pacing rate up to a burst capacity; a packet leaves when the
//! bucket holds its size. All times are endpoint clock readings, so a coarse clock refills the
//! bucket in steps; the capacity therefore covers at least one clock step at the pacing rate,
//! or a sender that can only wake on clock steps could never reach the rate.
//!
//! A controller may also name a send quantum (draft-ietf-ccwg-bbr §5.6.3, `C.send_quantum`):
//! the packet that starts an aggregate may take up to that many bytes with it, back to back,
//! and the bucket goes into debt for them, so the next aggregate waits their size at the rate.
//! That is how Linux paces a TSO/GSO burst under fq's earliest departure times: the same
//! average rate, released a quantum at a time.

use crate::time::{u64_to_f64 as to_f64, Dur, Time};
use serde::Deserialize;

/// Pacing parameters of a sender.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PacingConfig {
    /// Pace data packets (RFC 9002 §7.7: SHOULD). Default true.
    pub enabled: bool,
    /// N in `rate = N · cwnd / smoothed_rtt`, used when the controller sets no rate
    /// (RFC 9002 §7.7 example: 1.25).
    pub gain: f64,
    /// Burst allowance in full-sized packets: the bucket capacity (RFC 9002 §7.7 limits bursts
    /// to the initial window: 10).
    pub burst_packets: u64,
}

impl Default for PacingConfig {
    fn default() -> Self {
        PacingConfig {
            enabled: true,
            gain: 1.25,
            burst_packets: 10,
        }
    }
}

/// A sender's pacing parameters, with the burst allowance worked out once for its packets. Whether it
/// paces at all ([`PacingConfig::enabled`]) the sender keeps in a spare byte of its own.
#[derive(Clone, Copy, Debug)]
pub struct Pacing {
    /// [`PacingConfig::gain`].
    pub gain: f64,
    /// `burst_packets · mss`, bytes: part of every capacity [`Pacer::delay`] works out (as a product
    /// and a conversion there, ~11 instructions on most sends of a window-bound sender).
    pub burst: f64,
}

impl PacingConfig {
    /// These parameters for a sender whose full-sized packets count `mss` bytes in flight.
    pub fn for_mss(&self, mss: u64) -> Pacing {
        Pacing {
            gain: self.gain,
            // Saturating: `burst_packets` has no bound in a scenario, and no bucket holds 2^64 bytes.
            burst: to_f64(self.burst_packets.saturating_mul(mss)),
        }
    }
}

/// What a pacer's bucket capacity is worked out from besides the rate and the packet
/// ([`Pacer::capacity`]), for [`Pacer::delay`].
#[derive(Clone, Copy, Debug)]
pub struct Bucket {
    /// The sender's burst allowance, bytes ([`Pacing::burst`]).
    pub burst: f64,
    /// The controller's bound on the bucket, bytes (`CongestionController::max_burst`); `u64::MAX`:
    /// none.
    pub max_burst: u64,
    /// Bytes of a back-to-back train the bucket must hold after a pause (picoquic's
    /// `bandwidth_pause`, `CongestionController::burst_allowance`); it wins over `max_burst`. 0: none.
    pub train: u64,
}

/// Token-bucket state.
#[derive(Clone, Debug)]
pub struct Pacer {
    tokens: f64,
    last: Time,
    /// Clock step (resolution or timer granularity, whichever is coarser), in seconds: converted
    /// once, as `capacity` needs it on every send attempt.
    step_secs: f64,
    /// Send quantum in bytes; 0: packets leave one at a time.
    quantum: u64,
    /// The aggregate being sent: the clock reading it started at and the bytes it may still take.
    aggregate: Option<(Time, u64)>,
}

/// Tokens are f64; this much shortfall (bytes) counts as a full bucket, so a deadline computed
/// by `delay` always admits the packet when it arrives.
const EPSILON_BYTES: f64 = 1e-6;

impl Pacer {
    /// A pacer with a full bucket at `now`, for a clock that advances in steps of `step`.
    pub fn new(now: Time, step: Dur) -> Pacer {
        Pacer {
            tokens: f64::INFINITY,
            last: now,
            step_secs: step.as_secs_f64(),
            quantum: 0,
            aggregate: None,
        }
    }

    /// Bucket capacity in bytes: the burst allowance (at most the controller's `max_burst`), at
    /// least one clock step at `rate` (bytes/s) and one packet of `bytes`, and at least the train.
    /// Never NaN. The bound and the train are converted only when set: a conversion is `min` of the
    /// conversions (it is monotone), and a capacity of at least one packet is above a train of 0.
    #[inline(always)]
    pub fn capacity(&self, rate: f64, bytes: u64, bucket: Bucket) -> f64 {
        let mut burst = bucket.burst;
        if bucket.max_burst != u64::MAX {
            burst = burst.min(to_f64(bucket.max_burst));
        }
        let cap = max_or(max_or(rate * self.step_secs, to_f64(bytes)), burst);
        if bucket.train > 0 {
            return max_or(to_f64(bucket.train), cap);
        }
        cap
    }

    /// The controller's send quantum in bytes (`None`: one packet at a time).
    pub fn set_quantum(&mut self, quantum: Option<u64>) {
        self.quantum = quantum.unwrap_or(0);
        if self.quantum == 0 {
            self.aggregate = None;
        }
    }

    /// Refills to `now` and returns `None` if a packet of `bytes` may leave now, or the clock
    /// reading at which it may. `rate` in bytes/s; the bucket's capacity is worked out from `bucket`
    /// (never below `bytes`) only when the bucket holds more than the packet: a pacer-bound sender's
    /// mostly holds less, and the capacity's conversions and maxima cost ~20 instructions. With a
    /// send quantum, a packet that fits in the aggregate started at `now` leaves whatever the tokens.
    /// Always inlined into the sender's one send attempt: as a call (which `#[inline]` left it), its
    /// prologue, epilogue and argument moves cost each data packet ~20 instructions.
    #[inline(always)]
    pub fn delay(&mut self, now: Time, bytes: u64, rate: f64, bucket: Bucket) -> Option<Time> {
        let elapsed_ns = now.0.saturating_sub(self.last.0);
        if elapsed_ns > 0 {
            // `Dur::as_secs_f64`, with the conversion of a small count done as a signed one.
            self.tokens += rate * (to_f64(elapsed_ns) * 1e-9);
        }
        // At most the packet, the bucket is within its capacity (NaN tokens still meet it).
        if self.tokens > to_f64(bytes) || self.tokens.is_nan() {
            let cap = self.capacity(rate, bytes, bucket);
            // `self.tokens.min(cap)`, as `cap` is never NaN.
            self.tokens = if self.tokens < cap { self.tokens } else { cap };
        }
        self.last = self.last.max(now);
        if self.aggregate.is_some_and(|(at, left)| at == now && left >= bytes) {
            return None;
        }
        let missing = to_f64(bytes) - self.tokens;
        if missing <= EPSILON_BYTES {
            // Without a quantum the aggregate is already `None` (`set_quantum` cleared it).
            if self.quantum > 0 {
                self.aggregate = Some((now, self.quantum));
            }
            return None;
        }
        if rate <= 0.0 {
            return Some(Time::MAX);
        }
        // Round up so that at the returned instant the bucket holds `bytes`.
        Some(now + Dur(ceil_u64(missing / rate * 1e9)))
    }

    /// Whether a send quantum is set (for a sender's check that the one it keeps is still in force).
    pub(crate) fn has_quantum(&self) -> bool {
        self.quantum > 0
    }

    /// A paced packet of `bytes` left (call after `delay` returned `None`). Within an aggregate
    /// the bucket may go negative: that debt is what spaces aggregates at the rate.
    pub fn on_sent(&mut self, bytes: u64) {
        match &mut self.aggregate {
            Some((_, left)) => {
                *left = left.saturating_sub(bytes);
                self.tokens -= to_f64(bytes);
            }
            None => self.tokens = (self.tokens - to_f64(bytes)).max(0.0),
        }
    }
}

/// `x.ceil() as u64`, bit for bit (NaN and negatives give 0, values past `u64::MAX` saturate), without
/// the call: on the baseline x86-64 target `f64::ceil` is a libm routine of ~23 instructions, and a
/// pacer-bound sender (any large window) works out a release time on most send attempts.
#[inline(always)]
fn ceil_u64(x: f64) -> u64 {
    // A release delay in nanoseconds is below 2^63 unless the rate is absurd: there a truncating
    // signed conversion is one instruction, where `as u64` saturates, tests NaN and converts
    // unsigned both ways (~24 instructions a refusal).
    if (0.0..I64_BOUND).contains(&x) {
        // SAFETY: `x` is neither NaN nor infinite, and truncated it lies in 0..2^63.
        let n = unsafe { x.to_int_unchecked::<i64>() };
        return n as u64 + ((n as f64) < x) as u64;
    }
    let n = x as u64;
    // `n` truncates toward zero; below 2^53 it is exact, and from 2^52 on every f64 is an integer,
    // so `x` is above `n` exactly when it has a fraction to round up.
    if (n as f64) < x {
        n.saturating_add(1)
    } else {
        n
    }
}

/// `x.max(y)` for a `y` that is never NaN, in one instruction (`maxsd`): where LLVM cannot tell
/// that `y` is not NaN, `f64::max` also blends in the NaN case (~5 instructions), as it did with
/// the burst loaded from the sender rather than converted from an integer.
#[inline(always)]
fn max_or(x: f64, y: f64) -> f64 {
    if x > y {
        x
    } else {
        y
    }
}

/// 2^63, the first `f64` past `i64::MAX`.
const I64_BOUND: f64 = 9_223_372_036_854_775_808.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pacer_ceil_matches_f64_ceil_everywhere() {
        let edges = [
            0.0,
            -0.0,
            0.4,
            1.0,
            1.0 + f64::EPSILON,
            2.5,
            -0.5,
            -3.0,
            12_345.000_001,
            (1u64 << 52) as f64 + 0.5,
            (1u64 << 53) as f64,
            (1u64 << 53) as f64 + 2.0,
            I64_BOUND,
            9_223_372_036_854_774_784.0,
            -f64::MIN_POSITIVE,
            u64::MAX as f64,
            u64::MAX as f64 * 2.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        let mut x = 0.001f64;
        let spread = core::iter::from_fn(|| {
            x *= 1.37;
            (x < 1e21).then_some(x)
        });
        for v in edges.into_iter().chain(spread) {
            assert_eq!(ceil_u64(v), v.ceil() as u64, "{v:e}");
        }
    }

    /// A bucket of `cfg` for packets of `mss` bytes, with no bound or train from a controller.
    fn bucket(cfg: &PacingConfig, mss: u64) -> Bucket {
        Bucket {
            burst: cfg.for_mss(mss).burst,
            max_burst: u64::MAX,
            train: 0,
        }
    }

    /// The capacity as it was worked out before the burst was kept as `f64`: the integer minimum of
    /// burst and bound converted, and the train's maximum taken even when it is 0.
    fn capacity_in_integers(p: &Pacer, cfg: &PacingConfig, mss: u64, rate: f64, bytes: u64, b: Bucket) -> f64 {
        let burst = (cfg.burst_packets * mss).min(b.max_burst) as f64;
        burst.max(rate * p.step_secs).max(bytes as f64).max(b.train as f64)
    }

    #[test]
    fn pacer_capacity_matches_the_integer_minimum_converted() {
        // Bursts and bounds around 2^53 and 2^63, where conversions round, on both sides of each other.
        let sizes = [
            0u64,
            1,
            1500,
            15_000,
            (1 << 53) - 1,
            1 << 53,
            (1 << 53) + 1,
            (1 << 53) + 3,
            (1 << 63) - 1,
            1 << 63,
            (1 << 63) + 1025,
            u64::MAX - 1,
            u64::MAX,
        ];
        for burst_packets in sizes {
            let cfg = PacingConfig {
                burst_packets,
                ..Default::default()
            };
            for (max_burst, train) in sizes.iter().flat_map(|&m| sizes.map(|t| (m, t))) {
                for (rate, step) in [
                    (0.0, Dur(1)),
                    (1.25e9, Dur(1)),
                    (1e12, Dur::from_millis(1)),
                    (f64::NAN, Dur(1)),
                ] {
                    let p = Pacer::new(Time(0), step);
                    let b = Bucket {
                        burst: cfg.for_mss(1).burst,
                        max_burst,
                        train,
                    };
                    for bytes in [1, 1200, 1 << 53] {
                        let want = capacity_in_integers(&p, &cfg, 1, rate, bytes, b);
                        let got = p.capacity(rate, bytes, b);
                        assert_eq!(
                            got.to_bits(),
                            want.to_bits(),
                            "{burst_packets} {max_burst} {train} {rate}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn pacer_delay_matches_a_bucket_capped_on_every_attempt() {
        // `delay` as it was before the capacity was worked out lazily: capped on every attempt.
        fn eager(p: &mut Pacer, now: Time, bytes: u64, rate: f64, cap: f64) -> Option<Time> {
            let elapsed = now.saturating_since(p.last).as_secs_f64();
            if elapsed > 0.0 {
                p.tokens += rate * elapsed;
            }
            p.tokens = p.tokens.min(cap);
            p.last = p.last.max(now);
            if p.aggregate.is_some_and(|(at, left)| at == now && left >= bytes) {
                return None;
            }
            let missing = bytes as f64 - p.tokens;
            if missing <= EPSILON_BYTES {
                p.aggregate = (p.quantum > 0).then_some((now, p.quantum));
                return None;
            }
            if rate <= 0.0 {
                return Some(Time::MAX);
            }
            Some(now + Dur(ceil_u64(missing / rate * 1e9)))
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let cfg = PacingConfig {
            burst_packets: 3,
            ..Default::default()
        };
        for quantum in [None, Some(4500)] {
            let (mut lazy, mut reference) = (Pacer::new(Time(0), Dur(1000)), Pacer::new(Time(0), Dur(1000)));
            lazy.set_quantum(quantum);
            reference.set_quantum(quantum);
            let mut now = Time(0);
            for _ in 0..20_000 {
                now += Dur(next(4) * next(400_000));
                let bytes = 40 + next(1461);
                let rate = [0.0, 1e3, 1.5e6, 1.25e9, 1e12][next(5) as usize];
                let b = Bucket {
                    burst: cfg.for_mss(1500).burst,
                    max_burst: [u64::MAX, 2000, 0][next(3) as usize],
                    train: [0, 30_000][next(2) as usize],
                };
                let cap = capacity_in_integers(&reference, &cfg, 1500, rate, bytes, b);
                let got = lazy.delay(now, bytes, rate, b);
                assert_eq!(got, eager(&mut reference, now, bytes, rate, cap), "at {now:?}");
                assert_eq!(lazy.tokens.to_bits(), reference.tokens.to_bits(), "at {now:?}");
                if got.is_none() {
                    lazy.on_sent(bytes);
                    reference.on_sent(bytes);
                }
            }
        }
    }

    #[test]
    fn pacer_allows_burst_then_spaces_at_rate() {
        let cfg = PacingConfig {
            burst_packets: 2,
            ..Default::default()
        };
        let mut p = Pacer::new(Time(0), Dur(1));
        // 1000 B packets at 1e6 B/s: one per 1 ms after a 2-packet burst.
        let cap = bucket(&cfg, 1000);
        assert_eq!(p.capacity(1e6, 1000, cap), 2000.0);
        for _ in 0..2 {
            assert_eq!(p.delay(Time(0), 1000, 1e6, cap), None);
            p.on_sent(1000);
        }
        assert_eq!(p.delay(Time(0), 1000, 1e6, cap), Some(Time(1_000_000)));
        assert_eq!(p.delay(Time(400_000), 1000, 1e6, cap), Some(Time(1_000_000)));
        assert_eq!(p.delay(Time(1_000_000), 1000, 1e6, cap), None);
    }

    #[test]
    fn pacer_with_a_send_quantum_releases_aggregates_at_the_same_average_rate() {
        let cfg = PacingConfig {
            burst_packets: 1,
            ..Default::default()
        };
        let mut p = Pacer::new(Time(0), Dur(1));
        p.set_quantum(Some(4000));
        let (rate, ms) = (1e6, 1_000_000);
        let cap = bucket(&cfg, 1000);
        // At 1e6 B/s, 4 packets of 1000 B leave together every 4 ms.
        let mut sent = Vec::new();
        let mut now = Time(0);
        while sent.len() < 12 {
            match p.delay(now, 1000, rate, cap) {
                None => {
                    p.on_sent(1000);
                    sent.push(now.0 / ms);
                }
                Some(at) => now = at,
            }
        }
        assert_eq!(sent, [0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8]);
        // Without the quantum, the last aggregate's debt is repaid, then packets leave one by one.
        p.set_quantum(None);
        assert_eq!(p.delay(now, 1000, rate, cap), Some(Time(12 * ms)));
        assert_eq!(p.delay(Time(12 * ms), 1000, rate, cap), None);
        p.on_sent(1000);
        assert_eq!(p.delay(Time(12 * ms), 1000, rate, cap), Some(Time(13 * ms)));
    }

    #[test]
    fn pacer_capacity_covers_a_coarse_clock_step() {
        let cfg = PacingConfig {
            burst_packets: 1,
            ..Default::default()
        };
        let p = Pacer::new(Time(0), Dur::from_millis(1));
        // 1e8 B/s over a 1 ms step = 100 kB, more than one 1500 B packet.
        let b = bucket(&cfg, 1500);
        assert_eq!(p.capacity(1e8, 1500, b), 100_000.0);
        // A controller's max_burst never takes it below one clock step.
        let bounded = Bucket { max_burst: 3000, ..b };
        assert_eq!(p.capacity(1e8, 1500, bounded), 100_000.0);
    }

    #[test]
    fn pacer_capacity_is_capped_by_the_controllers_max_burst() {
        let cfg = PacingConfig::default();
        let p = Pacer::new(Time(0), Dur(1));
        let b = bucket(&cfg, 1500);
        assert_eq!(p.capacity(1e8, 1500, b), 15_000.0);
        assert_eq!(p.capacity(1e8, 1500, Bucket { max_burst: 3000, ..b }), 3000.0);
        // Never below the packet about to leave.
        assert_eq!(p.capacity(1e8, 1500, Bucket { max_burst: 0, ..b }), 1500.0);
    }
}
