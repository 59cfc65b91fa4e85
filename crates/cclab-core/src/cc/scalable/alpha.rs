//! DCTCP's estimate of the fraction of CE-marked packets, `alpha`, shared by DCTCP and Prague
//! (RFC 8257 §3.3, <https://www.rfc-editor.org/rfc/rfc8257#section-3.3>).

use crate::time::{Dur, Time};

/// An EWMA of the marked fraction, updated once per observation window (about one RTT): the
/// window ends when a packet sent after it began is acknowledged.
#[derive(Clone, Debug)]
pub struct CeAlpha {
    /// Estimation gain g (RFC 8257 §3.3 / §4.2: 1/16).
    gain: f64,
    alpha: f64,
    /// Packets acknowledged in this window (RFC 8257 `DCTCP.BytesAcked`, in packets).
    acked: u64,
    /// Of which reported CE-marked (`DCTCP.BytesMarked`).
    marked: u64,
    /// First packet number sent after this window began (`DCTCP.WindowEnd`); `None` before the
    /// first window.
    window_end: Option<u64>,
    /// No EWMA update until a CE mark has been seen (`held_until_marked`).
    held: bool,
    /// When the last window ended.
    ended_at: Option<Time>,
}

impl CeAlpha {
    /// An estimator starting at `alpha` with gain `gain`.
    pub fn new(alpha: f64, gain: f64) -> CeAlpha {
        CeAlpha {
            gain,
            alpha,
            acked: 0,
            marked: 0,
            window_end: None,
            held: false,
            ended_at: None,
        }
    }

    /// The same estimator, but keeping its initial value until the first CE mark: Linux
    /// `tcp_prague` does not update alpha "before we have proof that there's an AQM on the path"
    /// (`prague_update_alpha`, `saw_ce`), so with alpha starting at 1 the first response is a
    /// halving however long slow start lasted; updated from the start, alpha would have decayed
    /// by `(1 − g)` per unmarked round before the first mark.
    pub fn held_until_marked(mut self) -> CeAlpha {
        self.held = true;
        self
    }

    /// Whether the estimator still holds its initial value, waiting for the first CE mark
    /// (`held_until_marked`).
    pub fn before_first_mark(&self) -> bool {
        self.held
    }

    /// Current estimate, in [0, 1].
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// One ACK at `now`: `acked` newly acknowledged packets of which `marked` were CE-marked, the
    /// largest acknowledged packet number, and `next_pn`, the next packet number to be sent. A
    /// window ends when `largest_acked` reaches its end and at least `min_window` has passed since
    /// the last one ended (zero: once per round trip, RFC 8257; Prague's `rtt_virt` once it is
    /// RTT-independent, draft-01 §2.4.4, Linux `prague_should_update_ewma`). At its end (RFC 8257
    /// §3.3 step 4): `M = marked / acked`, `alpha = (1 − g)·alpha + g·M`; the counters restart and
    /// the next window ends with `next_pn`. Returns whether a window ended.
    ///
    /// Counts are packets, as QUIC's ECN counts are (RFC 9000 §13.4.1); with full-sized packets
    /// this is RFC 8257's byte fraction.
    pub fn on_ack(
        &mut self,
        now: Time,
        min_window: Dur,
        acked: u64,
        marked: u64,
        largest_acked: u64,
        next_pn: u64,
    ) -> bool {
        self.acked += acked;
        self.marked += marked;
        self.held &= marked == 0;
        let ended = self.window_end.is_none_or(|end| largest_acked >= end)
            && self.ended_at.is_none_or(|t| now.saturating_since(t) >= min_window);
        if !ended {
            return false;
        }
        if self.window_end.is_some() && self.acked > 0 && !self.held {
            let m = (self.marked as f64 / self.acked as f64).min(1.0);
            self.alpha = (1.0 - self.gain) * self.alpha + self.gain * m;
        }
        self.acked = 0;
        self.marked = 0;
        self.window_end = Some(next_pn);
        self.ended_at = Some(now);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dctcp_alpha_ewma_per_window() {
        // RFC 8257 §3.3 with g = 1/16 from alpha = 1: the first ACK only opens a window.
        let mut a = CeAlpha::new(1.0, 1.0 / 16.0);
        assert!(a.on_ack(Time::ZERO, Dur::ZERO, 1, 0, 0, 10));
        assert_eq!(a.alpha(), 1.0);
        // Packets 1..=9 acked, 3 of them marked; the window is not over until pn 10 is acked.
        assert!(!a.on_ack(Time::ZERO, Dur::ZERO, 9, 3, 9, 20));
        assert_eq!(a.alpha(), 1.0);
        // pn 10 acked (not marked): M = 3/10, alpha = 15/16 + 0.3/16.
        assert!(a.on_ack(Time::ZERO, Dur::ZERO, 1, 0, 10, 20));
        assert!((a.alpha() - (15.0 + 0.3) / 16.0).abs() < 1e-12);
        // An unmarked window decays alpha by (1 − g).
        let before = a.alpha();
        a.on_ack(Time::ZERO, Dur::ZERO, 10, 0, 20, 30);
        assert!((a.alpha() - before * 15.0 / 16.0).abs() < 1e-12);
    }

    #[test]
    fn prague_alpha_holds_its_initial_value_until_the_first_mark() {
        let mut a = CeAlpha::new(1.0, 1.0 / 16.0).held_until_marked();
        a.on_ack(Time::ZERO, Dur::ZERO, 1, 0, 0, 10);
        // Three unmarked windows: no decay (updated, alpha would be (15/16)³).
        for w in 1..4 {
            assert!(a.on_ack(Time::ZERO, Dur::ZERO, 10, 0, w * 10, w * 10 + 10));
        }
        assert_eq!(a.alpha(), 1.0);
        // The first marks count in their own window's update: M = 2/10.
        assert!(!a.on_ack(Time::ZERO, Dur::ZERO, 9, 2, 39, 50));
        assert!(a.on_ack(Time::ZERO, Dur::ZERO, 1, 0, 40, 50));
        assert!((a.alpha() - (15.0 + 0.2) / 16.0).abs() < 1e-12);
        // From then on an unmarked window decays alpha.
        let before = a.alpha();
        a.on_ack(Time::ZERO, Dur::ZERO, 10, 0, 50, 60);
        assert!((a.alpha() - before * 15.0 / 16.0).abs() < 1e-12);
    }

    #[test]
    fn prague_alpha_window_lasts_at_least_min_window() {
        // Windows of 25 ms (Prague's rtt_virt) on a 5 ms path: acking a window's last packet
        // 5 ms after it began does not end it; the first ACK 25 ms after does.
        let ms = |m: u64| Time(m * 1_000_000);
        let w = Dur::from_millis(25);
        let mut a = CeAlpha::new(1.0, 1.0 / 16.0);
        assert!(a.on_ack(ms(0), w, 1, 0, 0, 10));
        assert!(!a.on_ack(ms(5), w, 10, 5, 10, 20));
        assert!(!a.on_ack(ms(20), w, 10, 0, 20, 30));
        assert_eq!(a.alpha(), 1.0);
        // 30 packets acked since the window began, 5 marked: M = 1/6.
        assert!(a.on_ack(ms(25), w, 10, 0, 30, 40));
        assert!((a.alpha() - (15.0 + 1.0 / 6.0) / 16.0).abs() < 1e-12);
    }
}
