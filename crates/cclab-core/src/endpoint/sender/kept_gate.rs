//! The window and pacing rate a send attempt worked out, kept for the attempts after it until an
//! input may change them.
//!
//! A pacer-bound sender polls about twice per packet (the paced wake-up's send, then the poll the
//! pacer refuses), and each attempt asked the controller its window through `dyn` and divided by
//! the smoothed RTT for the pacing rate. Both change only when the controller or the RTT estimator
//! does: on an ACK, a due timer, or a send to a controller that reads sends. So the sender keeps
//! them from the first paced attempt after such an input, and every input drops them
//! (`Sender::forget_gate`). An attempt with a kept gate also leaves the pacer's send quantum as the
//! attempt that kept it set it: none, as the gate is the window alone.

use super::Sender;

/// A window-gated controller's window and the pacing rate worked out from it (bytes, bytes/s);
/// [`KeptGate::NONE`]: none kept. No `Option`: its tag would take a sender's send a line further.
#[derive(Clone, Copy, Debug)]
pub(super) struct KeptGate {
    pub(super) window: u64,
    pub(super) rate: f64,
}

impl KeptGate {
    /// No gate kept: a window of `u64::MAX` is never kept, and is read from the controller each time.
    pub(super) const NONE: KeptGate = KeptGate {
        window: u64::MAX,
        rate: 0.0,
    };

    /// This gate, if one is kept.
    #[inline(always)]
    pub(super) fn get(self) -> Option<KeptGate> {
        (self.window != u64::MAX).then_some(self)
    }
}

impl Sender {
    /// The gate may be kept: the controller's is its window alone, which a send leaves as it was, and
    /// no PRR replaces it (PRR's window moves with every send). PRR starts and ends only on inputs,
    /// which drop the kept gate, so one kept while this held still holds.
    pub(super) fn may_keep_gate(&self) -> bool {
        self.cc_gate_is_window && !self.cc_reads_sends && self.prr.is_none()
    }

    /// Drops the kept gate: an input may have changed the controller or the RTT estimator.
    #[inline(always)]
    pub(super) fn forget_gate(&mut self) {
        self.kept_gate = KeptGate::NONE;
    }

    /// `None` when no gate is kept; else whether the kept one is what the controller and the RTT
    /// estimator say now, bit for bit, with the pacer still without a send quantum (an attempt with a
    /// kept gate does not set it again). For tests: the model tests ask it after every step, and it
    /// answers `Some(false)` if an input that changed either left the gate kept.
    pub fn kept_gate_matches(&self) -> Option<bool> {
        let k = self.kept_gate.get()?;
        Some(
            self.may_keep_gate()
                && !self.pacer.has_quantum()
                && k.window == self.cc.window()
                && k.rate.to_bits() == self.pacing_rate_from(None, k.window).to_bits(),
        )
    }
}
