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
//!
//! Requests for the instant just popped (a datagram reaching a host wakes it at once) skip the
//! heap: they join a FIFO "lane" of entries that share one time, in request order, which is
//! their `(time, seq)` order. A pop takes the smaller of the heap's top and the lane's front,
//! so the order is exactly the heap's alone; the lane only saves the two walks of the heap's
//! height (up on the request, down on the pop) that such a request costs with thousands of
//! actors pending (the many-flow dumbbell: one host per endpoint, about a third of its events).
//! A lane entry whose actor was cancelled or moved stays behind, stale, and is skipped.
//!
//! A pop from the heap leaves the entry at the root until the next call: when that call is the
//! popped actor's own next request (a link asks for its next departure at once), the new entry
//! replaces the root and sinks to its place, one walk instead of a pop's walk down and an
//! insert's walk up.
//!
//! A wake-up withdrawn because its actor runs without it (a host handed datagrams within a link's
//! event) stays in the heap in the same way until the actor's next request, which replaces it where
//! it is: one walk from there, not a removal's walk and an insertion's.
//!
//! With a horizon ([`Scheduler::with_horizon`], the network's actors), wake-ups at or after `far_from`
//! stay out of the heap in an unordered "far" list, so that the heap the busy actors walk holds only
//! the near ones: with many flows most hosts wait on a timer tens of milliseconds away (a sender's
//! PTO), which the heap would otherwise keep at its bottom levels, and a host's request that moves
//! such a timer on is a store into the list, not a walk. Every heap and lane entry is before
//! `far_from` and every far entry at or after it, so the heap's and the lane's least entry is the
//! earliest of all; when a pop's time comes within half a horizon of `far_from` (or nothing near is
//! left), `far_from` moves to a horizon past that time and the far entries now before it join the
//! heap with their `(time, key)` unchanged: the pop order is exactly the heap's alone.

use cclab_core::time::{Dur, Time};
use std::collections::VecDeque;

/// Index of an actor (a link, a host, the sampler), dense from 0.
pub type ActorId = u32;

/// `pos` of an actor with no pending wake-up.
const NONE: u64 = u64::MAX;
/// `pos` bit of an actor whose wake-up is in the lane; the rest is that entry's `key`.
const IN_LANE: u64 = 1 << 63;
/// `pos` bit (under a clear `IN_LANE`) of an actor whose wake-up is in the far list; the rest is its index there.
const IN_FAR: u64 = 1 << 62;
/// Largest actor count kept as a flat array scanned on `pop`.
pub const FLAT_MAX_ACTORS: usize = 16;
/// Flat arrays of up to this many actors are this long (entries past the actors stay idle), so that
/// their scan is one unrolled run of comparisons, with no loop: a point-to-point run has five actors,
/// and three idle entries more cost ~20 instructions a pop.
const FLAT_P2P: usize = 5;
/// The same for runs of six to this many actors.
const FLAT_SHORT: usize = 8;
/// Bits of `Entry::key` holding the actor; the rest hold the request sequence number.
const ACTOR_BITS: u32 = 24;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Entry {
    time: u64,
    /// `seq << ACTOR_BITS | actor`: orders equal times by request order.
    key: u64,
}

impl Entry {
    fn actor(self) -> ActorId {
        (self.key & ((1 << ACTOR_BITS) - 1)) as ActorId
    }

    /// `(time, key)` as one number: a single 128-bit comparison orders entries (the derived
    /// field-by-field `Ord` compiled to branches on an `Ordering`, a sixth of a flat pop's cost).
    #[inline]
    fn rank(self) -> u128 {
        ((self.time as u128) << 64) | self.key as u128
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
    }
}

/// Wake-up times of a fixed set of actors.
#[derive(Debug)]
pub struct Scheduler {
    /// Heap mode: the binary heap. Flat mode: entry of actor `a` at index `a` (`time` =
    /// `u64::MAX` when none is pending).
    heap: Vec<Entry>,
    /// Per actor (heap mode only): its heap index, `IN_LANE | key` of its lane entry, `IN_FAR | i` of
    /// its far entry at `far[i]`, or `NONE`.
    pos: Vec<u64>,
    /// Heap mode: entries due at `lane_time`, in `key` order, some of them stale.
    lane: VecDeque<Entry>,
    lane_time: u64,
    /// Time of the last pop: requests for it go to the lane.
    now: u64,
    /// Heap mode with a horizon: the entries at or after `far_from`, unordered.
    far: Vec<Entry>,
    /// Requests at or after this time go to `far` (`u64::MAX` without a horizon); it is after `now`.
    far_from: u64,
    /// A pop at or after this time (half a horizon before `far_from`) moves `far_from` on.
    far_next: u64,
    /// How far past the earliest entry `far_from` is moved, in ns (0: no far list).
    horizon: u64,
    /// The heap's root is the entry just popped (its actor has nothing pending).
    root_popped: bool,
    /// Actor whose heap entry was withdrawn ([`Scheduler::withdraw`]): it has nothing pending, but its
    /// entry (at `pos`, which moves keep current) stays until its next request replaces it or a pop
    /// removes it. Never set while `root_popped` is.
    withdrawn: Option<ActorId>,
    flat: bool,
    seq: u64,
}

