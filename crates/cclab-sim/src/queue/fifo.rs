//! The packet FIFO every queue discipline stores its packets in, with its byte count.
//!
//! On a link whose queue, serialiser and propagation all keep one order (drop-tail, fixed delay,
//! no trace, cross traffic, jitter or reordering: `Link`'s shared ring) the same ring also holds
//! the packets that left the queue while they propagate: a departure stamps the packet's arrival
//! time in place and moves a cursor, and the packet is written once and read once per hop, not
//! moved from a queue ring into a propagation ring (at 100,000 packets in flight, two rings of
//! ~8 MB each streamed through the cache once per round trip). Queues that drop or reorder at
//! their head (every AQM) never depart in place, so their departed prefix stays empty.

use crate::packet::InFlight;
use cclab_core::prefetch::{prefetch, prefetch_write};
use cclab_core::time::Time;
use std::collections::VecDeque;

/// How many packets ahead of the tail [`Fifo::prefetch_tail`] loads a slot.
const TAIL_AHEAD: usize = 8;

/// Packets in arrival order and the total size of those still queued; in front of them, the
/// departed ones still propagating, the first `arrived` of which have reached the far end.
#[derive(Debug, Default)]
pub(crate) struct Fifo {
    q: VecDeque<InFlight>,
    /// Bytes still queued (departed packets do not count).
    bytes: u64,
    /// Packets at the front that left the queue, each with its arrival time in `enqueued`.
    departed: usize,
    /// Departed packets at the front that have arrived (marked by [`Fifo::mark_arrived`]).
    arrived: usize,
}

