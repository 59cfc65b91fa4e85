//! The event queue: one pending wake-up per actor, earliest request wins, FIFO among equal times.
//!
//! An indexed binary min-heap over `(time, seq)` with one slot per actor (quiche's `Simulator`
//! keeps one `Act()` time per actor the same way). Requesting an earlier wake-up moves the
//! actor's entry up; a later request is ignored, because the actor recomputes its next wake-up
//! whenever it runs. `seq` grows with every request, so actors due at the same instant run in
//! the order their wake-ups were requested. The heap holds at most one entry per actor, so its
//! size is the number of actors, not of packets in flight: no allocation per event. With few
//! actors (a point-to-point run has five) a flat scan beats the heap, so up to
//! [`FLAT_MAX_ACTORS`] the entries stay unordered, indexed by actor.

use cclab_core::time::Time;

/// Index of an actor (a link, a host, the sampler), dense from 0.
pub type ActorId = u32;

const NONE: u32 = u32::MAX;
/// Largest actor count kept as a flat array scanned on `pop`.
pub const FLAT_MAX_ACTORS: usize = 16;
/// Bits of `Entry::key` holding the actor; the rest hold the request sequence number.
const ACTOR_BITS: u32 = 24;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    time: u64,
    /// `seq << ACTOR_BITS | actor`: orders equal times by request order.
    key: u64,
}

impl Entry {
    fn actor(self) -> ActorId {
        (self.key & ((1 << ACTOR_BITS) - 1)) as ActorId
    }
}

/// Wake-up times of a fixed set of actors.
#[derive(Debug)]
pub struct Scheduler {
    /// Heap mode: the binary heap. Flat mode: entry of actor `a` at index `a` (`time` =
    /// `u64::MAX` when none is pending).
    heap: Vec<Entry>,
    /// Heap index of each actor's entry, `NONE` if it has no pending wake-up (heap mode only).
    pos: Vec<u32>,
    flat: bool,
    seq: u64,
}

impl Scheduler {
    /// A scheduler for `actors` actors, none of them scheduled.
    ///
    /// # Panics
    /// If `actors` does not fit in 24 bits.
    pub fn new(actors: usize) -> Scheduler {
        assert!(actors < (1 << ACTOR_BITS), "too many actors: {actors}");
        if actors <= FLAT_MAX_ACTORS {
            let heap = (0..actors as u64).map(|a| Entry { time: u64::MAX, key: a }).collect();
            return Scheduler {
                heap,
                pos: Vec::new(),
                flat: true,
                seq: 0,
            };
        }
        Scheduler {
            heap: Vec::with_capacity(actors),
            pos: vec![NONE; actors],
            flat: false,
            seq: 0,
        }
    }

    /// Asks for `actor` to run at `t`; a pending earlier or equal request stays as it is.
    pub fn schedule(&mut self, actor: ActorId, t: Time) {
        let key = (self.seq << ACTOR_BITS) | actor as u64;
        if self.flat {
            let e = &mut self.heap[actor as usize];
            if t.0 < e.time {
                self.seq += 1;
                *e = Entry { time: t.0, key };
            }
            return;
        }
        let i = self.pos[actor as usize];
        if i == NONE {
            self.seq += 1;
            self.heap.push(Entry { time: t.0, key });
            self.sift_up(self.heap.len() - 1);
        } else if t.0 < self.heap[i as usize].time {
            self.seq += 1;
            self.heap[i as usize] = Entry { time: t.0, key };
            self.sift_up(i as usize);
        }
    }

    /// Drops `actor`'s pending wake-up, if any, so that a later request can replace it.
    pub fn cancel(&mut self, actor: ActorId) {
        if self.flat {
            self.heap[actor as usize].time = u64::MAX;
            return;
        }
        let i = self.pos[actor as usize];
        if i == NONE {
            return;
        }
        self.pos[actor as usize] = NONE;
        let last = self.heap.pop().expect("a pending actor is in the heap");
        if (i as usize) < self.heap.len() {
            // The last entry fills the hole and moves whichever way restores the order.
            self.heap[i as usize] = last;
            self.pos[last.actor() as usize] = i;
            self.sift_up(i as usize);
            let j = self.pos[last.actor() as usize] as usize;
            self.sift_down(j);
        }
    }

    /// Sets `actor`'s wake-up to `t` (earlier or later than a pending one), or none.
    pub fn set(&mut self, actor: ActorId, t: Option<Time>) {
        self.cancel(actor);
        if let Some(t) = t {
            self.schedule(actor, t);
        }
    }

    /// The pending wake-up of `actor`, if any.
    pub fn pending(&self, actor: ActorId) -> Option<Time> {
        if self.flat {
            let t = self.heap[actor as usize].time;
            return (t != u64::MAX).then_some(Time(t));
        }
        let i = self.pos[actor as usize];
        (i != NONE).then(|| Time(self.heap[i as usize].time))
    }

    /// Index of the earliest entry in flat mode.
    fn flat_min(&self) -> Option<usize> {
        let (i, e) = self.heap.iter().enumerate().min_by_key(|(_, e)| **e)?;
        (e.time != u64::MAX).then_some(i)
    }

    /// The earliest wake-up, without removing it.
    pub fn peek(&self) -> Option<(Time, ActorId)> {
        let e = if self.flat {
            self.heap[self.flat_min()?]
        } else {
            *self.heap.first()?
        };
        Some((Time(e.time), e.actor()))
    }

    /// Removes and returns the earliest wake-up.
    pub fn pop(&mut self) -> Option<(Time, ActorId)> {
        self.pop_until(Time(u64::MAX)).ok()
    }

