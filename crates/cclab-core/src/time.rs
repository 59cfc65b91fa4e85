//! Integer-nanosecond time. `Time` is an instant since the start of a run, `Dur` a span.
//! Nanoseconds, not microseconds: a 1500-byte packet on a 100 Gbps link takes 120 ns.

use core::fmt;
use core::num::NonZeroU64;
use core::ops::{Add, AddAssign, Div, Mul, Sub, SubAssign};

/// `x as f64`: on the baseline x86-64 target a `u64` converts in six instructions and an `i64` in
/// one, and the counts converted on the per-packet path (bytes, nanoseconds of a span or since the
/// start of a run) are far below 2^63, where both conversions round alike.
#[inline(always)]
pub(crate) fn u64_to_f64(x: u64) -> f64 {
    if x <= i64::MAX as u64 {
        x as i64 as f64
    } else {
        x as f64
    }
}

/// An instant, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A non-negative span of time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

impl Time {
    /// The start of the run.
    pub const ZERO: Time = Time(0);
    /// Later than any instant a run reaches; "never" for timers.
    pub const MAX: Time = Time(u64::MAX);

    /// Nanoseconds since the start of the run.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Seconds since the start of the run.
    pub fn as_secs_f64(self) -> f64 {
        u64_to_f64(self.0) * 1e-9
    }
    /// Span since `earlier`, zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
    /// `self - d`, clamped at zero.
    pub fn saturating_sub(self, d: Dur) -> Time {
        Time(self.0.saturating_sub(d.0))
    }
}

impl Dur {
    /// Zero length.
    pub const ZERO: Dur = Dur(0);
    /// Longer than any run.
    pub const MAX: Dur = Dur(u64::MAX);

    /// From nanoseconds.
    pub const fn from_nanos(ns: u64) -> Dur {
        Dur(ns)
    }
    /// From microseconds.
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * 1_000)
    }
    /// From milliseconds.
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * 1_000_000)
    }
    /// From whole seconds.
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * 1_000_000_000)
    }
    /// From seconds as a float, rounded to the nearest nanosecond (negative and NaN give zero).
    pub fn from_secs_f64(s: f64) -> Dur {
        if s.is_nan() || s <= 0.0 {
            Dur(0)
        } else if s >= u64::MAX as f64 * 1e-9 {
            Dur::MAX
        } else {
            Dur((s * 1e9).round() as u64)
        }
    }
    /// Length in nanoseconds.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Length in whole microseconds (truncated).
    pub const fn as_micros(self) -> u64 {
        self.0 / 1_000
    }
    /// Length in seconds (a pacing rate's divisor on every send attempt: its conversion as below).
    pub fn as_secs_f64(self) -> f64 {
        u64_to_f64(self.0) * 1e-9
    }
    /// `self * num / den` without intermediate overflow.
    pub fn mul_div(self, num: u64, den: u64) -> Dur {
        Dur(((self.0 as u128 * num as u128) / den.max(1) as u128).min(u64::MAX as u128) as u64)
    }
    /// Saturating subtraction.
    pub fn saturating_sub(self, o: Dur) -> Dur {
        Dur(self.0.saturating_sub(o.0))
    }
}

/// A span of at least 1 ns: a clock resolution, a tick or a counter's unit, where a span of 0
/// would mean nothing (a multiple of 0, a count of zero-length ticks) and used to be read as 1 ns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NonZeroDur(NonZeroU64);

impl NonZeroDur {
    /// One nanosecond, the finest span (an exact clock).
    pub const NANOSECOND: NonZeroDur = NonZeroDur(NonZeroU64::MIN);

    /// `d` if it is at least 1 ns.
    pub const fn new(d: Dur) -> Option<NonZeroDur> {
        match NonZeroU64::new(d.0) {
            Some(n) => Some(NonZeroDur(n)),
            None => None,
        }
    }
    /// From microseconds.
    ///
    /// # Panics
    /// If `us` is 0 (in a `const` item: at compile time).
    pub const fn from_micros(us: u64) -> NonZeroDur {
        match NonZeroDur::new(Dur::from_micros(us)) {
            Some(d) => d,
            None => panic!("a NonZeroDur of 0 us"),
        }
    }
    /// From milliseconds.
    ///
    /// # Panics
    /// If `ms` is 0 (in a `const` item: at compile time).
    pub const fn from_millis(ms: u64) -> NonZeroDur {
        match NonZeroDur::new(Dur::from_millis(ms)) {
            Some(d) => d,
            None => panic!("a NonZeroDur of 0 ms"),
        }
    }
    /// The span as a [`Dur`].
    pub const fn get(self) -> Dur {
        Dur(self.0.get())
    }
    /// Length in nanoseconds, at least 1.
    pub const fn as_nanos(self) -> u64 {
        self.0.get()
    }
}