impl Scheduler {
    /// A scheduler for `actors` actors, none of them scheduled.
    ///
    /// # Panics
    /// If `actors` does not fit in 24 bits.
    pub fn new(actors: usize) -> Scheduler {
        Scheduler::with_horizon(actors, Dur(0))
    }

    /// A scheduler for `actors` actors that keeps wake-ups more than about `horizon` ahead out of its
    /// heap (see the module doc; zero: none). Flat mode has no far list.
    ///
    /// # Panics
    /// If `actors` does not fit in 24 bits.
    pub fn with_horizon(actors: usize, horizon: Dur) -> Scheduler {
        assert!(actors < (1 << ACTOR_BITS), "too many actors: {actors}");
        let flat = actors <= FLAT_MAX_ACTORS;
        let (heap, pos) = if flat {
            let len = if actors <= FLAT_P2P {
                FLAT_P2P
            } else {
                actors.max(FLAT_SHORT)
            };
            let heap = (0..len as u64).map(|a| Entry { time: u64::MAX, key: a }).collect();
            (heap, Vec::new())
        } else {
            (Vec::with_capacity(actors), vec![NONE; actors])
        };
        Scheduler {
            heap,
            pos,
            lane: VecDeque::new(),
            lane_time: 0,
            now: 0,
            far: Vec::new(),
            far_from: if horizon.0 == 0 { u64::MAX } else { horizon.0 },
            far_next: if horizon.0 == 0 {
                u64::MAX
            } else {
                horizon.0 - horizon.0 / 2
            },
            horizon: horizon.0,
            root_popped: false,
            withdrawn: None,
            flat,
            seq: 0,
        }
    }

    /// The next request's entry for `actor` at `t`.
    fn entry(&mut self, actor: ActorId, t: Time) -> Entry {
        let key = (self.seq << ACTOR_BITS) | actor as u64;
        self.seq += 1;
        Entry { time: t.0, key }
    }

    /// Asks for `actor` to run at `t`; a pending earlier or equal request stays as it is.
    #[inline]
    pub fn schedule(&mut self, actor: ActorId, t: Time) {
        // The flat case inline (a few instructions, called several times per event), the heap out of line.
        if self.flat {
            if t.0 < self.heap[actor as usize].time {
                self.heap[actor as usize] = self.entry(actor, t);
            }
            return;
        }
        self.schedule_heap(actor, t);
    }

    /// [`Scheduler::schedule`] for the actor [`Scheduler::pop_until`] just returned or that was just
    /// withdrawn ([`Scheduler::withdraw`]), before any other request for it: the flat array's pop or
    /// withdrawal left its entry empty, so the request is stored without reading the entry and
    /// comparing (a link event's or a host run's own next wake-up, one an event).
    #[inline]
    pub fn schedule_popped(&mut self, actor: ActorId, t: Time) {
        if self.flat {
            debug_assert_eq!(
                self.heap[actor as usize].time,
                u64::MAX,
                "actor {actor} was not just popped or withdrawn"
            );
            self.heap[actor as usize] = self.entry(actor, t);
            return;
        }
        self.schedule_heap(actor, t);
    }

