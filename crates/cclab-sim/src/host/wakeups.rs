//! Which of a host's endpoints need the host, without looking at every endpoint.
//!
//! A host with thousands of endpoints (a p2p scenario with many flows) used to scan all of
//! them on every wake-up: for the earliest timer, for due timers, and round-robin for one that
//! could send. That made each event cost O(flows). Here each endpoint's wake-up time (its start
//! before it starts, then its `poll_timeout`) sits in an indexed heap that is refreshed once
//! per event after calls into the endpoint, and the endpoints that may have something to send sit in a
//! bit set (`slot_set.rs`). An endpoint leaves that set when `poll_transmit` returns nothing and comes back
//! when a datagram, a timer or its start touches it: by the `Endpoint` contract, `poll_timeout`
//! names the time at which `poll_transmit` next has work, so untouched endpoints have none.
//! (Hosts with few endpoints keep every one in the set: see `Host::poll_send`.) A host with at
//! most [`FEW`] endpoints (a dumbbell's hosts have one) keeps their times in place instead of
//! in the heap, so with thousands of hosts a wake-up reads no memory outside the host.

use super::slot_set::SlotSet;
use crate::engine::Scheduler;
use cclab_core::time::Time;
use std::cell::Cell;

thread_local! {
    /// The list of due slots of hosts with many slots, shared by a thread's hosts: it lives only while one
    /// host fires its timers. A list per host was a heap line (and page) of its own, and its header a
    /// fifth line of the host, touched per timer with thousands of hosts.
    static DUE: Cell<Vec<u16>> = const { Cell::new(Vec::new()) };
}

/// The slots due at one instant, in slot order: in place for a host with few slots (no memory
/// outside the stack, not even a thread-local), else in this thread's list.
pub(super) enum Due {
    Few([u16; FEW], usize),
    Many(Vec<u16>),
}

impl Due {
    pub(super) fn slots(&self) -> &[u16] {
        match self {
            Due::Few(s, n) => &s[..*n],
            Due::Many(v) => v,
        }
    }

    /// Hands a thread's list back, its capacity kept.
    pub(super) fn give_back(self) {
        if let Due::Many(v) = self {
            DUE.set(v);
        }
    }
}

/// Most slots whose wake-up times are kept in place.
const FEW: usize = 4;

/// Wake-up times of a host's slots.
enum Timers {
    /// At most one slot (each host of a point-to-point run or a dumbbell): its time in ns,
    /// `u64::MAX` for none. Its earliest time is the time itself, read twice per host event,
    /// where the least of `Few`'s four took a dozen instructions each time.
    One(u64),
    /// Up to [`FEW`] slots: time in ns per slot, `u64::MAX` for none.
    Few([u64; FEW]),
    /// More: an indexed heap (flat itself up to 16 actors), boxed so that it does not spread the
    /// host's other fields over more cache lines.
    Many(Box<Scheduler>),
}

/// Wake-up times and send readiness of a host's slots (in this order: see `Host`).
#[repr(C)]
pub(super) struct Wakeups {
    timers: Timers,
    /// Slots that may have a datagram to send.
    ready: SlotSet,
    /// Slot count the scheduler was built for (0 while the times are in place).
    capacity: usize,
}

impl Wakeups {
    pub(super) fn new() -> Wakeups {
        Wakeups {
            timers: Timers::One(u64::MAX),
            ready: SlotSet::default(),
            capacity: 0,
        }
    }

    /// Slot `slot` was added, waking first at `start`.
    pub(super) fn add(&mut self, slot: u16, start: Time) {
        let n = slot as usize + 1;
        if n > FEW && n > self.capacity {
            // Slots are added before the run; rebuilding keeps the scheduler's flat mode for small hosts.
            let mut timers = Scheduler::new(n.next_power_of_two());
            for s in 0..self.capacity.max(FEW) as u16 {
                timers.set(s as u32, self.pending(s));
            }
            self.timers = Timers::Many(Box::new(timers));
            self.capacity = n.next_power_of_two();
        } else if let (Timers::One(t), true) = (&self.timers, n > 1) {
            let mut times = [u64::MAX; FEW];
            times[0] = *t;
            self.timers = Timers::Few(times);
        }
        self.set(slot, Some(start));
        self.ready.grow(n);
        self.ready.insert(slot);
    }

