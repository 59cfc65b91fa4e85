//! Scheduling stalls: intervals during which the operating system gives the host's core to
//! something else (another thread, an interrupt or DPC, a power-state exit), so the endpoints'
//! packet work and timers wait while datagrams keep arriving in the socket buffer.
//!
//! On loopback, these pauses, not the "link", are what make RTTs noisy and drop datagrams: a
//! receiver that keeps up on average overflows its socket buffer when a stall outlasts the time
//! the sender needs to fill it (picoquic PR #1761: loopback delays "are largely caused by system
//! calls and process or thread scheduling"). The model is an alternating renewal process: run
//! periods and stalls with exponential lengths of configured means, so stalls start as a
//! Poisson process over run time and the long-run stalled fraction is
//! `mean_duration / (mean_interval + mean_duration)`.

use super::config::StallConfig;
use crate::engine::rng::exponential;
use crate::engine::Rng;
use cclab_core::time::{Dur, Time};

/// The stall process of one host, generated lazily: the host asks only when its core becomes
/// free, so an idle host needs no wake-up for stalls that nothing waits on.
pub(crate) struct Stalls {
    cfg: StallConfig,
    rng: Rng,
    /// When the next (or current) stall is due, and its length.
    start: Time,
    len: Dur,
}

impl Stalls {
    /// A process whose first run period starts at time zero.
    pub(crate) fn new(cfg: &StallConfig, mut rng: Rng) -> Stalls {
        let start = Time::ZERO + exponential(&mut rng, cfg.mean_interval);
        let len = exponential(&mut rng, cfg.mean_duration);
        Stalls {
            cfg: cfg.clone(),
            rng,
            start,
            len,
        }
    }

    /// The core becomes free at `now`, after a job that ended then (`after_job`) or after being
    /// idle. Returns the length of the stall that holds it from `now`, if any. A stall never
    /// preempts a job: one that fell due during a job starts when the job ends, whole. A stall
    /// that fell due while the core was idle began on time, and one that is over already cost
    /// nothing.
    pub(crate) fn hold(&mut self, now: Time, after_job: bool) -> Option<Dur> {
        while self.start <= now {
            let end = if after_job {
                now + self.len
            } else {
                self.start + self.len
            };
            // The next run period starts when this stall ends.
            self.start = end + exponential(&mut self.rng, self.cfg.mean_interval);
            self.len = exponential(&mut self.rng, self.cfg.mean_duration);
            if end > now {
                return Some(end.saturating_since(now));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{stream_rng, Stream};
    use crate::host::HostConfig;

    #[test]
    fn stall_process_alternates_with_configured_means() {
        let cfg = StallConfig {
            mean_interval: Dur::from_millis(9),
            mean_duration: Dur::from_millis(1),
        };
        let mut s = Stalls::new(&cfg, stream_rng(3, Stream::HostStall, 0));
        // A core that is always busy (jobs of 1 µs) meets every stall once, right after a job.
        let (mut now, mut stalled, mut stalls) = (Time::ZERO, Dur::ZERO, 0u32);
        while now < Time::ZERO + Dur::from_secs_f64(100.0) {
            match s.hold(now, true) {
                Some(len) => {
                    stalled += len;
                    stalls += 1;
                    now += len;
                }
                None => now += Dur::from_micros(1),
            }
        }
        // ≈ 10,000 stalls: the stalled fraction 1/(9 + 1) has a standard error of ≈ 1.4 %.
        let f = stalled.as_secs_f64() / now.as_secs_f64();
        assert!((f - 0.1).abs() < 0.005, "{f}");
        assert!((stalls as f64 / 10_000.0 - 1.0).abs() < 0.05, "{stalls}");
    }

    #[test]
    fn stall_process_skips_stalls_that_ended_while_idle() {
        let cfg = StallConfig {
            mean_interval: Dur::from_millis(1),
            mean_duration: Dur::from_micros(100),
        };
        let mut s = Stalls::new(&cfg, stream_rng(5, Stream::HostStall, 0));
        let (start, len) = (s.start, s.len);
        // Idle until mid-stall: held only for the rest of it.
        let mid = start + len / 2;
        assert_eq!(s.hold(mid, false), Some(start + len - mid));
        // Idle for 10 s: the stalls in between are over, so the core is free (or held by the
        // one stall in progress, never longer than it).
        let later = Time::ZERO + Dur::from_secs_f64(10.0);
        let (next_start, next_len) = (s.start, s.len);
        assert!(next_start >= start + len);
        if let Some(rest) = s.hold(later, false) {
            assert!(rest <= Dur::from_millis(5));
        }
        assert!(s.start > later);
        let _ = next_len;
    }

    #[test]
    fn stall_config_parses_inside_the_cpu_table() {
        let h: HostConfig =
            toml::from_str("cpu = { stall = { mean_interval = \"20ms\", mean_duration = \"500us\" } }").unwrap();
        let st = h.cpu.stall.expect("stall parsed");
        assert_eq!(
            (st.mean_interval, st.mean_duration),
            (Dur::from_millis(20), Dur::from_micros(500))
        );
        assert!(toml::from_str::<HostConfig>("cpu = { stall = { mean_interval = \"1ms\" } }").is_err());
    }
}
