//! Processor idle states (C-states): a core with nothing to do sleeps, deeper the longer it stays
//! idle, and the first work after a deep sleep waits for that state's exit latency.
//!
//! The governor is a ladder over the idle time so far: once the core has been idle for a state's
//! target residency it is in that state (or a deeper one whose residency has also passed). Work
//! that arrives then (a datagram, or a timer falling due) starts after the exit latency of the
//! deepest state reached. A core that never idles past the shallowest residency never pays, so a
//! CPU-bound host is unaffected; a host that idles between bursts pays once per burst. Real
//! governors predict the idle time instead of climbing; for the periodic idle periods this is
//! for (an ACK-clocked sender, a receiver between bursts) the prediction and the ladder agree.

use super::config::IdleStateConfig;
use cclab_core::time::{Dur, Time};

/// The idle states of one core and how long it has been idle.
pub(crate) struct IdleStates {
    /// By target residency, shallowest first.
    states: Vec<IdleStateConfig>,
    /// When the core last went idle; `None` while it runs (a job, a stall or a wake-up).
    since: Option<Time>,
}

impl IdleStates {
    /// A core idle since time zero.
    pub(crate) fn new(states: &[IdleStateConfig]) -> IdleStates {
        let mut states = states.to_vec();
        states.sort_by_key(|s| s.residency);
        IdleStates {
            states,
            since: Some(Time::ZERO),
        }
    }

    /// The core has nothing to do from `now`.
    pub(crate) fn went_idle(&mut self, now: Time) {
        self.since = Some(now);
    }

    /// Something else (a stall) took the core: it does not sleep meanwhile.
    pub(crate) fn taken(&mut self) {
        self.since = None;
    }

    /// Work arrives at `now`: the exit latency to pay before it starts, if the core was asleep
    /// in a state with one. The core is awake afterwards.
    pub(crate) fn wake(&mut self, now: Time) -> Option<Dur> {
        let idle = now.saturating_since(self.since.take()?);
        self.states
            .iter()
            .rev()
            .find(|s| s.residency <= idle)
            .map(|s| s.exit_latency)
            .filter(|l| *l > Dur::ZERO)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(residency_us: u64, exit_us: u64) -> IdleStateConfig {
        IdleStateConfig {
            residency: Dur::from_micros(residency_us),
            exit_latency: Dur::from_micros(exit_us),
        }
    }

    #[test]
    fn idle_states_charge_the_deepest_state_reached() {
        // intel_idle's Meteor Lake (mtl_l) table, given out of order: C10, C1E, C6.
        let mut s = IdleStates::new(&[state(930, 310), state(1, 1), state(420, 140)]);
        let at = |us: u64| Time(us * 1_000);
        let cases = [
            (0, None),
            (1, Some(1)),
            (419, Some(1)),
            (420, Some(140)),
            (929, Some(140)),
            (5_000, Some(310)),
        ];
        for (idle_us, expect) in cases {
            s.went_idle(at(10_000));
            assert_eq!(
                s.wake(at(10_000 + idle_us)),
                expect.map(Dur::from_micros),
                "idle {idle_us} µs"
            );
        }
        // Awake after a wake-up, and while something else holds the core: nothing to pay.
        assert_eq!(s.wake(at(20_000)), None);
        s.went_idle(at(20_000));
        s.taken();
        assert_eq!(s.wake(at(30_000)), None);
    }
}
