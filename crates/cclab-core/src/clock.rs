//! Per-endpoint clock model: what an endpoint can know about time.
//!
//! Real stacks read time through a timestamp of finite resolution (1 µs on Linux `ktime` in µs,
//! 1 ms on coarse clocks), some counters advance in ticks (FreeBSD `ticks` at HZ=1000, seed 001),
//! and timers fire late (timer granularity, slack). Endpoints, controllers, RTT estimation and ACK
//! timers read time only through this model; the driver's `now` is the true time.

use crate::time::{Dur, NonZeroDur, Time};
use serde::Deserialize;

/// Clock parameters of one endpoint (scenario table `clock`; omitted fields keep the exact default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClockConfig {
    /// Timestamp resolution: readings are truncated to a multiple of it (1 ns = exact; 0 has no
    /// multiples to truncate to, and was read as 1 ns).
    pub resolution: NonZeroDur,
    /// Length of one tick of the coarse tick counter (FreeBSD `ticks`: 1 ms at HZ=1000; 1 ns counts
    /// nanoseconds, and a counter of zero-length ticks, which was read as 1 ns, has no meaning).
    pub tick: NonZeroDur,
    /// Timers fire only on multiples of this granularity (0 or 1 ns = exact).
    pub timer_granularity: Dur,
    /// Extra lateness added to every timer expiry.
    pub timer_slack: Dur,
}

impl Default for ClockConfig {
    fn default() -> Self {
        ClockConfig {
            resolution: NonZeroDur::NANOSECOND,
            tick: NonZeroDur::from_millis(1),
            timer_granularity: Dur(1),
            timer_slack: Dur::ZERO,
        }
    }
}

/// A clock model; cheap to copy.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clock {
    cfg: ClockConfig,
}

fn round_down(t: u64, q: u64) -> u64 {
    if q <= 1 {
        t
    } else {
        t - t % q
    }
}

fn round_up(t: u64, q: u64) -> u64 {
    if q <= 1 {
        t
    } else {
        t.div_ceil(q).saturating_mul(q)
    }
}

impl Clock {
    /// A clock with the given parameters (a timer granularity of 0 is exact, as 1 ns is).
    pub fn new(cfg: ClockConfig) -> Clock {
        Clock { cfg }
    }
    /// The parameters.
    pub fn config(&self) -> &ClockConfig {
        &self.cfg
    }
    /// What the endpoint reads when the true time is `now`.
    pub fn read(&self, now: Time) -> Time {
        Time(round_down(now.0, self.cfg.resolution.as_nanos()))
    }
    /// Length of one tick.
    pub fn tick(&self) -> NonZeroDur {
        self.cfg.tick
    }
    /// A measured interval between two readings, as the endpoint sees it.
    pub fn elapsed(&self, now: Time, since: Time) -> Dur {
        self.read(now).saturating_since(since)
    }
    /// The true time at which a timer set for the perceived instant `deadline` fires:
    /// the first instant the clock reads at least `deadline`, rounded up to the timer
    /// granularity, plus the slack. Never earlier than `deadline` itself.
    pub fn fire_time(&self, deadline: Time) -> Time {
        if deadline == Time::MAX {
            return Time::MAX;
        }
        let readable = round_up(deadline.0, self.cfg.resolution.as_nanos());
        let t = round_up(readable, self.cfg.timer_granularity.0);
        Time(t) + self.cfg.timer_slack
    }
}

/// The tick counter at true time `now` of a clock whose ticks last `tick` (whole ticks since the start).
pub fn ticks(now: Time, tick: NonZeroDur) -> u64 {
    now.0 / tick.as_nanos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_clock_is_flat_within_a_tick() {
        let c = Clock::new(ClockConfig {
            resolution: NonZeroDur::from_millis(1),
            ..Default::default()
        });
        assert_eq!(c.read(Time(1_999_999)), Time(1_000_000));
        assert_eq!(ticks(Time(1_999_999), c.tick()), 1);
        assert_eq!(ticks(Time(2_000_000), c.tick()), 2);
        // A timer for 1.2 ms fires when the clock can read it: at 2 ms.
        assert_eq!(c.fire_time(Time(1_200_000)), Time(2_000_000));
    }

    #[test]
    fn clock_resolution_and_tick_of_zero_are_refused_not_read_as_one_nanosecond() {
        // Both used to load and run as 1 ns.
        for key in ["resolution", "tick"] {
            let e = toml::from_str::<ClockConfig>(&format!("{key} = \"0s\"")).unwrap_err();
            assert!(e.to_string().contains("at least 1ns"), "{e}");
        }
        let c: ClockConfig = toml::from_str("tick = \"1ns\"\ntimer_granularity = \"0s\"").unwrap();
        assert_eq!(ticks(Time(1_234), Clock::new(c).tick()), 1_234);
        assert_eq!(Clock::new(c).fire_time(Time(1_234)), Time(1_234));
    }

    #[test]
    fn exact_clock_is_identity() {
        let c = Clock::default();
        assert_eq!(c.read(Time(123)), Time(123));
        assert_eq!(c.fire_time(Time(123)), Time(123));
    }

    #[test]
    fn slack_and_granularity_delay_timers() {
        let c = Clock::new(ClockConfig {
            timer_granularity: Dur::from_micros(50),
            timer_slack: Dur::from_micros(10),
            ..Default::default()
        });
        assert_eq!(c.fire_time(Time(1_000)), Time(60_000));
    }
}