    /// [`Scheduler::schedule`] in heap mode: the two requests most made (with 1,000 flows, three in
    /// four), the popped actor's next one replacing the root and one no earlier than the actor's
    /// pending wake-up, decided here, in a function that saves no registers; the rest in
    /// [`Scheduler::schedule_other`].
    #[inline(never)]
    fn schedule_heap(&mut self, actor: ActorId, t: Time) {
        if self.root_popped {
            if self.heap[0].actor() == actor && self.for_heap(t) {
                self.root_popped = false;
                self.heap[0] = self.entry(actor, t);
                self.sift_down(0);
                return;
            }
        } else if self.withdrawn != Some(actor) {
            match self.pos[actor as usize] {
                NONE => {}
                p if p & IN_LANE != 0 => {
                    if t.0 >= self.lane_time {
                        return;
                    }
                }
                p if p & IN_FAR != 0 => {
                    if t.0 >= self.far[(p & !IN_FAR) as usize].time {
                        return;
                    }
                }
                i => {
                    if t.0 >= self.heap[i as usize].time {
                        return;
                    }
                }
            }
        }
        self.schedule_other(actor, t);
    }

    /// [`Scheduler::schedule_heap`]'s other requests (it may have decided none of them).
    #[inline(never)]
    fn schedule_other(&mut self, actor: ActorId, t: Time) {
        if self.root_popped {
            if self.heap[0].actor() == actor && self.for_heap(t) {
                self.root_popped = false;
                self.heap[0] = self.entry(actor, t);
                self.sift_down(0);
                return;
            }
            self.settle();
        }
        if self.withdrawn == Some(actor) {
            self.withdrawn = None;
            let p = self.pos[actor as usize];
            if p & IN_FAR != 0 {
                // Still far: replaced where it is; otherwise out of the list, and asked for below.
                let i = (p & !IN_FAR) as usize;
                if self.for_far(t) {
                    self.far[i] = self.entry(actor, t);
                    return;
                }
                self.far_remove(i);
            } else {
                let i = p as usize;
                if self.for_heap(t) {
                    // The new entry moves the way its order against the old one says.
                    let (old, e) = (self.heap[i], self.entry(actor, t));
                    self.heap[i] = e;
                    if e < old {
                        self.sift_up(i);
                    } else {
                        self.sift_down(i);
                    }
                    return;
                }
                self.remove(i);
            }
        }
        match self.pos[actor as usize] {
            NONE => {}
            p if p & IN_LANE != 0 => {
                if t.0 >= self.lane_time {
                    return;
                }
                // Earlier than the lane (a time before the last pop): the lane entry goes stale.
                self.pos[actor as usize] = NONE;
            }
            p if p & IN_FAR != 0 => {
                let i = (p & !IN_FAR) as usize;
                if t.0 >= self.far[i].time {
                    return;
                }
                if self.for_far(t) {
                    self.far[i] = self.entry(actor, t);
                    return;
                }
                self.far_remove(i);
            }
            i => {
                if t.0 >= self.heap[i as usize].time {
                    return;
                }
                if t.0 == self.now {
                    self.remove(i as usize);
                } else {
                    let e = self.entry(actor, t);
                    self.heap[i as usize] = e;
                    self.sift_up(i as usize);
                    return;
                }
            }
        }
        let e = self.entry(actor, t);
        if self.for_lane(t) {
            self.lane_time = t.0;
            self.lane.push_back(e);
            self.pos[actor as usize] = IN_LANE | e.key;
        } else if self.for_far(t) {
            self.pos[actor as usize] = IN_FAR | self.far.len() as u64;
            self.far.push(e);
        } else {
            self.heap.push(e);
            self.sift_up(self.heap.len() - 1);
        }
    }

    /// A request for `t` joins the lane.
    fn for_lane(&self, t: Time) -> bool {
        t.0 == self.now && (self.lane.is_empty() || self.lane_time == t.0)
    }

    /// A request for `t` joins the far list (never one for the lane: `far_from` is after `now`).
    fn for_far(&self, t: Time) -> bool {
        t.0 >= self.far_from
    }

    /// A request for `t` goes into the heap.
    fn for_heap(&self, t: Time) -> bool {
        !self.for_lane(t) && !self.for_far(t)
    }

    /// Takes the far entry at index `i` out of the list (the last one fills its place).
    fn far_remove(&mut self, i: usize) {
        let gone = self.far.swap_remove(i);
        self.pos[gone.actor() as usize] = NONE;
        if let Some(moved) = self.far.get(i) {
            self.pos[moved.actor() as usize] = IN_FAR | i as u64;
        }
    }

