//! The propagation stage of a link: fixed delay, optional jitter that keeps FIFO order, and
//! optional reordering.
//!
//! Packets in flight wait in a FIFO and only the head's arrival matters for the link's next
//! wake-up (quiche's `link.cc` does the same). Jitter adds a uniform extra delay in
//! `[0, jitter]`, clamped so that no packet arrives before the one sent ahead of it (like netem
//! with `rate`, jitter alone never reorders). Reordering holds a packet back by an extra delay
//! with probability `p`, outside the FIFO, so later packets overtake it.

use crate::engine::rng::{chance, uniform, Rng};
use crate::packet::InFlight;
use cclab_core::time::{Dur, Time};
use std::collections::VecDeque;

/// Packets between the serialiser and the far end of a link.
#[derive(Debug)]
pub(super) struct Propagation {
    delay: Dur,
    jitter: Dur,
    /// Reordering probability and extra delay.
    reorder: Option<(f64, Dur)>,
    /// Packets in arrival order, each with its arrival time in `enqueued` already (its queue-entry time is
    /// spent by now): 8 bytes less per packet in flight than a separate time, at 100,000 packets in flight.
    fifo: VecDeque<InFlight>,
    /// Held-back packets, sorted by arrival time, latest first (the earliest pops off the end).
    held: Vec<(Time, u64, InFlight)>,
    /// Packets at the front of `fifo` and at the end of `held` that have arrived (marked by
    /// [`Propagation::mark_arrived`]) and wait to be taken, one at a time, by [`Propagation::pop_arrived`].
    fifo_arrived: usize,
    held_arrived: usize,
    held_seq: u64,
    last_fifo_arrival: Time,
    jitter_rng: Rng,
    reorder_rng: Rng,
}

impl Propagation {
    /// An empty stage.
    pub(super) fn new(delay: Dur, jitter: Dur, reorder: Option<(f64, Dur)>, jitter_rng: Rng, reorder_rng: Rng) -> Self {
        Propagation {
            delay,
            jitter,
            reorder,
            fifo: VecDeque::new(),
            held: Vec::new(),
            fifo_arrived: 0,
            held_arrived: 0,
            held_seq: 0,
            last_fifo_arrival: Time::ZERO,
            jitter_rng,
            reorder_rng,
        }
    }

    /// `p` finished serialisation at `t`; returns when it arrives.
    #[inline]
    pub(super) fn push(&mut self, t: Time, p: InFlight) -> Time {
        // A fixed delay (the usual link) inline in the serialiser; jitter and reordering out of line.
        if self.jitter.0 == 0 && self.reorder.is_none() {
            return self.push_fifo(t + self.delay, p);
        }
        self.push_impaired(t, p)
    }

    /// [`Propagation::push`] with jitter or reordering.
    #[inline(never)]
    fn push_impaired(&mut self, t: Time, p: InFlight) -> Time {
        let mut arrival = t + self.delay;
        if self.jitter.0 > 0 {
            arrival += Dur((uniform(&mut self.jitter_rng) * self.jitter.0 as f64) as u64);
        }
        if let Some((prob, extra)) = self.reorder {
            if chance(&mut self.reorder_rng, prob) {
                let at = arrival + extra;
                // Ties keep push order: the earlier push has the smaller sequence number.
                let key = (at, self.held_seq);
                self.held_seq += 1;
                let i = self.held.partition_point(|&(t, s, _)| (t, s) > key);
                self.held.insert(i, (at, key.1, p));
                return at;
            }
        }
        self.push_fifo(arrival, p)
    }

    /// Appends `p` to the FIFO, due at `arrival` but not before the packet ahead of it.
    #[inline(always)]
    fn push_fifo(&mut self, arrival: Time, mut p: InFlight) -> Time {
        let arrival = arrival.max(self.last_fifo_arrival);
        self.last_fifo_arrival = arrival;
        p.enqueued = arrival;
        self.fifo.push_back(p);
        arrival
    }

    /// Earliest pending arrival (packets marked as arrived are no longer pending).
    #[inline]
    pub(super) fn next_arrival(&self) -> Option<Time> {
        let a = self.fifo.get(self.fifo_arrived).map(|p| p.enqueued);
        if self.held.len() == self.held_arrived {
            return a; // no reordering: the FIFO alone
        }
        let b = self.held[self.held.len() - self.held_arrived - 1].0;
        Some(a.map_or(b, |a| a.min(b)))
    }

    /// The `k`-th FIFO packet not yet arrived, from 0 (held-back packets aside).
    pub(super) fn in_fifo(&self, k: usize) -> Option<&InFlight> {
        self.fifo.get(self.fifo_arrived + k)
    }

    /// Marks every packet that has arrived by `now` for [`Propagation::pop_arrived`]. Packets
    /// pushed before they are all taken queue behind them.
    pub(super) fn mark_arrived(&mut self, now: Time) {
        // Indexing, not `VecDeque::range`: usually one packet is due, and building the range's two
        // slices cost more than the look itself.
        while self.fifo.get(self.fifo_arrived).is_some_and(|p| p.enqueued <= now) {
            self.fifo_arrived += 1;
        }
        if self.held.len() > self.held_arrived {
            let h = self.held.len() - self.held_arrived;
            self.held_arrived += self.held[..h].iter().rev().take_while(|e| e.0 <= now).count();
        }
    }

    /// The marked packet, if it is the only one (FIFO or held back).
    pub(super) fn only_arrival(&self) -> Option<&InFlight> {
        match (self.fifo_arrived, self.held_arrived) {
            (1, 0) => self.fifo.front(),
            (0, 1) => self.held.last().map(|(_, _, p)| p),
            _ => None,
        }
    }

    /// The next marked packet, FIFO ones first, stamped with its arrival time in `enqueued` (a
    /// real-time driver releases it then). Taken one at a time, straight into the next link or
    /// host: no intermediate list to copy through.
    pub(super) fn pop_arrived(&mut self) -> Option<InFlight> {
        if self.fifo_arrived > 0 {
            self.fifo_arrived -= 1;
            let p = self.fifo.pop_front();
            if let Some(next) = self.fifo.front() {
                next.prefetch_ack();
            }
            return p;
        }
        if self.held_arrived > 0 {
            self.held_arrived -= 1;
            let (at, _, mut p) = self.held.pop().expect("a marked packet is held");
            p.enqueued = at;
            return Some(p);
        }
        None
    }

    /// The fixed propagation delay (the least any packet takes).
    #[inline]
    pub(super) fn delay(&self) -> Dur {
        self.delay
    }

    /// Reordering may hold packets back outside the FIFO's arrival order.
    #[inline]
    pub(super) fn reorders(&self) -> bool {
        self.reorder.is_some()
    }

    /// Packets in flight.
    pub(super) fn len(&self) -> usize {
        self.fifo.len() + self.held.len()
    }
}
