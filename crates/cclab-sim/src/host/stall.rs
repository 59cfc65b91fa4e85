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

/// The stall process of one host.
pub(crate) struct Stalls {
    cfg: StallConfig,
    rng: Rng,
    /// When the next stall is due.
    next: Time,
}

impl Stalls {
    /// A process whose first run period starts at time zero.
    pub(crate) fn new(cfg: &StallConfig, mut rng: Rng) -> Stalls {
        let next = Time::ZERO + exponential(&mut rng, cfg.mean_interval);
        Stalls {
            cfg: cfg.clone(),
            rng,
            next,
        }
    }

    /// When the next stall is due.
    pub(crate) fn next_start(&self) -> Time {
        self.next
    }

    /// If a stall is due at `now`, starts it and returns its length; the next one is then due
    /// a run period after it ends.
    pub(crate) fn start_due(&mut self, now: Time) -> Option<Dur> {
        if now < self.next {
            return None;
        }
        let len = exponential(&mut self.rng, self.cfg.mean_duration);
        self.next = now + len + exponential(&mut self.rng, self.cfg.mean_interval);
        Some(len)
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
        assert_eq!(s.start_due(s.next_start() - Dur(1)), None);
        let (n, mut stalled, mut end) = (20_000u64, Dur::ZERO, Time::ZERO);
        let mut run = Dur::ZERO;
        for _ in 0..n {
            let start = s.next_start();
            run += start.saturating_since(end);
            let len = s.start_due(start).expect("due at its start");
            stalled += len;
            end = start + len;
        }
        // Exponential means: standard error of each mean ≈ mean / sqrt(n) = 0.7 % here.
        let mean_len = stalled.as_secs_f64() / n as f64;
        let mean_run = run.as_secs_f64() / n as f64;
        assert!((mean_len / 1e-3 - 1.0).abs() < 0.03, "{mean_len}");
        assert!((mean_run / 9e-3 - 1.0).abs() < 0.03, "{mean_run}");
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