    /// Slot `slot` next needs the host at `t` (`None`: only when a datagram arrives).
    pub(super) fn set(&mut self, slot: u16, t: Option<Time>) {
        let ns = t.map_or(u64::MAX, |t| t.0);
        match &mut self.timers {
            Timers::One(one) => {
                debug_assert_eq!(slot, 0, "a host with one slot");
                *one = ns;
            }
            Timers::Few(times) => times[slot as usize] = ns,
            Timers::Many(s) => s.set(slot as u32, t),
        }
    }

    /// The one slot's wake-up time in ns (`u64::MAX`: none), for the loop of a host of one
    /// endpoint (`single.rs`), which reads and sets it in place.
    ///
    /// # Panics
    /// If the host has more than one slot.
    #[inline(always)]
    pub(super) fn one(&mut self) -> &mut u64 {
        match &mut self.timers {
            Timers::One(t) => t,
            _ => panic!("a host with more than one slot"),
        }
    }

    fn pending(&self, slot: u16) -> Option<Time> {
        match &self.timers {
            Timers::One(t) => (slot == 0 && *t != u64::MAX).then_some(Time(*t)),
            Timers::Few(times) => times.get(slot as usize).filter(|&&t| t != u64::MAX).map(|&t| Time(t)),
            Timers::Many(s) => s.pending(slot as u32),
        }
    }

    /// The earliest wake-up of any slot.
    pub(super) fn earliest(&self) -> Option<Time> {
        match &self.timers {
            Timers::One(t) => (*t != u64::MAX).then_some(Time(*t)),
            // The least value, not a reference to it: `iter().min()` chose between the entries' addresses.
            Timers::Few(times) => Some(times.iter().fold(u64::MAX, |a, &t| a.min(t)))
                .filter(|&t| t != u64::MAX)
                .map(Time),
            Timers::Many(s) => s.peek().map(|(t, _)| t),
        }
    }

    /// Removes the slots due at or before `now`, in slot order (give the list back with [`Due::give_back`]).
    pub(super) fn take_due(&mut self, now: Time) -> Due {
        match &mut self.timers {
            Timers::One(t) => {
                let n = usize::from(*t <= now.0);
                if n == 1 {
                    *t = u64::MAX;
                }
                Due::Few([0; FEW], n)
            }
            Timers::Few(times) => {
                let (mut due, mut n) = ([0; FEW], 0);
                for (slot, t) in times.iter_mut().enumerate() {
                    if *t <= now.0 {
                        *t = u64::MAX;
                        due[n] = slot as u16;
                        n += 1;
                    }
                }
                Due::Few(due, n)
            }
            Timers::Many(s) => {
                // A nested call (none is made) would find the list taken and start a new one.
                let mut due = DUE.take();
                due.clear();
                while let Ok((_, slot)) = s.pop_until(now) {
                    due.push(slot as u16);
                }
                due.sort_unstable();
                Due::Many(due)
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ns: u64) -> Time {
        Time(ns)
    }

    #[test]
    fn wakeups_keep_the_first_slot_in_place_until_a_second_comes() {
        let mut w = Wakeups::new();
        assert_eq!(w.earliest(), None);
        w.add(0, t(30));
        assert_eq!(w.earliest(), Some(t(30)));
        w.set(0, Some(t(20)));
        // A second slot moves the first's time along, not its start's.
        w.add(1, t(25));
        assert_eq!((w.pending(0), w.pending(1)), (Some(t(20)), Some(t(25))));
        assert_eq!(w.earliest(), Some(t(20)));
        assert_eq!(w.take_due(t(25)).slots(), &[0, 1]);
        assert_eq!(w.earliest(), None);
    }

    #[test]
    fn wakeups_of_one_slot_fall_due_once() {
        let mut w = Wakeups::new();
        w.add(0, t(10));
        assert_eq!(w.take_due(t(9)).slots(), &[] as &[u16]);
        assert_eq!(w.take_due(t(10)).slots(), &[0]);
        assert_eq!((w.earliest(), w.pending(0)), (None, None));
        w.set(0, None);
        assert_eq!(w.earliest(), None);
        w.set(0, Some(t(40)));
        assert_eq!(w.take_due(t(50)).slots(), &[0]);
    }

    #[test]
    fn wakeups_of_many_slots_keep_those_set_in_place() {
        let mut w = Wakeups::new();
        w.add(0, t(70));
        w.add(1, t(60));
        w.set(0, Some(t(15)));
        for s in 2..6 {
            w.add(s, t(100 + s as u64));
        }
        assert_eq!((w.pending(0), w.pending(1)), (Some(t(15)), Some(t(60))));
        assert_eq!(w.take_due(t(103)).slots(), &[0, 1, 2, 3]);
        assert_eq!(w.earliest(), Some(t(104)));
    }
}
