//! Which of a host's endpoints need the host, without looking at every endpoint.
//!
//! A host with thousands of endpoints (a p2p scenario with many flows) used to scan all of
//! them on every wake-up: for the earliest timer, for due timers, and round-robin for one that
//! could send. That made each event cost O(flows). Here each endpoint's wake-up time (its start
//! before it starts, then its `poll_timeout`) sits in an indexed heap that is refreshed once
//! per event after calls into the endpoint, and the endpoints that may have something to send sit in a
//! bit set (`ready.rs`). An endpoint leaves that set when `poll_transmit` returns nothing and comes back
//! when a datagram, a timer or its start touches it: by the `Endpoint` contract, `poll_timeout`
//! names the time at which `poll_transmit` next has work, so untouched endpoints have none.
//! (Hosts with few endpoints keep every one in the set: see `Host::poll_send`.)

use super::ready::ReadySet;
use crate::engine::Scheduler;
use cclab_core::time::Time;

/// Wake-up times and send readiness of a host's slots.
pub(super) struct Wakeups {
    timers: Scheduler,
    /// Slots that may have a datagram to send.
    ready: ReadySet,
    /// Slot count the scheduler was built for.
    capacity: usize,
}

impl Wakeups {
    pub(super) fn new() -> Wakeups {
        Wakeups {
            timers: Scheduler::new(0),
            ready: ReadySet::default(),
            capacity: 0,
        }
    }

    /// Slot `slot` was added, waking first at `start`.
    pub(super) fn add(&mut self, slot: u16, start: Time) {
        let n = slot as usize + 1;
        if n > self.capacity {
            // Slots are added before the run; rebuilding keeps the scheduler's flat mode for small hosts.
            let old = std::mem::replace(&mut self.timers, Scheduler::new(n.next_power_of_two()));
            for s in 0..self.capacity as u32 {
                self.timers.set(s, old.pending(s));
            }
            self.capacity = n.next_power_of_two();
        }
        self.timers.set(slot as u32, Some(start));
        self.ready.grow(n);
        self.ready.insert(slot);
    }

    /// Slot `slot` next needs the host at `t` (`None`: only when a datagram arrives).
    pub(super) fn set(&mut self, slot: u16, t: Option<Time>) {
        self.timers.set(slot as u32, t);
    }

    /// The earliest wake-up of any slot.
    pub(super) fn earliest(&self) -> Option<Time> {
        self.timers.peek().map(|(t, _)| t)
    }

    /// Removes the slots due at or before `now` into `due`, in slot order.
    pub(super) fn take_due(&mut self, now: Time, due: &mut Vec<u16>) {
        while let Ok((_, slot)) = self.timers.pop_until(now) {
            due.push(slot as u16);
        }
        due.sort_unstable();
    }

    /// `slot` may have something to send.
    pub(super) fn mark_ready(&mut self, slot: u16) {
        self.ready.insert(slot);
    }

    /// `slot` has nothing to send until something touches it.
    pub(super) fn unready(&mut self, slot: u16) {
        self.ready.remove(slot);
    }

    /// The first ready slot in `lo..hi`.
    pub(super) fn next_ready(&self, lo: usize, hi: usize) -> Option<usize> {
        if lo >= hi {
            return None;
        }
        self.ready.first_from(lo).filter(|&s| s < hi)
    }
}