impl Fifo {
    /// Appends a packet.
    pub(super) fn push(&mut self, p: InFlight) {
        self.bytes += p.size();
        self.q.push_back(p);
    }
    /// Removes the oldest queued packet (a queue that departs in place never calls this).
    pub(super) fn pop(&mut self) -> Option<InFlight> {
        debug_assert_eq!(self.departed, 0, "pop from a ring with departed packets");
        let p = self.q.pop_front()?;
        self.bytes -= p.size();
        Some(p)
    }
    /// The oldest queued packet, if any.
    pub(crate) fn front(&self) -> Option<&InFlight> {
        self.q.get(self.departed)
    }
    /// Bytes queued.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Packets queued.
    pub(super) fn len(&self) -> usize {
        self.q.len() - self.departed
    }
    /// No packet queued.
    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The oldest queued packet leaves the queue, due at the far end at `arrival` (no earlier than
    /// the departed packet ahead of it: the caller's serialiser and fixed delay guarantee it).
    #[inline]
    pub(crate) fn depart(&mut self, arrival: Time) {
        let p = &mut self.q[self.departed];
        self.bytes -= p.size();
        p.enqueued = arrival;
        self.departed += 1;
    }
    /// The oldest queued packet, if any, leaves the queue, due at the far end at the time `arrival_of`
    /// gives it (the caller's serialiser starting it): [`Fifo::depart`] with the packet found once for
    /// both the caller's look and the stamp. Returns whether a packet departed. `warm` loads the packet
    /// [`TAIL_AHEAD`] places behind, as [`Fifo::prefetch_queued`] does.
    #[inline(always)]
    pub(crate) fn depart_front(&mut self, warm: bool, arrival_of: impl FnOnce(&InFlight) -> Time) -> bool {
        if warm {
            self.prefetch_queued();
        }
        let Some(p) = self.q.get_mut(self.departed) else {
            return false;
        };
        p.enqueued = arrival_of(p);
        self.bytes -= p.size();
        self.departed += 1;
        true
    }
    /// `p` goes straight through an empty queue and an idle serialiser, due at `arrival`.
    #[inline]
    pub(crate) fn push_departed(&mut self, mut p: InFlight, arrival: Time) {
        debug_assert_eq!(self.len(), 0, "a packet overtaking queued ones");
        p.enqueued = arrival;
        self.q.push_back(p);
        self.departed += 1;
    }
    /// Arrival time of the first departed packet not yet marked as arrived.
    #[inline]
    pub(crate) fn next_arrival(&self) -> Option<Time> {
        (self.arrived < self.departed).then(|| self.q[self.arrived].enqueued)
    }
    /// The `k`-th departed packet not yet arrived, from 0.
    pub(crate) fn in_flight(&self, k: usize) -> Option<&InFlight> {
        (self.arrived + k < self.departed).then(|| &self.q[self.arrived + k])
    }
    /// Marks every departed packet that has arrived by `now`; returns [`Fifo::next_arrival`] after
    /// it, the time the loop read last: a link event asks for it next, to reschedule the link.
    #[inline]
    pub(crate) fn mark_arrived(&mut self, now: Time) -> Option<Time> {
        while self.arrived < self.departed {
            let t = self.q[self.arrived].enqueued;
            if t > now {
                return Some(t);
            }
            self.arrived += 1;
        }
        None
    }
    /// [`Fifo::mark_arrived`] at a link event, which comes at the arrival time of the first departed
    /// packet not yet marked (the link's wake-up, [`Fifo::next_arrival`]): that packet has arrived by
    /// construction and is marked without its time read and compared, the loop's first look.
    #[inline]
    pub(crate) fn mark_arrived_at_wake(&mut self, now: Time) -> Option<Time> {
        if self.arrived < self.departed {
            debug_assert!(self.q[self.arrived].enqueued <= now, "a link event before its arrival");
            self.arrived += 1;
        }
        self.mark_arrived(now)
    }
    /// The marked packet, if it is the only one.
    #[inline]
    pub(crate) fn only_arrival(&self) -> Option<&InFlight> {
        if self.arrived == 1 {
            self.q.front()
        } else {
            None
        }
    }
    /// The next marked packet, stamped with its arrival time in `enqueued`.
    #[inline]
    pub(crate) fn pop_arrived(&mut self) -> Option<InFlight> {
        if self.arrived == 0 {
            return None;
        }
        self.arrived -= 1;
        self.departed -= 1;
        let p = self.q.pop_front();
        if let Some(next) = self.q.front() {
            next.prefetch_ack();
        }
        p
    }
    /// Starts loading, to be written, the slot [`TAIL_AHEAD`] packets past the last one. The ring's tail
    /// moves in order, yet with thousands of flows the hardware prefetcher, busy with their state's
    /// misses, leaves it cold: the stores of each new packet then waited for their line. Past the end
    /// of the buffer (the ring about to wrap) the hint loads a line nobody writes, which is harmless.
    #[inline]
    pub(crate) fn prefetch_tail(&self) {
        let (front, back) = self.q.as_slices();
        let last = if back.is_empty() { front } else { back };
        prefetch_write(last.as_ptr_range().end.wrapping_add(TAIL_AHEAD) as usize);
    }
    /// Starts loading the queued packet [`TAIL_AHEAD`] places behind the next to depart, for the same
    /// reason as [`Fifo::prefetch_tail`]: a departure reads the head's size and entry time, written a
    /// whole queue of packets earlier.
    #[inline]
    pub(crate) fn prefetch_queued(&self) {
        if let Some(p) = self.q.get(self.departed + TAIL_AHEAD) {
            prefetch(p);
        }
    }
    /// Departed packets (propagating or arrived and not yet taken).
    pub(crate) fn departed(&self) -> usize {
        self.departed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cclab_core::wire::packet::{Datagram, Ecn, FlowId, Packet};

    fn p(pn: u64) -> InFlight {
        let packet = Packet {
            pn,
            ..Packet::default()
        };
        InFlight::new(
            Datagram {
                flow: FlowId(0),
                size: 1200,
                ecn: Ecn::NotEct,
                packet,
            },
            0,
            0,
            Time::ZERO,
        )
    }

    #[test]
    fn mark_arrived_returns_the_next_arrival() {
        // Queued packets behind, departed ones in front, some arrived: what marking returns is the
        // first departed packet not yet arrived, as `next_arrival` reads it, through departures,
        // arrivals marked one or several at a time, and pops.
        let mut fifo = Fifo::default();
        let check = |fifo: &mut Fifo, now: Time, want: Option<Time>, step: &str| {
            assert_eq!(fifo.mark_arrived(now), want, "{step}");
            assert_eq!(fifo.next_arrival(), want, "{step}");
        };
        check(&mut fifo, Time(0), None, "empty");
        fifo.push(p(0));
        fifo.push(p(1));
        fifo.push(p(2));
        check(&mut fifo, Time(0), None, "queued only");
        fifo.depart(Time(10));
        fifo.depart(Time(20));
        check(&mut fifo, Time(5), Some(Time(10)), "two departed");
        check(&mut fifo, Time(10), Some(Time(20)), "one arrived, one propagating");
        check(&mut fifo, Time(20), None, "both arrived, one queued");
        assert_eq!(fifo.arrived, 2);
        fifo.pop_arrived();
        fifo.pop_arrived();
        fifo.depart(Time(30));
        check(&mut fifo, Time(30), None, "the last arrived");
        fifo.pop_arrived();
        check(&mut fifo, Time(30), None, "all gone");
        fifo.push_departed(p(3), Time(40));
        check(&mut fifo, Time(39), Some(Time(40)), "straight through");
    }

    #[test]
    fn marking_at_a_wake_up_matches_marking_by_time() {
        // A link event comes at the first propagating packet's arrival, which the marking at the
        // wake-up takes as arrived without reading it: the same marks and next arrival as the loop
        // that reads every time, through one, two and no packets arriving at the same instant.
        let (mut at_wake, mut by_time) = (Fifo::default(), Fifo::default());
        for (pn, arrival) in [10, 20, 20, 30].into_iter().enumerate() {
            for fifo in [&mut at_wake, &mut by_time] {
                fifo.push(p(pn as u64));
                fifo.depart(Time(arrival));
            }
        }
        for (now, next) in [(10, Some(20)), (20, Some(30)), (30, None)] {
            let now = Time(now);
            assert_eq!(at_wake.mark_arrived_at_wake(now), next.map(Time), "at {now:?}");
            assert_eq!(by_time.mark_arrived(now), next.map(Time), "at {now:?}");
            assert_eq!(at_wake.arrived, by_time.arrived, "at {now:?}");
        }
        assert_eq!(at_wake.mark_arrived_at_wake(Time(40)), None, "nothing propagating");
        assert_eq!(at_wake.arrived, 4);
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "a link event before its arrival")]
    fn marking_at_a_wake_up_before_the_arrival_is_caught() {
        // The marking trusts the event's time; a wake-up before the arrival would deliver early.
        let mut fifo = Fifo::default();
        fifo.push(p(0));
        fifo.depart(Time(10));
        fifo.mark_arrived_at_wake(Time(9));
    }

    #[test]
    fn fifo_keeps_each_packet_on_one_cache_line() {
        // With many flows each of a packet's three touches on a link (entry, departure, arrival) is a
        // cache miss per line it spans: one line each, through growth and wrap-around.
        let mut fifo = Fifo::default();
        for pn in 0..100 {
            fifo.push(p(pn));
            if pn % 3 == 0 {
                fifo.pop();
            }
            for slot in &fifo.q {
                let at = slot as *const InFlight as usize;
                assert_eq!(at % 64, 0, "packet {} starts inside a line", slot.packet.pn);
                assert_eq!(
                    size_of_val(slot),
                    64,
                    "packet {} spans more than a line",
                    slot.packet.pn
                );
            }
        }
    }
}
