//! The socket buffer's queue of datagrams waiting for the CPU, first one in place.
//!
//! A host that keeps up holds one datagram at a time, from its arrival until the event that
//! hands it over (the same instant when the CPU costs nothing). With thousands of hosts (a
//! dumbbell has one per endpoint), a ring buffer of its own per host cost a cache miss on each
//! arrival and another when it is taken; the first waiting datagram now sits in the host itself,
//! and only a backlog goes to the ring.

use cclab_core::wire::packet::Datagram;
use std::collections::VecDeque;

/// A FIFO of (slot, datagram).
#[derive(Default)]
#[repr(C)]
pub(super) struct RxQueue {
    /// The oldest datagram, if `rest` was empty when it came. Apart from its slot (`first_slot`),
    /// not in a tuple with it: an `Option<(u16, Datagram)>` keeps the datagram at an offset LLVM
    /// took apart and put together again, field by field through three places on the stack, on its
    /// way to the endpoint (~40 instructions per datagram received, docs/performance.md).
    first: Option<Datagram>,
    first_slot: u16,
    /// Datagrams that came after it (or after those already taken), in order; boxed at the first
    /// backlog, so that the queue takes 80 bytes of the host's hot lines, not 104.
    #[allow(
        clippy::box_collection,
        reason = "a pointer, not a deque's four words, keeps the host's per-event fields in four lines"
    )]
    rest: Option<Box<VecDeque<(u16, Datagram)>>>,
}

impl RxQueue {
    /// Appends a datagram for `slot`.
    #[inline]
    pub(super) fn push_back(&mut self, slot: u16, d: Datagram) {
        if self.is_empty() {
            self.first = Some(d);
            self.first_slot = slot;
        } else {
            self.rest.get_or_insert_default().push_back((slot, d));
        }
    }

    /// Takes the oldest datagram if it waits in the first place, with its slot; `pop_front`
    /// takes any. Without a value that merges the two places, the datagram moves once, from here.
    #[inline(always)]
    pub(super) fn take_first(&mut self) -> Option<(u16, Datagram)> {
        let slot = self.first_slot;
        self.first.take().map(|d| (slot, d))
    }

    /// Takes the oldest datagram.
    #[inline]
    pub(super) fn pop_front(&mut self) -> Option<(u16, Datagram)> {
        match self.first.take() {
            Some(d) => Some((self.first_slot, d)),
            None => self.rest.as_mut()?.pop_front(),
        }
    }

    /// Nothing waits.
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.first.is_none() && self.rest.as_ref().is_none_or(|r| r.is_empty())
    }

    /// Number of datagrams waiting.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.first.is_some() as usize + self.rest.as_ref().map_or(0, |r| r.len())
    }

    /// The waiting datagrams, oldest first.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u16, &Datagram)> {
        let first = self.first.as_ref().map(|d| (self.first_slot, d));
        let rest = self.rest.iter().flat_map(|r| r.iter().map(|(s, d)| (*s, d)));
        first.into_iter().chain(rest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cclab_core::wire::packet::{Ecn, FlowId, Packet};

    fn dgram(size: u32) -> Datagram {
        Datagram {
            flow: FlowId(0),
            size,
            ecn: Ecn::NotEct,
            packet: Packet::default(),
        }
    }

    #[test]
    fn rx_queue_is_first_in_first_out() {
        // Pushes and pops interleaved so that the place for the first datagram is sometimes
        // free while older datagrams still wait in the ring: order must hold throughout.
        let mut q = RxQueue::default();
        let mut model = VecDeque::new();
        let mut next = 0u32;
        for round in 0..50u32 {
            for _ in 0..round % 4 {
                q.push_back((next % 7) as u16, dgram(next));
                model.push_back(next);
                next += 1;
            }
            assert_eq!(q.len(), model.len());
            let sizes: Vec<u32> = q.iter().map(|(_, d)| d.size).collect();
            let slots: Vec<u16> = q.iter().map(|(s, _)| s).collect();
            assert_eq!(slots, model.iter().map(|n| (n % 7) as u16).collect::<Vec<_>>());
            assert_eq!(sizes, model.iter().copied().collect::<Vec<_>>());
            for _ in 0..(round % 3) {
                let got = q.pop_front().map(|(s, d)| (s, d.size));
                assert_eq!(got, model.pop_front().map(|n| ((n % 7) as u16, n)));
            }
            assert_eq!(q.is_empty(), model.is_empty());
        }
    }
}