    /// Moves `far_from` to a horizon past `next`, the earliest near entry's time (`None`: there is
    /// none, and the far list's earliest stands for it), and the far entries now before it into the
    /// heap. Out of line: once per half a horizon of simulated time.
    #[inline(never)]
    fn advance_far(&mut self, next: Option<u64>) {
        let Some(t) = next.or_else(|| self.far.iter().map(|e| e.time).min()) else {
            return;
        };
        if self.horizon == 0 {
            return;
        }
        self.far_from = self.far_from.max(t.saturating_add(self.horizon));
        self.far_next = self.far_from - self.horizon / 2;
        // From the end, by a search of a slice, as few move (10,000 flows for 1 s: one entry in 65 looked
        // at): the entry `far_remove` moves into a hole comes from past it and was looked at already.
        let (bound, mut end) = (self.far_from, self.far.len());
        while let Some(i) = self.far[..end].iter().rposition(|e| e.time < bound) {
            let e = self.far[i];
            self.far_remove(i);
            self.heap.push(e);
            self.sift_up(self.heap.len() - 1);
            end = i;
        }
    }

    /// Completes the last pop: the root leaves the heap. Inline: it is asked at every pop, withdrawal
    /// and request that does not replace the root, and almost never has anything to do.
    #[inline(always)]
    fn settle(&mut self) {
        if self.root_popped {
            self.root_popped = false;
            self.pop_heap();
        }
    }

    /// Removes the withdrawn entry, if any, from the heap or the far list. Inline: asked at every pop.
    #[inline(always)]
    fn drop_withdrawn(&mut self) {
        if let Some(a) = self.withdrawn.take() {
            match self.pos[a as usize] {
                p if p & IN_FAR != 0 => self.far_remove((p & !IN_FAR) as usize),
                i => self.remove(i as usize),
            }
        }
    }

    /// [`Scheduler::cancel`] for an actor that is about to run without being popped and will most
    /// likely ask again when done: its heap entry stays, as if gone, for that request to replace in
    /// place (see the module doc).
    #[inline]
    pub fn withdraw(&mut self, actor: ActorId) {
        if self.flat {
            self.heap[actor as usize].time = u64::MAX;
            return;
        }
        self.withdraw_heap(actor);
    }

    /// [`Scheduler::withdraw`] in heap mode.
    fn withdraw_heap(&mut self, actor: ActorId) {
        if self.root_popped && self.heap[0].actor() == actor {
            return; // nothing pending, and its next request may still replace the root
        }
        self.settle();
        match self.pos[actor as usize] {
            NONE => {}
            p if p & IN_LANE != 0 => self.pos[actor as usize] = NONE,
            _ if self.withdrawn == Some(actor) => {}
            _ => {
                self.drop_withdrawn();
                self.withdrawn = Some(actor);
            }
        }
    }

    /// Drops `actor`'s pending wake-up, if any, so that a later request can replace it.
    #[inline]
    pub fn cancel(&mut self, actor: ActorId) {
        if self.flat {
            self.heap[actor as usize].time = u64::MAX;
            return;
        }
        self.cancel_heap(actor);
    }

    /// [`Scheduler::cancel`] in heap mode.
    fn cancel_heap(&mut self, actor: ActorId) {
        if self.root_popped && self.heap[0].actor() == actor {
            return; // nothing pending, and its next request may still replace the root
        }
        self.settle();
        if self.withdrawn == Some(actor) {
            return;
        }
        match self.pos[actor as usize] {
            NONE => {}
            p if p & IN_LANE != 0 => self.pos[actor as usize] = NONE,
            p if p & IN_FAR != 0 => self.far_remove((p & !IN_FAR) as usize),
            i => self.remove(i as usize),
        }
    }

    /// Takes the heap entry at index `i` out of the heap.
    fn remove(&mut self, i: usize) {
        let gone = self.heap[i];
        self.pos[gone.actor() as usize] = NONE;
        let last = self.heap.pop().expect("a pending actor is in the heap");
        if i < self.heap.len() {
            // The last entry fills the hole and moves the way its order against the entry gone
            // says: the hole's parent is before that entry, and its children after it.
            self.heap[i] = last;
            if last < gone {
                self.sift_up(i);
            } else {
                self.sift_down(i);
            }
        }
    }

    /// Sets `actor`'s wake-up to `t` (earlier or later than a pending one), or none.
    #[inline]
    pub fn set(&mut self, actor: ActorId, t: Option<Time>) {
        if self.flat {
            // Cancel and request in one store: a request always replaces a cancelled entry.
            match t {
                Some(t) if t.0 < u64::MAX => self.heap[actor as usize] = self.entry(actor, t),
                _ => self.heap[actor as usize].time = u64::MAX,
            }
            return;
        }
        self.set_heap(actor, t);
    }

