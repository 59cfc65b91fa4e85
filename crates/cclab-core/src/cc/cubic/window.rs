//! CUBIC's window functions (RFC 9438 §4, <https://www.rfc-editor.org/rfc/rfc9438#section-4>)
//! and the clocks they read. Windows are in bytes, times in seconds, and `c` is C scaled to
//! bytes/s³ (C · MSS), as RFC 9438 §4.1 allows.

use super::{RttSource, TimeSource};
use crate::cc::CongestionEvent;
use crate::time::{Dur, Time};

/// α_cubic = 3(1 − β)/(1 + β) (RFC 9438 §4.3): AIMD(α, β) then matches Reno's average window.
pub(super) fn alpha(beta: f64) -> f64 {
    3.0 * (1.0 - beta) / (1.0 + beta)
}

/// K = ∛((W_max − cwnd_epoch)/C) (RFC 9438 §4.2 Eq. 2), seconds: when W_cubic returns to W_max.
pub(super) fn k(w_max: f64, cwnd_epoch: f64, c: f64) -> f64 {
    ((w_max - cwnd_epoch) / c).cbrt()
}

/// W_cubic(t) = C·(t − K)³ + W_max (RFC 9438 §4.2 Eq. 1), bytes.
pub(super) fn w_cubic(t: f64, k: f64, w_max: f64, c: f64) -> f64 {
    c * (t - k).powi(3) + w_max
}

/// target (RFC 9438 §4.2): W_cubic(t + RTT) clamped to [cwnd, 1.5·cwnd], so the window never
/// shrinks in congestion avoidance and never grows faster than slow start.
pub(super) fn target(w_cubic_next: f64, cwnd: f64) -> f64 {
    w_cubic_next.clamp(cwnd, 1.5 * cwnd)
}

/// W_est(t) = W_max·β + α·(t/RTT) segments (RFC 8312 §4.2 Eq. 4, the time-based form that
/// RFC 9438 replaced), in bytes for segments of `mss` bytes.
pub(super) fn w_est_time_based(w_max: f64, beta: f64, alpha: f64, t: f64, rtt: f64, mss: f64) -> f64 {
    w_max * beta + alpha * (t / rtt) * mss
}

/// The instant a congestion-avoidance epoch (t_epoch) began, on both clocks.
#[derive(Clone, Copy, Debug)]
pub(super) struct EpochStart {
    /// Clock reading.
    pub(super) time: Time,
    /// Tick counter (FreeBSD `t_epoch`, in ticks).
    pub(super) ticks: u64,
}

impl EpochStart {
    /// The epoch starts at this event.
    pub(super) fn at(ev: &CongestionEvent<'_>) -> EpochStart {
        EpochStart {
            time: ev.now,
            ticks: ev.ticks(),
        }
    }

    /// Moves the start later by the span from `since` to `ev`, so `t` skips an app-limited
    /// period (RFC 9438 §4.2, §5.8).
    pub(super) fn skip(&mut self, since: EpochStart, ev: &CongestionEvent<'_>) {
        self.time += ev.now.saturating_since(since.time);
        self.ticks += ev.ticks().saturating_sub(since.ticks);
    }

    /// t = t_current − t_epoch in seconds, read from the chosen source.
    pub(super) fn elapsed(&self, src: TimeSource, ev: &CongestionEvent<'_>) -> f64 {
        match src {
            TimeSource::Clock => ev.now.saturating_since(self.time).as_secs_f64(),
            // FreeBSD cc_cubic: usecs_since_epoch = (ticks − t_epoch) · tick (transport digest
            // §10), even after commit a3aa6f6 moved its RTTs to µs: t advances once per tick.
            TimeSource::Ticks => (ev.tick.get() * ev.ticks().saturating_sub(self.ticks)).as_secs_f64(),
        }
    }
}

/// The RTT CUBIC uses (in `target` and the time-based W_est), in seconds.
pub(super) fn rtt_secs(src: RttSource, ev: &CongestionEvent<'_>) -> f64 {
    let srtt = ev.rtt.smoothed();
    match src {
        RttSource::Smoothed => srtt.as_secs_f64(),
        // FreeBSD cc_cubic before commit a3aa6f6 kept the mean RTT in ticks, at least one: a
        // 50 µs RTT counts as 1 ms at HZ = 1000, so t/RTT runs 20× slow (digest §10, seed 001).
        RttSource::Ticks => {
            let tick = ev.tick.as_nanos();
            let ticks = ((srtt.as_nanos() + tick / 2) / tick).max(1);
            Dur(tick * ticks).as_secs_f64()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::{event, rtt_of};

    #[test]
    fn cubic_k_and_w_cubic_closed_forms() {
        // W_max = 100, cwnd_epoch = 70 segments, C = 0.4: K = ∛75 = 4.217163 s.
        let k = k(100.0, 70.0, 0.4);
        assert!((k - 4.217_163).abs() < 1e-6, "{k}");
        assert!((w_cubic(0.0, k, 100.0, 0.4) - 70.0).abs() < 1e-9);
        assert!((w_cubic(k, k, 100.0, 0.4) - 100.0).abs() < 1e-12);
        // One second past K: W_max + C = 100.4; 2 s before: 100 − 0.4·(2.217163)³ = 95.640.
        assert!((w_cubic(k + 1.0, k, 100.0, 0.4) - 100.4).abs() < 1e-9);
        assert!((w_cubic(2.0, k, 100.0, 0.4) - 95.640_4).abs() < 1e-4);
        // In bytes (C·MSS, windows·MSS) the same K: the equation is unit-consistent.
        assert!((self::k(100.0 * 1200.0, 70.0 * 1200.0, 0.4 * 1200.0) - k).abs() < 1e-9);
        assert!((alpha(0.7) - 9.0 / 17.0).abs() < 1e-15);
    }

    #[test]
    fn cubic_target_is_clamped() {
        assert_eq!(target(90.0, 100.0), 100.0);
        assert_eq!(target(120.0, 100.0), 120.0);
        assert_eq!(target(200.0, 100.0), 150.0);
    }

    #[test]
    fn cubic_tick_sources_quantise_time_and_rtt() {
        let rtt = rtt_of(Dur::from_micros(50));
        let start = EpochStart {
            time: Time(1_000_000),
            ticks: 1,
        };
        // At 3.95 ms the clock gives t = 2.95 ms; the tick counter reads 3, so t = 2 ticks = 2 ms.
        let ev = event(Time(3_950_000), &[], &[], &rtt);
        assert!((start.elapsed(TimeSource::Clock, &ev) - 2.95e-3).abs() < 1e-12);
        assert!((start.elapsed(TimeSource::Ticks, &ev) - 2e-3).abs() < 1e-12);
        // A 50 µs smoothed RTT rounds to 0 ticks and is raised to one: 1 ms.
        assert!((rtt_secs(RttSource::Smoothed, &ev) - 50e-6).abs() < 1e-15);
        assert!((rtt_secs(RttSource::Ticks, &ev) - 1e-3).abs() < 1e-15);
        let rtt = rtt_of(Dur::from_micros(2600));
        assert!((rtt_secs(RttSource::Ticks, &event(Time(0), &[], &[], &rtt)) - 3e-3).abs() < 1e-15);
    }
}
