//! Kathleen Nichols' windowed min/max filter, as in Linux `lib/win_minmax.c` and Chromium quiche
//! `windowed_filter.h`: the best value of a stream over a sliding window in O(1) time and space.
//!
//! The filter keeps the best, second-best and third-best samples, with the invariant that the
//! n-th best is at least as recent as the (n-1)-th. A new best makes every older sample useless,
//! so it restarts the filter. When a quarter of the window passes with no new best, the newest
//! sample becomes the second choice, and after half a window the third choice; when the best
//! leaves the window, the others are promoted. The estimate is therefore always a sample taken
//! inside the window, never better than the true windowed best, and rarely worse.
//!
//! The window is measured on a [`WindowClock`]: a packet-timed round count (`u64`, as BBR's
//! BtlBw filter over 10 rounds) or a [`Time`] (e.g. a min RTT over 10 s).

use crate::time::{Dur, Time};
use core::marker::PhantomData;
use core::ops::Div;

/// The "time" a window is measured on: a round count or an instant.
pub trait WindowClock: Copy + PartialEq {
    /// Distance between two readings, the unit of the window length.
    type Span: Copy + Ord + Div<u64, Output = Self::Span>;
    /// `self - earlier`, zero if `earlier` is later (readings never go backwards).
    fn since(self, earlier: Self) -> Self::Span;
}

impl WindowClock for u64 {
    type Span = u64;
    fn since(self, earlier: u64) -> u64 {
        self.saturating_sub(earlier)
    }
}

impl WindowClock for Time {
    type Span = Dur;
    fn since(self, earlier: Time) -> Dur {
        self.saturating_since(earlier)
    }
}

/// Which end of the stream a filter tracks.
pub trait Extremum {
    /// `new` is at least as good as `old` (ties count: a newer equal sample replaces an older one).
    fn at_least<V: PartialOrd>(new: V, old: V) -> bool;
}

/// Track the maximum (`minmax_running_max`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Max;

/// Track the minimum (`minmax_running_min`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Min;

impl Extremum for Max {
    fn at_least<V: PartialOrd>(new: V, old: V) -> bool {
        new >= old
    }
}

impl Extremum for Min {
    fn at_least<V: PartialOrd>(new: V, old: V) -> bool {
        new <= old
    }
}

/// One retained sample.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample<V, T> {
    value: V,
    time: T,
}

/// A windowed best-of filter over values `V` sampled at times `T`; `E` picks max or min.
#[derive(Clone, Debug)]
pub struct WindowedFilter<V, T: WindowClock, E> {
    window: T::Span,
    /// Best, second-best, third-best; `None` before the first sample.
    s: Option<[Sample<V, T>; 3]>,
    extremum: PhantomData<E>,
}

/// A windowed maximum (BBR's BtlBw filter).
pub type MaxFilter<V, T> = WindowedFilter<V, T, Max>;
/// A windowed minimum.
pub type MinFilter<V, T> = WindowedFilter<V, T, Min>;

impl<V: Copy + PartialOrd, T: WindowClock, E: Extremum> WindowedFilter<V, T, E> {
    /// An empty filter whose samples expire once they are more than `window` older than the newest.
    pub fn new(window: T::Span) -> Self {
        WindowedFilter {
            window,
            s: None,
            extremum: PhantomData,
        }
    }

    /// Window length.
    pub fn window(&self) -> T::Span {
        self.window
    }

    /// Best value in the window, `None` before the first sample.
    pub fn best(&self) -> Option<V> {
        self.s.map(|s| s[0].value)
    }

    /// Second choice: best value after the best one (taken once ¼ of the window passed).
    pub fn second_best(&self) -> Option<V> {
        self.s.map(|s| s[1].value)
    }

    /// Third choice: best value after the second one (taken once ½ of the window passed).
    pub fn third_best(&self) -> Option<V> {
        self.s.map(|s| s[2].value)
    }

    /// Forgets everything and restarts from one sample (`minmax_reset`).
    pub fn reset(&mut self, value: V, time: T) {
        self.s = Some([Sample { value, time }; 3]);
    }