    /// [`Scheduler::set`] in heap mode.
    fn set_heap(&mut self, actor: ActorId, t: Option<Time>) {
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
        match self.pos[actor as usize] {
            NONE => None,
            _ if self.withdrawn == Some(actor) => None,
            p if p & IN_LANE != 0 => Some(Time(self.lane_time)),
            p if p & IN_FAR != 0 => Some(Time(self.far[(p & !IN_FAR) as usize].time)),
            i => Some(Time(self.heap[i as usize].time)),
        }
    }

    /// The earliest entry in flat mode (its actor is its index).
    #[inline(always)]
    fn flat_min(&self) -> Option<Entry> {
        // The minimum of the ranks, without tracking an index: the key holds the actor, and
        // keys are unique, so the minimum is too. A plain running minimum: `Iterator::min` carried
        // an `Option` through every step (21 instructions more per pop with five actors). An empty
        // or all-idle array leaves `u128::MAX`, whose time is `u64::MAX`: none. A short array's
        // length is known here, and its eight comparisons run straight, without the loop's set-up
        // and exits (~10 instructions a pop with five actors).
        let mut best = u128::MAX;
        if let Ok(p2p) = <&[Entry; FLAT_P2P]>::try_from(self.heap.as_slice()) {
            for e in p2p {
                best = best.min(e.rank());
            }
        } else if let Ok(short) = <&[Entry; FLAT_SHORT]>::try_from(self.heap.as_slice()) {
            for e in short {
                best = best.min(e.rank());
            }
        } else {
            for e in &self.heap {
                best = best.min(e.rank());
            }
        }
        let e = Entry {
            time: (best >> 64) as u64,
            key: best as u64,
        };
        (e.time != u64::MAX).then_some(e)
    }

    /// A lane entry is current when its actor still points at it.
    fn live(&self, e: &Entry) -> bool {
        self.pos[e.actor() as usize] == IN_LANE | e.key
    }

    /// The earliest entry, and whether it is the lane's front (heap mode): the far list's earliest
    /// only when nothing near is pending.
    fn first(&self) -> Option<(Entry, bool)> {
        let lane = self.lane.iter().find(|e| self.live(e)).copied();
        // Below a popped or withdrawn root, the smaller of its children is the heap's least entry.
        let root_gone = self.root_popped || self.withdrawn.is_some_and(|a| self.pos[a as usize] == 0);
        let heap = if root_gone {
            self.heap
                .get(1..3)
                .map_or(self.heap.get(1), |c| c.iter().min())
                .copied()
        } else {
            self.heap.first().copied()
        };
        earlier(lane, heap).or_else(|| {
            let far = self.far.iter().filter(|e| self.withdrawn != Some(e.actor()));
            far.min().map(|&e| (e, false))
        })
    }

    /// The earliest wake-up, without removing it.
    #[inline]
    pub fn peek(&self) -> Option<(Time, ActorId)> {
        let e = if self.flat {
            self.flat_min()?
        } else {
            self.first_heap()?
        };
        Some((Time(e.time), e.actor()))
    }

    /// The earliest entry in heap mode (out of line: the flat case above is the hosts' per-datagram path).
    #[inline(never)]
    fn first_heap(&self) -> Option<Entry> {
        self.first().map(|(e, _)| e)
    }

    /// Removes and returns the earliest wake-up.
    pub fn pop(&mut self) -> Option<(Time, ActorId)> {
        self.pop_until(Time(u64::MAX)).ok()
    }

    /// Removes and returns the earliest wake-up if it is due at or before `end`; otherwise
    /// leaves it pending and returns its time (`None`: nothing is pending). One scan of the
    /// flat array instead of a `peek` and a `pop`. Inlined: LLVM left it a call of its own once the
    /// short array's scan was written out, which cost more than the scan saved.
    #[inline(always)]
    pub fn pop_until(&mut self, end: Time) -> Result<(Time, ActorId), Option<Time>> {
        if self.flat {
            let e = self.flat_min().ok_or(None)?;
            if e.time > end.0 {
                return Err(Some(Time(e.time)));
            }
            self.heap[e.actor() as usize].time = u64::MAX;
            return Ok((Time(e.time), e.actor()));
        }
        self.pop_until_heap(end)
    }

