//! BBR.max_bw (draft-ietf-ccwg-bbr-01 §5.5.2, §5.5.5): the maximum delivery rate over the last
//! two ProbeBW cycles. The window is counted in bandwidth-probing cycles, not rounds, so that a
//! flow that probes every 2–3 s keeps the bandwidth it found in its last probe until the next.
//!
//! Two slots, as Linux v3 `bw_hi[2]` (`bbr_take_max_bw_sample`, `bbr_advance_max_bw_filter`):
//! the previous cycle's max and the current cycle's max. The generic `WindowedFilter` does not
//! fit here: with a window of one cycle its quarter- and half-window refreshes would replace the
//! previous cycle's max by later, lower samples before the cycle ends.

/// Max delivery rate of the current and the previous ProbeBW cycle, bytes/s.
#[derive(Clone, Debug, Default)]
pub(super) struct MaxBw {
    /// `[previous cycle, current cycle]`.
    slots: [f64; 2],
}

impl MaxBw {
    /// A delivery-rate sample of this cycle.
    pub(super) fn update(&mut self, bw: f64) {
        self.slots[1] = self.slots[1].max(bw);
    }

    /// `BBRAdvanceMaxBwFilter`: a new cycle starts. Without a sample in the cycle that ended,
    /// the older max stays (Linux: "no samples in this window; remember old window").
    pub(super) fn advance(&mut self) {
        if self.slots[1] > 0.0 {
            self.slots = [self.slots[1], 0.0];
        }
    }

    /// BBR.max_bw, bytes/s (0 before any sample).
    pub(super) fn get(&self) -> f64 {
        self.slots[0].max(self.slots[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_bw_keeps_two_cycles_then_forgets() {
        let mut m = MaxBw::default();
        m.update(100.0);
        m.update(50.0);
        assert_eq!(m.get(), 100.0);
        m.advance();
        m.update(60.0);
        assert_eq!(m.get(), 100.0, "the previous cycle's max still counts");
        m.advance();
        assert_eq!(m.get(), 60.0, "two cycles later the 100 is gone");
        m.advance();
        assert_eq!(m.get(), 60.0, "a cycle without samples keeps the older window");
    }
}
