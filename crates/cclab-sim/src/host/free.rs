//! The event loop of a host whose CPU costs nothing (the default): every job starts and ends at
//! the instant it is taken, and no stall or idle state ever holds the core.
//!
//! It makes the same calls into the endpoints in the same order as the general loop in `mod.rs`
//! (timers, then send and receive jobs alternating while both are pending, each send job from
//! the next endpoint round-robin), so outputs do not depend on which loop ran. It only skips
//! the job bookkeeping that a zero cost makes moot: the job state, `busy_until`, the cost sums,
//! and the send job's own buffer (datagrams go straight to `out`, stamped with `now`, which is
//! when the general loop's zero-cost job ends too).

use super::{Host, Outbox};
use cclab_core::time::Time;

impl Host {
    /// `act` for a free host (`Host::free`). Returns the number of endpoints that became done.
    pub(super) fn run_free(&mut self, now: Time, out: &mut impl Outbox) -> usize {
        // Nothing touched an endpoint since the last `act` refreshed them, so the timers are current.
        let mut finished = self.fire_timers(now);
        loop {
            if self.send_turn || self.rx.is_empty() {
                if let Some(slot) = self.poll_send(now, true, out) {
                    // An endpoint may be done once its last datagram is out.
                    finished += Self::check_done(&mut self.slots[slot]);
                    self.send_turn = false;
                    continue;
                }
            }
            if self.rx.is_empty() {
                return finished;
            }
            for _ in 0..(self.max_rx as usize).min(self.rx.len()) {
                finished += self.receive_oldest(now, true);
            }
            self.send_turn = true;
        }
    }
}
