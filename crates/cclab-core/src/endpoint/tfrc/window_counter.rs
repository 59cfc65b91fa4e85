//! The CCID-3 window counter (CCVal), RFC 4342 §8.1
//! (<https://www.rfc-editor.org/rfc/rfc4342#section-8.1>): a 4-bit counter in every data
//! packet that advances once per quarter RTT, so that the receiver can tell RTTs apart without
//! timestamps.
//!
//! The division is done as an implementation does it: in whole units of its timestamp
//! resolution (µs in Linux). When the RTT estimate is below 4 units a quarter RTT rounds to 0,
//! and the counter stops: the old Linux code guarded the division by zero with
//! `if (rtt < 4) return;`. That freeze follows here from integer arithmetic plus the same guard.
//!
//! RFC 4342 §8.1 adds that after an ACK for a packet with counter W, later packets SHOULD carry at
//! least (W + 4) mod 16. Linux did not implement it, and it is not applied here: it would make the
//! counter advance by four on every feedback even when frozen, and so hide the RTT < 4 µs
//! failure this model must reproduce.

use crate::time::{Dur, NonZeroDur, Time};

/// The sender's window counter.
#[derive(Clone, Copy, Debug)]
pub struct WindowCounter {
    value: u8,
    last_update: Option<Time>,
    resolution_ns: u64,
}

impl WindowCounter {
    /// A counter at 0 that divides in whole units of `resolution` (1 µs as in Linux; 1 ns is exact).
    /// A resolution of 0, which used to be read as 1 ns, is not a `NonZeroDur`:
    ///
    /// ```compile_fail
    /// use cclab_core::endpoint::tfrc::window_counter::WindowCounter;
    /// WindowCounter::new(cclab_core::time::Dur::ZERO);
    /// ```
    pub fn new(resolution: NonZeroDur) -> WindowCounter {
        WindowCounter {
            value: 0,
            last_update: None,
            resolution_ns: resolution.as_nanos(),
        }
    }

    /// The counter of the last data packet, 0..=15.
    pub fn value(&self) -> u8 {
        self.value
    }

    /// Clock reading at which the counter last advanced (or started); Linux `t_last_win_count`.
    pub fn last_update(&self) -> Option<Time> {
        self.last_update
    }

    /// Updates the counter for a data packet sent at clock reading `now` with RTT estimate `rtt`
    /// and returns the CCVal the packet carries.
    pub fn on_data_sent(&mut self, now: Time, rtt: Dur) -> u8 {
        let Some(last) = self.last_update else {
            // RFC 4342 §8.1: the counter starts at 0 with the first data packet.
            self.last_update = Some(now);
            return self.value;
        };
        // quarter_rtts = floor((now - last_WC_time) / (R/4)), in integer resolution units.
        let quarter = rtt.as_nanos() / self.resolution_ns / 4;
        if quarter == 0 {
            // R < 4 units: the quarter RTT is 0 and the division is skipped (old Linux guard).
            return self.value;
        }
        let quarter_rtts = now.saturating_since(last).as_nanos() / self.resolution_ns / quarter;
        if quarter_rtts > 0 {
            // last_WC = (last_WC + min(quarter_rtts, 5)) mod 16.
            self.value = ((self.value as u64 + quarter_rtts.min(5)) % 16) as u8;
            self.last_update = Some(now);
        }
        self.value
    }
}

/// `(a - b) mod 16`: how far CCVal `a` is ahead of `b` (Linux `SUB16`).
pub fn ccval_ahead(a: u8, b: u8) -> u8 {
    a.wrapping_sub(b) & 0xF
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> Time {
        Time(x * 1_000)
    }

    #[test]
    fn window_counter_advances_one_per_quarter_rtt() {
        let mut wc = WindowCounter::new(NonZeroDur::from_micros(1));
        let rtt = Dur::from_micros(100);
        assert_eq!(wc.on_data_sent(us(0), rtt), 0);
        // A packet every 25 µs = R/4: one step per packet, wrapping mod 16.
        for k in 1..=40u64 {
            assert_eq!(wc.on_data_sent(us(25 * k), rtt) as u64, k % 16);
        }
        // Within the same quarter RTT nothing changes.
        assert_eq!(wc.on_data_sent(us(25 * 40 + 24), rtt) as u64, 40 % 16);
    }

    #[test]
    fn window_counter_caps_a_jump_at_five() {
        let mut wc = WindowCounter::new(NonZeroDur::from_micros(1));
        wc.on_data_sent(us(0), Dur::from_micros(100));
        // 98 ms later = 3920 quarter RTTs; the counter moves by 5.
        assert_eq!(wc.on_data_sent(us(98_000), Dur::from_micros(100)), 5);
        assert_eq!(wc.on_data_sent(us(196_000), Dur::from_micros(100)), 10);
        assert_eq!(wc.on_data_sent(us(294_000), Dur::from_micros(100)), 15);
        assert_eq!(wc.on_data_sent(us(392_000), Dur::from_micros(100)), 4);
    }

    #[test]
    fn window_counter_freezes_below_four_resolution_units() {
        // R = 3 µs at µs resolution: R/4 = 0 in integer µs, so the counter never advances.
        let mut wc = WindowCounter::new(NonZeroDur::from_micros(1));
        for k in 0..1000u64 {
            assert_eq!(wc.on_data_sent(us(97_778 * k), Dur::from_micros(3)), 0);
        }
        // The same RTT at ns resolution divides fine: 750 ns quarters.
        let mut fine = WindowCounter::new(NonZeroDur::NANOSECOND);
        fine.on_data_sent(Time(0), Dur::from_micros(3));
        assert_eq!(fine.on_data_sent(Time(750), Dur::from_micros(3)), 1);
        // At R = 4 µs the quarter is 1 µs and the counter runs.
        let mut four = WindowCounter::new(NonZeroDur::from_micros(1));
        four.on_data_sent(us(0), Dur::from_micros(4));
        assert_eq!(four.on_data_sent(us(2), Dur::from_micros(4)), 2);
    }

    #[test]
    fn ccval_distance_wraps() {
        assert_eq!(ccval_ahead(5, 0), 5);
        assert_eq!(ccval_ahead(1, 14), 3);
        assert_eq!(ccval_ahead(0, 1), 15);
    }
}