    /// Removes and returns the earliest wake-up if it is due at or before `end`; otherwise
    /// leaves it pending and returns its time (`None`: nothing is pending). One scan of the
    /// flat array instead of a `peek` and a `pop`.
    pub fn pop_until(&mut self, end: Time) -> Result<(Time, ActorId), Option<Time>> {
        if self.flat {
            let i = self.flat_min().ok_or(None)?;
            let e = self.heap[i];
            if e.time > end.0 {
                return Err(Some(Time(e.time)));
            }
            self.heap[i].time = u64::MAX;
            return Ok((Time(e.time), e.actor()));
        }
        let top = *self.heap.first().ok_or(None)?;
        if top.time > end.0 {
            return Err(Some(Time(top.time)));
        }
        let last = self.heap.pop().expect("heap is not empty");
        self.pos[top.actor() as usize] = NONE;
        if !self.heap.is_empty() {
            self.heap[0] = last;
            self.pos[last.actor() as usize] = 0;
            self.sift_down(0);
        }
        Ok((Time(top.time), top.actor()))
    }

    fn sift_up(&mut self, mut i: usize) {
        let e = self.heap[i];
        while i > 0 {
            let parent = (i - 1) / 2;
            if self.heap[parent] <= e {
                break;
            }
            self.heap[i] = self.heap[parent];
            self.pos[self.heap[i].actor() as usize] = i as u32;
            i = parent;
        }
        self.heap[i] = e;
        self.pos[e.actor() as usize] = i as u32;
    }

    fn sift_down(&mut self, mut i: usize) {
        let e = self.heap[i];
        let n = self.heap.len();
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let c = if l + 1 < n && self.heap[l + 1] < self.heap[l] {
                l + 1
            } else {
                l
            };
            if self.heap[c] >= e {
                break;
            }
            self.heap[i] = self.heap[c];
            self.pos[self.heap[i].actor() as usize] = i as u32;
            i = c;
        }
        self.heap[i] = e;
        self.pos[e.actor() as usize] = i as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scheduler_pops_in_time_then_request_order() {
        for n in [4, 40] {
            pops_in_order(n);
        }
    }

    fn pops_in_order(n: usize) {
        let mut s = Scheduler::new(n);
        s.schedule(2, Time(10));
        s.schedule(0, Time(5));
        s.schedule(3, Time(10));
        s.schedule(1, Time(7));
        let order: Vec<_> = std::iter::from_fn(|| s.pop()).collect();
        assert_eq!(order, vec![(Time(5), 0), (Time(7), 1), (Time(10), 2), (Time(10), 3)]);
    }

    #[test]
    fn scheduler_keeps_one_wakeup_per_actor_earliest_wins() {
        for n in [2, 20] {
            earliest_wins(n);
        }
    }

    fn earliest_wins(n: usize) {
        let mut s = Scheduler::new(n);
        s.schedule(0, Time(10));
        s.schedule(0, Time(20)); // later: ignored
        assert_eq!(s.pending(0), Some(Time(10)));
        s.schedule(1, Time(8));
        s.schedule(0, Time(8)); // earlier: moves, and now runs after actor 1 (requested first)
        assert_eq!(s.pop(), Some((Time(8), 1)));
        assert_eq!(s.pop(), Some((Time(8), 0)));
        assert_eq!(s.pop(), None);
    }

    #[test]
    fn scheduler_pop_until_leaves_later_wakeups_pending() {
        for n in [3, FLAT_MAX_ACTORS + 1] {
            let mut s = Scheduler::new(n);
            assert_eq!(s.pop_until(Time(100)), Err(None));
            s.schedule(1, Time(50));
            s.schedule(2, Time(20));
            assert_eq!(s.pop_until(Time(20)), Ok((Time(20), 2)));
            assert_eq!(s.pop_until(Time(49)), Err(Some(Time(50))));
            assert_eq!(s.pending(1), Some(Time(50)));
            assert_eq!(s.pop_until(Time(50)), Ok((Time(50), 1)));
            assert_eq!(s.pop(), None);
        }
    }

    #[test]
    fn scheduler_heap_order_survives_many_moves() {
        for n in [5, FLAT_MAX_ACTORS, FLAT_MAX_ACTORS + 1, 64] {
            random_requests_match_reference(n);
        }
    }

    /// Pseudo-random requests against a reference model: (time, request order) minimum.
    fn random_requests_match_reference(n: usize) {
        let mut s = Scheduler::new(n);
        let mut reference: Vec<Option<(u64, u64)>> = vec![None; n];
        let mut x: u64 = 12345;
        let mut seq = 0;
        for _ in 0..10_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let actor = (x >> 33) as usize % n;
            let t = (x >> 20) % 1000;
            if x % 7 == 1 {
                s.cancel(actor as u32);
                reference[actor] = None;
            } else if x.is_multiple_of(3) {
                let popped = s.pop();
                let best = reference
                    .iter()
                    .enumerate()
                    .filter_map(|(a, e)| e.map(|(t, q)| (t, q, a)))
                    .min();
                assert_eq!(popped.map(|(t, a)| (t.0, a as usize)), best.map(|(t, _, a)| (t, a)));
                if let Some((_, _, a)) = best {
                    reference[a] = None;
                }
            } else {
                s.schedule(actor as u32, Time(t));
                let earlier = match reference[actor] {
                    Some((old, _)) => t < old,
                    None => true,
                };
                if earlier {
                    reference[actor] = Some((t, seq));
                    seq += 1;
                }
            }
        }
    }
}