    /// [`Scheduler::pop_until`] in heap mode.
    fn pop_until_heap(&mut self, end: Time) -> Result<(Time, ActorId), Option<Time>> {
        self.settle();
        self.drop_withdrawn();
        // Stale lane entries at the front go first, so the front is live when there is one.
        while self.lane.front().is_some_and(|e| !self.live(e)) {
            self.lane.pop_front();
        }
        // Settled, with a live lane front: `first` without its search of the lane and its look below the root.
        let mut next = earlier(self.lane.front().copied(), self.heap.first().copied());
        if next.is_none_or(|(e, _)| e.time >= self.far_next) {
            self.advance_far(next.map(|(e, _)| e.time));
            next = earlier(self.lane.front().copied(), self.heap.first().copied());
        }
        let (top, from_lane) = next.ok_or(None)?;
        if top.time > end.0 {
            return Err(Some(Time(top.time)));
        }
        if from_lane {
            self.lane.pop_front();
        } else {
            self.root_popped = true;
        }
        self.pos[top.actor() as usize] = NONE;
        self.now = top.time;
        Ok((Time(top.time), top.actor()))
    }

    /// Removes the heap's top: the hole it leaves walks down to a leaf along the smaller
    /// children, then the last entry fills it and moves up (Floyd's variant: one comparison per
    /// level instead of two, as the last entry almost always belongs near the bottom).
    #[inline(never)]
    fn pop_heap(&mut self) {
        let last = self.heap.pop().expect("heap is not empty");
        let n = self.heap.len();
        if n == 0 {
            return;
        }
        let mut i = 0;
        loop {
            let l = 2 * i + 1;
            if l >= n {
                break;
            }
            let c = smaller_child(&self.heap, l);
            self.heap[i] = self.heap[c];
            self.pos[self.heap[i].actor() as usize] = i as u64;
            i = c;
        }
        self.heap[i] = last;
        self.pos[last.actor() as usize] = i as u64;
        self.sift_up(i);
    }

    fn sift_up(&mut self, i: usize) {
        walk_up(&mut self.heap, &mut self.pos, i);
    }

    fn sift_down(&mut self, i: usize) {
        walk_down(&mut self.heap, &mut self.pos, i);
    }
}

/// The earlier of the children at `l` and `l + 1` (the latter only if it exists in `heap`).
///
/// Chosen by adding the comparison's outcome, not by a branch: which child is earlier is a coin
/// toss, so a branch on it was mispredicted about every other level of a walk down, and with
/// thousands of actors (the many-flow dumbbell: one host per endpoint) walks down are most of the
/// scheduler's time. Only the test for a missing right child, false but at the last level,
/// stays a branch.
#[inline]
fn smaller_child(heap: &[Entry], l: usize) -> usize {
    match heap.get(l..l + 2) {
        Some(&[a, b]) => l + usize::from(b.rank() < a.rank()),
        _ => l,
    }
}

/// Moves the entry at `i` up to its place, keeping `pos` current for every entry it passes.
///
/// The walks take the heap and the positions as two slices, not through `&mut Scheduler`: a store
/// into `pos` could otherwise be a store into the heap's length, which each level then read again
/// and checked every index against (the 1,000-flow dumbbell: ~2.4 walks a data packet, a walk down ~2.6 levels).
fn walk_up(heap: &mut [Entry], pos: &mut [u64], mut i: usize) {
    let e = heap[i];
    while i > 0 {
        let parent = (i - 1) / 2;
        let p = heap[parent];
        if p <= e {
            break;
        }
        heap[i] = p;
        pos[p.actor() as usize] = i as u64;
        i = parent;
    }
    heap[i] = e;
    pos[e.actor() as usize] = i as u64;
}

/// Moves the entry at `i` down to its place, keeping `pos` current for every entry it passes.
fn walk_down(heap: &mut [Entry], pos: &mut [u64], mut i: usize) {
    let e = heap[i];
    loop {
        let l = 2 * i + 1;
        if l >= heap.len() {
            break;
        }
        let c = smaller_child(heap, l);
        let child = heap[c];
        if child >= e {
            break;
        }
        heap[i] = child;
        pos[child.actor() as usize] = i as u64;
        i = c;
    }
    heap[i] = e;
    pos[e.actor() as usize] = i as u64;
}

/// The earlier of the lane's front and the heap's least entry, and whether it is the lane's.
fn earlier(lane: Option<Entry>, heap: Option<Entry>) -> Option<(Entry, bool)> {
    match (lane, heap) {
        (Some(l), Some(h)) if h < l => Some((h, false)),
        (Some(l), _) => Some((l, true)),
        (None, h) => h.map(|h| (h, false)),
    }
}

#[cfg(test)]
mod tests;