    /// Adds a sample taken at `time` (not earlier than any previous one); returns the new best
    /// (`minmax_running_max` / `minmax_running_min`).
    pub fn update(&mut self, value: V, time: T) -> V {
        let window = self.window;
        let new = Sample { value, time };
        // A new best, or nothing left in the window: every retained sample is useless.
        let Some(s) = self
            .s
            .as_mut()
            .filter(|s| !E::at_least(value, s[0].value) && time.since(s[2].time) <= window)
        else {
            self.reset(value, time);
            return value;
        };
        if E::at_least(value, s[1].value) {
            s[1] = new;
            s[2] = new;
        } else if E::at_least(value, s[2].value) {
            s[2] = new;
        }
        // `minmax_subwin_update`: as time advances, refresh the 1st, 2nd and 3rd choices.
        let dt = time.since(s[0].time);
        if dt > window {
            // The best left the window: promote. The second may be outside too (the third was
            // checked above), so this may need doing twice.
            s[0] = s[1];
            s[1] = s[2];
            s[2] = new;
            if time.since(s[0].time) > window {
                s[0] = s[1];
                s[1] = s[2];
                s[2] = new;
            }
        } else if s[1].time == s[0].time && dt > window / 4 {
            // A quarter window without a new best: take a second choice from the second quarter.
            s[1] = new;
            s[2] = new;
        } else if s[2].time == s[1].time && dt > window / 2 {
            // Half a window without a new second choice: take a third from the second half.
            s[2] = new;
        }
        s[0].value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn windowed_filter_max_holds_for_the_window_then_expires_exactly() {
        // Window of 10 rounds: 100 at round 0, then smaller samples every round.
        let mut f: MaxFilter<u32, u64> = MaxFilter::new(10);
        assert_eq!(f.best(), None);
        assert_eq!(f.update(100, 0), 100);
        for t in 1..=10 {
            assert_eq!(f.update(50, t), 100, "round {t} is within 10 rounds of round 0");
        }
        // Round 11 is 11 > 10 rounds after the max: it expires, the newest choice takes over.
        assert_eq!(f.update(50, 11), 50);
    }

    #[test]
    fn windowed_filter_new_best_and_ties_restart_the_filter() {
        let mut f: MaxFilter<u32, u64> = MaxFilter::new(10);
        f.update(10, 0);
        f.update(5, 3);
        assert_eq!(f.second_best(), Some(5));
        // An equal sample is "at least as good": it restarts the filter with a fresh time.
        assert_eq!(f.update(10, 4), 10);
        assert_eq!((f.second_best(), f.third_best()), (Some(10), Some(10)));
        // So the max now lasts until round 4 + 10.
        assert_eq!(f.update(1, 14), 10);
        assert_eq!(f.update(1, 15), 1);
    }

    #[test]
    fn windowed_filter_quarter_and_half_window_sub_estimates() {
        // Window 100 ms; Nichols' choices for a max filter fed a falling sequence.
        let ms = |x: u64| Time(x * 1_000_000);
        let mut f: MaxFilter<u32, Time> = MaxFilter::new(Dur::from_millis(100));
        f.update(10, ms(0));
        // Worse samples within the first quarter (25 ms) are not retained.
        f.update(5, ms(25));
        assert_eq!(
            (f.best(), f.second_best(), f.third_best()),
            (Some(10), Some(10), Some(10))
        );
        // More than ¼ window after the best: the newest sample becomes the second choice.
        f.update(5, ms(26));
        assert_eq!((f.second_best(), f.third_best()), (Some(5), Some(5)));
        // More than ½ window with no new second choice: the newest becomes the third.
        f.update(4, ms(50));
        assert_eq!(f.third_best(), Some(5), "50 ms is not past half the window");
        f.update(3, ms(51));
        assert_eq!(
            (f.best(), f.second_best(), f.third_best()),
            (Some(10), Some(5), Some(3))
        );
        // At 101 ms the best (t=0) is out of the window: the second (5 @ 26 ms) is promoted.
        assert_eq!(f.update(1, ms(101)), 5);
        assert_eq!((f.second_best(), f.third_best()), (Some(3), Some(1)));
        assert_eq!(
            f.update(1, ms(126)),
            5,
            "5 @ 26 ms is exactly one window old: still inside"
        );
        assert_eq!(
            f.update(1, ms(127)),
            3,
            "then 3 @ 51 ms, the half-window choice, takes over"
        );
    }

    #[test]
    fn windowed_filter_promotes_twice_when_second_choice_also_expired() {
        let mut f: MinFilter<u32, u64> = MinFilter::new(8);
        f.update(1, 0);
        f.update(2, 3); // dt 3 > 8/4: second choice = third choice = 2 @ 3
        f.update(3, 5); // dt 5 > 8/2 with s2 == s1: third choice = 3 @ 5
        assert_eq!((f.best(), f.second_best(), f.third_best()), (Some(1), Some(2), Some(3)));
        // At 12: 1 @ 0 and 2 @ 3 are both older than 8; 3 @ 5 is 7 old and survives.
        assert_eq!(f.update(9, 12), 3);
        assert_eq!((f.second_best(), f.third_best()), (Some(9), Some(9)));
        // At 14 the equal sample refreshes the second choice and 3 @ 5 (9 old) expires.
        assert_eq!(f.update(9, 14), 9);
    }

    #[test]
    fn windowed_filter_resets_when_third_choice_left_the_window() {
        let mut f: MinFilter<u32, u64> = MinFilter::new(10);
        f.update(5, 0);
        f.update(6, 1);
        // 30 rounds later even the newest retained sample is out of the window.
        assert_eq!(f.update(50, 31), 50);
        assert_eq!((f.second_best(), f.third_best()), (Some(50), Some(50)));
    }

    #[test]
    fn windowed_filter_estimate_is_an_in_window_sample_no_better_than_the_true_max() {
        // Random walk against a brute-force windowed max: the estimate must be one of the samples
        // of the last `w` rounds, and never exceed their maximum.
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        let w = 10u64;
        let mut f: MaxFilter<u32, u64> = MaxFilter::new(w);
        let mut hist: Vec<(u64, u32)> = Vec::new();
        let mut t = 0u64;
        for _ in 0..20_000 {
            t += rng.random_range(0..3u64);
            let v = rng.random_range(0..1000u32);
            hist.push((t, v));
            let best = f.update(v, t);
            let in_window: Vec<u32> = hist.iter().filter(|&&(ts, _)| t - ts <= w).map(|&(_, v)| v).collect();
            assert!(in_window.contains(&best), "t={t}: {best} is not a sample of the window");
            assert!(best <= *in_window.iter().max().unwrap());
        }
    }
}
