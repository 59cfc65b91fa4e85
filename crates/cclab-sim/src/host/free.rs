//! The event loop of a host whose CPU costs nothing (the default): every job starts and ends at
//! the instant it is taken, and no stall or idle state ever holds the core.
//!
//! It makes the same calls into the endpoints in the same order as the general loop in `mod.rs`
//! (timers, then send and receive jobs alternating while both are pending, each send job from
//! the next endpoint round-robin), so outputs do not depend on which loop ran. It only skips
//! the job bookkeeping that a zero cost makes moot: the job state, `busy_until`, the cost sums,
//! and the send job's own buffer (datagrams go straight to `out`, stamped with `now`, which is
//! when the general loop's zero-cost job ends too).

use super::{Host, Inbox, Outbox};
use cclab_core::time::Time;

impl Host {
    /// `act` for a free host (`Host::free`), with `arrival` for that slot in `out` (see `Host::act`).
    /// Returns the number of endpoints that became done.
    pub(super) fn run_free(&mut self, now: Time, out: &mut (impl Outbox + Inbox), arrival: Option<u16>) -> usize {
        // Nothing touched an endpoint since the last `act` refreshed them, so the timers are current.
        let mut finished = self.fire_timers(now);
        // The datagram handed straight to the host is taken where the loop would take it alone
        // from the socket buffer (a send first if it is the send turn). One place polls, so that
        // `poll_send` stays inlined.
        let mut arrival = arrival;
        loop {
            if self.send_turn || (self.rx.is_empty() && arrival.is_none()) {
                if let Some(slot) = self.poll_send(now, true, out) {
                    // An endpoint may be done once its last datagram is out.
                    finished += Self::check_done(&mut self.slots[slot]);
                    self.send_turn = false;
                    continue;
                }
            }
            let batch = if arrival.is_some() {
                1
            } else if self.rx.is_empty() {
                return finished;
            } else {
                (self.max_rx as usize).min(self.rx.len())
            };
            for _ in 0..batch {
                finished += self.receive_next(now, &mut arrival, out);
            }
            self.send_turn = true;
        }
    }

    /// Hands the datagram handed straight to the host (`arrival`, taken) or else the oldest one
    /// waiting in the socket buffer (there is one) to its endpoint at `now`; returns 1 if the endpoint
    /// became done. One place hands either to the endpoint, so that its call stays inlined once.
    #[inline(always)]
    fn receive_next(&mut self, now: Time, arrival: &mut Option<u16>, out: &mut impl Inbox) -> usize {
        let (slot, d) = match arrival.take() {
            Some(slot) => (slot, out.take()),
            None => match self.rx.take_first() {
                Some((slot, d)) => {
                    self.rx_bytes -= d.size as u64;
                    (slot, d)
                }
                None => return self.receive_backlog(now, true),
            },
        };
        self.receive(now, slot, d)
    }
}