impl From<NonZeroDur> for Dur {
    fn from(d: NonZeroDur) -> Dur {
        d.get()
    }
}

impl fmt::Display for NonZeroDur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        *self = *self + d;
    }
}
impl Sub<Dur> for Time {
    type Output = Time;
    fn sub(self, d: Dur) -> Time {
        Time(self.0 - d.0)
    }
}
impl Sub<Time> for Time {
    type Output = Dur;
    /// # Panics
    /// If `rhs` is later than `self` (time never goes backwards in a run).
    fn sub(self, rhs: Time) -> Dur {
        Dur(self.0 - rhs.0)
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, o: Dur) -> Dur {
        Dur(self.0.saturating_add(o.0))
    }
}
impl AddAssign for Dur {
    fn add_assign(&mut self, o: Dur) {
        *self = *self + o;
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, o: Dur) -> Dur {
        Dur(self.0 - o.0)
    }
}
impl SubAssign for Dur {
    fn sub_assign(&mut self, o: Dur) {
        self.0 -= o.0;
    }
}
impl Mul<u64> for Dur {
    type Output = Dur;
    fn mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
}
impl Div<u64> for Dur {
    type Output = Dur;
    fn div(self, k: u64) -> Dur {
        Dur(self.0 / k)
    }
}

impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = self.0;
        if ns >= 1_000_000_000 {
            write!(f, "{:.6}s", ns as f64 * 1e-9)
        } else if ns >= 1_000_000 {
            write!(f, "{:.3}ms", ns as f64 * 1e-6)
        } else if ns >= 1_000 {
            write!(f, "{:.3}us", ns as f64 * 1e-3)
        } else {
            write!(f, "{ns}ns")
        }
    }
}
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t={}", Dur(self.0))
    }
}

/// Time to put `bytes` on a link of `rate_bps` bits/s, rounded up to the next nanosecond.
pub fn transmission_time(bytes: u64, rate_bps: u64) -> Dur {
    if rate_bps == 0 {
        return Dur::MAX;
    }
    let bits = bytes as u128 * 8 * 1_000_000_000;
    Dur(bits.div_ceil(rate_bps as u128).min(u64::MAX as u128) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn u64_to_f64_matches_the_unsigned_conversion() {
        let mut edges = vec![
            0,
            1,
            (1 << 53) + 1,
            i64::MAX as u64 - 1,
            i64::MAX as u64,
            1 << 63,
            u64::MAX,
        ];
        edges.extend((0..64).flat_map(|k| [(1u64 << k) - 1, 1 << k, (1u64 << k) + 1]));
        for x in edges {
            assert_eq!(u64_to_f64(x).to_bits(), (x as f64).to_bits(), "{x}");
        }
    }

    #[test]
    fn transmission_time_rounds_up() {
        // 1500 B at 10 Gbps = 1200 ns exactly; at 3 Gbps 4000 ns exactly; at 7 Gbps 1714.28 -> 1715.
        assert_eq!(transmission_time(1500, 10_000_000_000), Dur(1200));
        assert_eq!(transmission_time(1500, 3_000_000_000), Dur(4000));
        assert_eq!(transmission_time(1500, 7_000_000_000), Dur(1715));
    }

    #[test]
    fn non_zero_dur_refuses_zero_only() {
        assert_eq!(NonZeroDur::new(Dur::ZERO), None);
        assert_eq!(NonZeroDur::new(Dur(1)), Some(NonZeroDur::NANOSECOND));
        assert_eq!(NonZeroDur::from_millis(2).get(), Dur::from_millis(2));
        assert_eq!(NonZeroDur::from_micros(1).as_nanos(), 1_000);
    }

    #[test]
    fn display_picks_unit() {
        assert_eq!(Dur::from_micros(65).to_string(), "65.000us");
        assert_eq!(Dur::from_millis(600).to_string(), "600.000ms");
    }
}
