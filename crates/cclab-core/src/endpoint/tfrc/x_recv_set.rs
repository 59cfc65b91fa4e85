//! The sender's `X_recv_set` (RFC 5348 §4.3, <https://www.rfc-editor.org/rfc/rfc5348#section-4.3>):
//! recent receive rates reported by feedback, whose maximum bounds the allowed rate.

use std::collections::VecDeque;

use crate::time::{Dur, Time};

/// Receive rates in bytes/s with the clock reading at which each entered the set.
#[derive(Clone, Debug)]
pub struct XRecvSet {
    items: VecDeque<(Time, f64)>,
}

impl XRecvSet {
    /// The initial set `{Infinity}` (RFC 5348 §4.2).
    pub fn new(now: Time) -> XRecvSet {
        XRecvSet {
            items: VecDeque::from([(now, f64::INFINITY)]),
        }
    }

    /// Largest rate in the set, bytes/s.
    pub fn max(&self) -> f64 {
        self.items.iter().fold(0.0, |m, &(_, x)| f64::max(m, x))
    }

    /// Step 4 of RFC 5348 §4.3 up to `recv_limit`, which it returns (bytes/s). `data_limited`:
    /// the whole interval covered by the feedback was data-limited; `loss_increase`: the
    /// feedback reports a new loss event or a higher `p`.
    pub fn on_feedback(&mut self, now: Time, x_recv: f64, data_limited: bool, loss_increase: bool, rtt: Dur) -> f64 {
        if !data_limited {
            // Update X_recv_set(): add X_recv, delete values older than two round-trip times.
            self.items.push_back((now, x_recv));
            while self
                .items
                .front()
                .is_some_and(|&(t, _)| now.saturating_since(t) > rtt * 2)
            {
                self.items.pop_front();
            }
            return 2.0 * self.max();
        }
        if loss_increase {
            // Halve entries in X_recv_set; X_recv = 0.85 · X_recv; Maximize; recv_limit = max.
            self.items.iter_mut().for_each(|(_, x)| *x /= 2.0);
            self.maximize(now, 0.85 * x_recv);
            self.max()
        } else {
            self.maximize(now, x_recv);
            2.0 * self.max()
        }
    }

    /// Maximize X_recv_set(): add `x_recv`, drop Infinity, keep only the largest item, stamped now.
    fn maximize(&mut self, now: Time, x_recv: f64) {
        let largest = self
            .items
            .iter()
            .map(|&(_, x)| x)
            .filter(|x| x.is_finite())
            .fold(x_recv, f64::max);
        self.items.clear();
        self.items.push_back((now, largest));
    }

    /// Update_Limits of RFC 5348 §4.4: the set becomes `{limit/2}`.
    pub fn reset(&mut self, now: Time, half_limit: f64) {
        self.items.clear();
        self.items.push_back((now, half_limit));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: Dur = Dur::from_millis(10);

    #[test]
    fn x_recv_set_starts_unbounded_and_ages_out() {
        let mut set = XRecvSet::new(Time::ZERO);
        // 15 ms < 2R: Infinity is still young, so nothing limits yet.
        assert_eq!(
            set.on_feedback(Time(15_000_000), 1000.0, false, false, R),
            f64::INFINITY
        );
        // At 25 ms Infinity (age 25 ms > 20 ms) is gone: recv_limit = 2 · max(1000, 600).
        assert_eq!(set.on_feedback(Time(25_000_000), 600.0, false, false, R), 2000.0);
        // At 40 ms the 1000 entry (age 25 ms) ages out: 2 · max(600, 500).
        assert_eq!(set.on_feedback(Time(40_000_000), 500.0, false, false, R), 1200.0);
    }

    #[test]
    fn x_recv_set_data_limited_keeps_the_maximum() {
        let mut set = XRecvSet::new(Time::ZERO);
        // Data-limited: Maximize drops Infinity and keeps the largest ever reported.
        assert_eq!(set.on_feedback(Time(1), 800.0, true, false, R), 1600.0);
        assert_eq!(
            set.on_feedback(Time::ZERO + Dur::from_secs(9), 300.0, true, false, R),
            1600.0
        );
        // A loss increase halves the set (400) and adds 0.85 · 300 = 255: recv_limit = 400.
        assert_eq!(
            set.on_feedback(Time::ZERO + Dur::from_secs(10), 300.0, true, true, R),
            400.0
        );
        set.reset(Time::ZERO + Dur::from_secs(11), 50.0);
        assert_eq!(set.max(), 50.0);
    }
}
