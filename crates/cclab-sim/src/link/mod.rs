//! A one-way link: ACK thinning → loss model → queue → serialiser → propagation.
//!
//! Push model (quiche's `port.h`/`link.cc`): a packet arrives with [`Link::push`]; the link is
//! one actor whose single wake-up ([`Link::next_wake`]) is the earliest of "the head of the
//! propagation FIFO arrives", "the next cross-traffic packet" and, only where the propagation
//! stage may not yet hold an earlier arrival, the earliest time a waiting packet could arrive.
//! [`Link::act`] hands out the packets that reached the far end (the simulator calls
//! [`Link::advance`], reschedules the link, then takes them one at a time with
//! [`Link::pop_arrived`]). A push returns the wake-up it adds, which the simulator merges into
//! the link's pending one (no full `next_wake` per packet). The serialiser takes
//! `max(size·8/rate, per_packet_cost, 1/max_pps)` per packet. With `rate = "unlimited"` and no
//! per-packet cost packets skip queue and serialiser.
//!
//! The serialiser is lazy: it has no wake-up of its own. A packet's departure from the queue (the
//! start of its serialisation) is due when the one ahead of it ends (`busy_until`); the link
//! performs every departure due by `t` when it is next touched at `t` ([`Link::catch_up`]: a push,
//! an arrival at the far end, a cross-traffic packet, or a reader such as the time-series
//! sampler), each as a dequeue at its exact departure instant, so an AQM sees the time and
//! sojourn it would see with a wake-up per departure. Departures and cross-traffic packets due
//! by `t` are done in time order, a departure first at equal times, and a push at `t` comes after
//! all of them: a packet arriving at the instant a serialisation ends finds the queue as that
//! end leaves it, whatever order the simulator runs same-instant events in. The arrival time
//! of a packet is fixed when its serialisation starts and never earlier than that of the packet
//! ahead of it in the FIFO, so the packet being serialised, already in the propagation stage,
//! arrives no later than anything still queued: waking at each arrival is enough, and a
//! backlogged link costs one event per packet (its arrival), not two.

mod config;
mod cross;
mod propagation;
mod serialiser;
mod trace;

pub use config::{LinkConfig, LinkRate, ReorderConfig};
pub use cross::CrossTrafficConfig;
pub use trace::{MahimahiTrace, OPPORTUNITY_BYTES};

use crate::engine::rng::chance;
use crate::engine::{stream_rng, Rng, Stream};
use crate::loss::{AnyLoss, LossModel};
use crate::packet::{InFlight, CROSS_TRAFFIC};
use crate::queue::fifo::Fifo;
use crate::queue::{AnyQueue, Queue, QueueStats};
use cclab_core::time::{transmission_time, Dur, Time};
use cross::CrossSource;
use propagation::Propagation;
use serialiser::Serialiser;

/// Counters of one link (cross traffic included).
///
/// Counters that one step adds to together lie apart (a packet's count and its bytes, a departure's count,
/// queueing and serialisation times): side by side, LLVM added them as one vector, a load of a constant
/// and a shuffle more than two additions, on every push, departure and arrival. `repr(C)` keeps the
/// order written here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct LinkStats {
    /// Packets that entered the link.
    pub offered_packets: u64,
    /// Packets that reached the far end.
    pub delivered_packets: u64,
    /// The IP-layer bytes of `offered_packets`.
    pub offered_bytes: u64,
    /// The IP-layer bytes of `delivered_packets`.
    pub delivered_bytes: u64,
    /// Packets lost by the loss model.
    pub lost_packets: u64,
    /// Pure ACKs removed by ACK thinning.
    pub thinned_packets: u64,
    /// Packets the link duplicated (each copy counts once more in `delivered_packets`).
    pub duplicated_packets: u64,
    /// Packets that left the queue for the serialiser (a packet finding the link idle counts, with no wait).
    pub dequeued_packets: u64,
    /// Queue drops and ECN marks.
    pub queue: QueueStats,
    /// Time the serialiser spent transmitting.
    pub busy: Dur,
    /// Bytes of trace opportunities used (trace-driven links only).
    pub trace_bytes_used: u64,
    /// The total time `dequeued_packets` spent in the queue (sojourn), for the time series' mean per
    /// interval: a sum that wraps at 2^64 ns (`Link::add_sojourn`), so read it as a difference of two
    /// readings (`wrapping_sub`). It is the integral of the queue's length over time, which a long run
    /// with a deep queue can take past 2^64 ns (a million seconds at a mean of 18,500 packets), where a
    /// saturating sum would stop and every later interval's mean read 0.
    pub sojourn: Dur,
}

/// Whether two counters of [`LinkStats`] at these offsets are apart (not within one 16-byte vector).
const fn apart(a: usize, b: usize) -> bool {
    a.abs_diff(b) > 8
}
const _: () = {
    use std::mem::offset_of;
    assert!(apart(
        offset_of!(LinkStats, offered_packets),
        offset_of!(LinkStats, offered_bytes)
    ));
    assert!(apart(
        offset_of!(LinkStats, delivered_packets),
        offset_of!(LinkStats, delivered_bytes)
    ));
    assert!(apart(
        offset_of!(LinkStats, dequeued_packets),
        offset_of!(LinkStats, sojourn)
    ));
    assert!(apart(
        offset_of!(LinkStats, dequeued_packets),
        offset_of!(LinkStats, busy)
    ));
    assert!(apart(offset_of!(LinkStats, busy), offset_of!(LinkStats, sojourn)));
};

/// A one-way link.
#[derive(Debug)]
pub struct Link {
    ser: Serialiser,
    trace: Option<MahimahiTrace>,
    /// Next trace opportunity, while packets wait for one.
    trace_next: Option<u64>,
    /// The head packet of a trace link and its bytes still to send.
    trace_head: Option<(InFlight, u64)>,
    queue: AnyQueue,
    loss: AnyLoss,
    loss_rng: Rng,
    queue_rng: Rng,
    /// Duplication probability and its draws.
    duplicate: Option<(f64, Rng)>,
    prop: Propagation,
    /// Forward one pure ACK in `thin_acks` per route (0 or 1: all).
    thin_acks: u32,
    thin_counts: Vec<u32>,
    cross: Option<CrossSource>,
    /// Configuration the per-packet path asks about, settled once at build: packets skip queue
    /// and serialiser (no rate, no per-packet cost, no trace); the queue acts only when asked
    /// (drop-tail); no trace, cross traffic or reordering (the FIFO's head is the next wake-up).
    unlimited: bool,
    passive_queue: bool,
    plain: bool,
    /// ACK thinning, a loss model or duplication may take or copy a packet before it enters (off
    /// by default: then a push goes straight to the queue, without asking each of them).
    impaired: bool,
    /// A plain link with a drop-tail queue and a fixed delay: queue, serialiser and propagation keep
    /// one order, so departed packets stay in the queue's ring while they propagate (`queue::fifo`),
    /// and the propagation stage is unused.
    shared: bool,
    /// `shared` without ACK thinning, loss or duplication (the default link): a push takes
    /// [`Link::push_to_ring`], one test instead of each of the others.
    ring_push: bool,
    /// Load the shared ring's tail ahead of each push ([`Link::warm_tail`]; runs with many flows).
    warm_tail: bool,
    stats: LinkStats,
}

impl Link {
    /// Builds link number `index` of a run seeded `seed` from a config that passed
    /// [`LinkConfig::resolve`] (without a rate or a loaded trace the link is unlimited).
    pub fn new(index: u32, cfg: &LinkConfig, seed: u64) -> Link {
        let rate_bps = match cfg.rate {
            Some(LinkRate::Limited(r)) => Some(r.bps()),
            _ => None,
        };
        let per_packet_pps = cfg.max_pps.map_or(Dur::ZERO, |pps| Dur::from_secs_f64(1.0 / pps));
        let per_packet = cfg.per_packet_cost.max(per_packet_pps);
        let packet_time = rate_bps
            .map_or(Dur::ZERO, |r| transmission_time(1500, r))
            .max(per_packet);
        let queue = cfg.queue.build(packet_time, rate_bps);
        let trace = cfg.loaded_trace.clone();
        let unlimited = trace.is_none() && per_packet == Dur::ZERO && rate_bps.is_none();
        let plain = trace.is_none() && cfg.cross_traffic.is_none() && cfg.reorder.is_none();
        let loss = cfg.loss.build();
        let impaired = cfg.thin_acks > 1 || !matches!(loss, AnyLoss::None) || cfg.duplicate.is_some();
        let shared = plain && !unlimited && cfg.jitter == Dur::ZERO && matches!(queue, AnyQueue::DropTail(_));
        Link {
            impaired,
            unlimited,
            passive_queue: queue.is_passive(),
            plain,
            shared,
            ring_push: shared && !impaired,
            warm_tail: false,
            ser: Serialiser::new(rate_bps, per_packet),
            trace,
            trace_next: None,
            trace_head: None,
            queue,
            loss,
            loss_rng: stream_rng(seed, Stream::LinkLoss, index),
            queue_rng: stream_rng(seed, Stream::LinkQueue, index),
            duplicate: cfg
                .duplicate
                .map(|p| (p.0, stream_rng(seed, Stream::LinkDuplicate, index))),
            prop: Propagation::new(
                cfg.delay,
                cfg.jitter,
                cfg.reorder.as_ref().map(|r| (r.p.0, r.delay)),
                stream_rng(seed, Stream::LinkJitter, index),
                stream_rng(seed, Stream::LinkReorder, index),
            ),
            thin_acks: cfg.thin_acks,
            thin_counts: Vec::new(),
            cross: cfg
                .cross_traffic
                .as_ref()
                .map(|c| CrossSource::new(c, stream_rng(seed, Stream::LinkCross, index))),
            stats: LinkStats::default(),
        }
    }

    /// A packet enters the link at `now`, after every departure due by `now` ([`Link::catch_up`]).
    /// Returns a time to merge into the link's pending wake-up (the earlier wins, as in the
    /// scheduler): what the packet added (its arrival when it goes straight to the wire), or the
    /// whole [`Link::next_wake`] after a change that is not just an addition. A push never moves
    /// an earlier wake-up the link asked for, so the merged time is what requesting `next_wake()`
    /// gives, without recomputing it per packet. Inlined into its two callers (a host's send, a
    /// forwarded hop): as a call it saved and restored six registers a push and took the packet
    /// through the argument's stack copy (100 MB at 10 Gbit/s: -1.28 M instructions).
    #[inline(always)]
    pub fn push(&mut self, now: Time, p: InFlight) -> Option<Time> {
        if self.ring_push {
            return self.push_to_ring(now, p);
        }
        self.push_general(now, p)
    }

    /// [`Link::push`] on any other link. Out of line: inlined, its path through the other queues,
    /// which moves packets through 64-byte-aligned values, gave every push an aligned stack frame.
    #[inline(never)]
    fn push_general(&mut self, now: Time, p: InFlight) -> Option<Time> {
        self.catch_up(now);
        if self.warm_tail {
            if let Some(ring) = self.ring() {
                ring.prefetch_tail();
            }
        }
        self.offer(now, p)
    }

    /// [`Link::push`] on a shared ring without impairments: the same steps ([`Link::catch_up`],
    /// [`Link::offer`], [`Link::enter`]) with the tests that this configuration settles left out, and
    /// the drop-tail queue reached once rather than through a match over every discipline at each
    /// step: a push is one per hop of every packet.
    #[inline(always)]
    fn push_to_ring(&mut self, now: Time, p: InFlight) -> Option<Time> {
        let AnyQueue::DropTail(q) = &mut self.queue else {
            unreachable!("a shared ring is a drop-tail queue's");
        };
        if self.ser.busy_until <= now && q.packets() > 0 {
            self.depart_in_ring(now);
        }
        let AnyQueue::DropTail(q) = &mut self.queue else {
            unreachable!("a shared ring is a drop-tail queue's");
        };
        if self.warm_tail {
            q.ring().prefetch_tail();
        }
        self.stats.offered_packets += 1;
        self.stats.offered_bytes += p.size();
        // Departures due by `now` are done: a packet queued means a busy serialiser.
        if self.ser.busy_until <= now && q.packets() == 0 {
            // Straight to the wire, without the propagation stage's path (never taken here), which
            // moved the packet through a 64-byte-aligned value and gave every push an aligned frame.
            let arrival = Self::start_in_ring(&mut self.ser, &mut self.stats, self.prop.delay(), now, now, p.size());
            q.ring_mut().push_departed(p, arrival);
            return Some(arrival);
        }
        // Queued behind the packet being serialised, which arrives no later than it will: no new
        // wake-up (a shared ring has no trace and no reordering, `Link::waiting_bound`).
        q.enqueue(now, p, &mut self.queue_rng);
        debug_assert!(self.waiting_bound().is_none());
        None
    }

    /// Loads the shared ring's tail ahead of each push from now on: with thousands of flows the
    /// stores of each new packet otherwise wait for their line (with few, the tail stays in cache and
    /// the hint would only cost instructions).
    pub fn warm_tail(&mut self) {
        self.warm_tail = true;
    }

    /// `p` is offered at `now` to a link whose departures due by `now` are done: thinning, loss,
    /// duplication, then [`Link::enter`].
    #[inline(always)]
    fn offer(&mut self, now: Time, p: InFlight) -> Option<Time> {
        self.stats.offered_packets += 1;
        self.stats.offered_bytes += p.size();
        if !self.impaired {
            return self.enter(now, p);
        }
        self.offer_impaired(now, p)
    }

    /// [`Link::offer`] on a link with ACK thinning, loss or duplication, after the counts.
    #[inline(never)]
    fn offer_impaired(&mut self, now: Time, p: InFlight) -> Option<Time> {
        if self.thin_acks > 1 && p.route != CROSS_TRAFFIC && p.is_pure_ack() {
            let r = p.route as usize;
            if self.thin_counts.len() <= r {
                self.thin_counts.resize(r + 1, 0);
            }
            self.thin_counts[r] += 1;
            if !self.thin_counts[r].is_multiple_of(self.thin_acks) {
                self.stats.thinned_packets += 1;
                return None;
            }
        }
        // A lossless link (the default) skips the model's call: `AnyLoss::None` draws nothing.
        if !matches!(self.loss, AnyLoss::None) && self.loss.lose(&mut self.loss_rng) {
            self.stats.lost_packets += 1;
            return None;
        }
        if let Some((p_dup, rng)) = &mut self.duplicate {
            if chance(rng, *p_dup) {
                self.stats.duplicated_packets += 1;
                let first = self.enter(now, p.clone());
                let second = self.enter(now, p);
                return first.min(second).or(first).or(second);
            }
        }
        self.enter(now, p)
    }

    /// `p` passed thinning, loss and duplication: into the queue, or straight to the serialiser.
    /// Returns the wake-up to merge, as [`Link::push`] does.
    #[inline(always)]
    fn enter(&mut self, now: Time, p: InFlight) -> Option<Time> {
        if self.unlimited {
            return Some(self.prop.push(now, p));
        }
        // Departures due by `now` are done: a non-empty queue means a busy serialiser.
        let idle = self.ser.busy_until <= now && self.queued() == 0;
        if self.trace.is_none() && idle && self.passive_queue {
            self.stats.dequeued_packets += 1;
            return Some(self.transmit(now, p));
        }
        // Drop-tail (the default) called directly: its code inline here rather than behind the
        // dispatch over every discipline, which the compiler keeps out of line.
        let entered = match &mut self.queue {
            AnyQueue::DropTail(q) => q.enqueue(now, p, &mut self.queue_rng),
            q => q.enqueue(now, p, &mut self.queue_rng),
        };
        if !entered {
            return None;
        }
        match &self.trace {
            // Waits behind the packet being serialised, which arrives no later than it will: no
            // new wake-up, unless reordering may hold that packet back.
            None if self.ser.busy_until > now => self.waiting_bound(),
            // An AQM sees the packet enter and leave at once.
            None => self.start_next(now),
            Some(trace) => {
                if self.trace_next.is_none() {
                    self.trace_next = Some(trace.first_at_or_after(now));
                }
                self.next_wake()
            }
        }
    }

    /// The serialiser takes a packet of `size` bytes from `t` on, busy until its last bit is out;
    /// returns its arrival after the fixed delay (a propagation stage with jitter or reordering may
    /// hold it longer, `Propagation::push`).
    #[inline(always)]
    fn serialise(&mut self, t: Time, size: u64) -> Time {
        self.stats.busy += self.ser.start(t, size);
        self.ser.busy_until + self.prop.delay()
    }

    /// Serialises `p` from `t` on; returns its arrival time, known now.
    #[inline(always)]
    fn transmit(&mut self, t: Time, p: InFlight) -> Time {
        let arrival = self.serialise(t, p.size());
        match self.ring_mut() {
            Some(ring) => {
                ring.push_departed(p, arrival);
                arrival
            }
            None => self.prop.push(self.ser.busy_until, p),
        }
    }

    /// Packets in the queue: drop-tail's count read directly (the dispatch over every discipline is a
    /// jump through a table, on each push and departure).
    #[inline(always)]
    fn queued(&self) -> usize {
        match &self.queue {
            AnyQueue::DropTail(q) => q.packets(),
            q => q.packets(),
        }
    }

    /// The drop-tail ring departed packets stay in, on a link with `shared` set.
    #[inline(always)]
    fn ring(&self) -> Option<&Fifo> {
        match &self.queue {
            AnyQueue::DropTail(q) if self.shared => Some(q.ring()),
            _ => None,
        }
    }

    /// [`Link::ring`], to change.
    #[inline(always)]
    fn ring_mut(&mut self) -> Option<&mut Fifo> {
        match &mut self.queue {
            AnyQueue::DropTail(q) if self.shared => Some(q.ring_mut()),
            _ => None,
        }
    }

    /// The serialiser is free at `t`: starts the next queued packet, if any; returns its arrival.
    #[inline(always)]
    fn start_next(&mut self, t: Time) -> Option<Time> {
        if self.ring().is_some() {
            return self.start_next_in_ring(t);
        }
        let p = match &mut self.queue {
            AnyQueue::DropTail(q) => q.dequeue(t),
            q => q.dequeue(t),
        }?;
        self.stats.dequeued_packets += 1;
        Self::add_sojourn(&mut self.stats, t, p.enqueued);
        Some(self.transmit(t, p))
    }

    /// [`Link::start_next`] on a shared ring (`None` without one, or with nothing queued).
    #[inline(always)]
    fn start_next_in_ring(&mut self, t: Time) -> Option<Time> {
        let ring = self.ring()?;
        if self.warm_tail {
            ring.prefetch_queued();
        }
        // Departs in place: the packet stays where it is, stamped with its arrival time.
        let (size, enqueued) = ring.front().map(|p| (p.size(), p.enqueued))?;
        self.stats.dequeued_packets += 1;
        Self::add_sojourn(&mut self.stats, t, enqueued);
        let arrival = self.serialise(t, size);
        self.ring_mut()?.depart(arrival);
        Some(arrival)
    }

    /// Performs everything due by `now` that does not need a wake-up of its own: every
    /// departure from the queue (at its own instant, as the serialiser frees up or a trace
    /// opportunity comes) and every cross-traffic packet, in time order, a departure first at
    /// equal times. Readers of the link's state at `now` (queue length, drops, busy time) call
    /// this first; calling it again, or for an earlier time, does nothing.
    #[inline]
    pub fn catch_up(&mut self, now: Time) {
        // Most pushes find the serialiser busy past `now` (or nothing queued): a test, not a call.
        if self.plain {
            if self.ser.busy_until <= now && self.queued() > 0 {
                self.depart_queued(now);
            }
            return;
        }
        self.catch_up_due(now);
    }

    /// Every departure due by `now` on a plain link (no trace, no cross traffic), whose first is
    /// due: [`Link::catch_up_due`] without its look for cross traffic, a smaller function whose
    /// call saves and restores fewer registers.
    ///
    /// A shared drop-tail ring (the default link) departs in place without the other queues' path,
    /// whose packets move out of the queue through a 64-byte-aligned value: with it, every call set
    /// up an aligned stack frame and asked the queue's length through the dispatch over every
    /// discipline, for what is mostly one departure.
    #[inline(never)]
    fn depart_queued(&mut self, now: Time) {
        if self.ring().is_none() {
            return self.depart_queued_general(now);
        }
        self.depart_in_ring(now);
    }

    /// Every departure due by `now` from a shared ring (inlined in [`Link::push_to_ring`], whose
    /// registers are saved anyway: a call of its own saved and restored six more). The ring, the
    /// serialiser and the counters are borrowed apart, once: through [`Link::start_next_in_ring`] each
    /// departure matched the queue's discipline again and found the ring twice.
    #[inline(always)]
    fn depart_in_ring(&mut self, now: Time) {
        let AnyQueue::DropTail(q) = &mut self.queue else {
            unreachable!("a shared ring is a drop-tail queue's");
        };
        let ring = q.ring_mut();
        let (ser, stats, delay) = (&mut self.ser, &mut self.stats, self.prop.delay());
        while ser.busy_until <= now
            && ring.depart_front(self.warm_tail, |p| {
                Self::start_in_ring(ser, stats, delay, ser.busy_until, p.enqueued, p.size())
            })
        {}
    }

    /// A packet of `size` bytes queued on a shared ring since `enqueued` leaves the queue at `t`, when
    /// the serialiser `ser` is free: counted in `stats`, serialised; returns its arrival after `delay`.
    /// The arrival saturates (`Time`'s addition): a scenario may give a link a delay of up to 584 years,
    /// and a wrapped arrival would be an event in the past. The busy sum is a plain addition: it is at
    /// most `busy_until`, which the run's bounded duration keeps far below 2^64 ns (`Serialiser::start`).
    #[inline(always)]
    fn start_in_ring(
        ser: &mut Serialiser,
        stats: &mut LinkStats,
        delay: Dur,
        t: Time,
        enqueued: Time,
        size: u64,
    ) -> Time {
        stats.dequeued_packets += 1;
        Self::add_sojourn(stats, t, enqueued);
        let d = ser.start(t, size);
        stats.busy.0 += d.0;
        ser.busy_until + delay
    }

    /// Counts a packet queued since `enqueued` that leaves the queue at `t` in the wrapping sojourn sum
    /// (`LinkStats::sojourn`); `t - enqueued` itself cannot wrap: a packet never leaves before it entered.
    #[inline(always)]
    fn add_sojourn(stats: &mut LinkStats, t: Time, enqueued: Time) {
        stats.sojourn = Dur(stats.sojourn.0.wrapping_add(t.saturating_since(enqueued).0));
    }

    /// [`Link::depart_queued`] for a queue that is not a shared ring.
    #[inline(never)]
    fn depart_queued_general(&mut self, now: Time) {
        while self.ser.busy_until <= now && self.queue.packets() > 0 {
            self.start_next(self.ser.busy_until);
        }
    }

    /// [`Link::catch_up`] when something may be due.
    fn catch_up_due(&mut self, now: Time) {
        while let Some(t) = self.cross.as_ref().map(CrossSource::next_time).filter(|&t| t <= now) {
            self.depart_until(t);
            let p = self.cross.as_mut().expect("cross source exists").emit();
            self.offer(t, p);
        }
        self.depart_until(now);
    }

    /// Every departure due by `t`.
    #[inline(always)]
    fn depart_until(&mut self, t: Time) {
        if self.trace.is_some() {
            self.use_opportunities(t);
        } else {
            while self.ser.busy_until <= t && self.queue.packets() > 0 {
                self.start_next(self.ser.busy_until);
            }
        }
    }

    /// Advances the link to `now`; packets that reached the far end are appended to `out`.
    pub fn act(&mut self, now: Time, out: &mut Vec<InFlight>) {
        self.advance(now);
        while let Some(p) = self.pop_arrived() {
            out.push(p);
        }
    }

    /// Advances the link to `now` and marks the packets that reached the far end, for
    /// [`Link::pop_arrived`] to take. [`Link::next_wake`] leaves marked packets out, so the link
    /// can be rescheduled before they are taken.
    #[inline]
    pub fn advance(&mut self, now: Time) {
        self.catch_up(now);
        match self.ring_mut() {
            Some(ring) => {
                ring.mark_arrived(now);
            }
            None => self.prop.mark_arrived(now),
        }
    }

    /// [`Link::advance`] for a link event at an arrival: on a shared ring the departures due by `now`
    /// wait while a departed packet is still propagating, for the next push or the event that finds
    /// none. They arrive after it (one order), so nothing they would change is read before: not the
    /// arrivals marked, not [`Link::next_wake`] (that packet's arrival), and a push or any reader of
    /// queue and counters catches up first ([`Link::catch_up`]), making them with the same times.
    /// At 10 Gbit/s nearly every data packet waits behind the one before it, and its departure was a
    /// call of its own at the link event (~90 instructions a data packet).
    ///
    /// Returns [`Link::next_wake`] after it: while a packet still propagates, that is its arrival,
    /// which the ring's marking read last, so the event does not look it up again.
    #[inline(always)]
    pub fn advance_to_arrivals(&mut self, now: Time) -> Option<Time> {
        if let Some(ring) = self.ring_mut() {
            if let Some(next) = ring.mark_arrived_at_wake(now) {
                return Some(next);
            }
        }
        self.advance(now);
        self.next_wake()
    }

    /// The `k`-th packet due to arrive, from 0 (held-back reordered packets aside), for a look ahead.
    pub fn in_flight(&self, k: usize) -> Option<&InFlight> {
        match self.ring() {
            Some(ring) => ring.in_flight(k),
            None => self.prop.in_fifo(k),
        }
    }

    /// The packet marked by [`Link::advance`] when it is the only one ([`Link::pop_arrived`]
    /// takes it next; cross traffic included).
    #[inline(always)]
    pub fn only_arrival(&self) -> Option<&InFlight> {
        match self.ring() {
            Some(ring) => ring.only_arrival(),
            None => self.prop.only_arrival(),
        }
    }

    /// The next packet marked by [`Link::advance`] (in arrival order); cross traffic leaves the
    /// network here.
    #[inline(always)]
    pub fn pop_arrived(&mut self) -> Option<InFlight> {
        loop {
            let p = match self.ring_mut() {
                Some(ring) => ring.pop_arrived()?,
                None => self.prop.pop_arrived()?,
            };
            self.stats.delivered_packets += 1;
            self.stats.delivered_bytes += p.size();
            if p.route != CROSS_TRAFFIC {
                return Some(p);
            }
        }
    }

    /// Uses every trace opportunity due by `now` while packets wait.
    fn use_opportunities(&mut self, now: Time) {
        let trace = self.trace.as_ref().expect("trace link");
        while let Some(k) = self.trace_next {
            let t = trace.time(k);
            if t > now {
                break;
            }
            let mut credit = OPPORTUNITY_BYTES;
            while credit > 0 {
                if self.trace_head.is_none() {
                    match self.queue.dequeue(t) {
                        Some(p) => {
                            self.stats.dequeued_packets += 1;
                            Self::add_sojourn(&mut self.stats, t, p.enqueued);
                            let size = p.size();
                            self.trace_head = Some((p, size));
                        }
                        None => break,
                    }
                }
                let (_, left) = self.trace_head.as_mut().expect("head exists");
                let used = credit.min(*left);
                credit -= used;
                *left -= used;
                self.stats.trace_bytes_used += used;
                if *left == 0 {
                    let (p, _) = self.trace_head.take().expect("head exists");
                    self.prop.push(t, p);
                }
            }
            let waiting = self.trace_head.is_some() || self.queue.packets() > 0;
            self.trace_next = waiting.then_some(k + 1);
        }
    }

    /// The earliest time a packet still waiting for the serialiser (or a trace opportunity)
    /// could reach the far end, when the propagation stage may not already hold an arrival no
    /// later than it. A waiting packet leaves no earlier than `busy_until` (or the next
    /// opportunity) and then propagates for at least the delay. The FIFO keeps arrival order, so
    /// a pending FIFO arrival (the packet being serialised, or the last one a trace link
    /// finished) comes first; but a packet held back by reordering is outside that order, and a
    /// trace link's first waiting packet has nothing ahead of it.
    #[inline(always)]
    fn waiting_bound(&self) -> Option<Time> {
        if self.trace.is_none() && !self.prop.reorders() {
            return None; // the common case, on every push and wake-up: one test
        }
        self.waiting_bound_impaired()
    }

    /// [`Link::waiting_bound`] on a link with a trace or reordering (out of line: LLVM kept the
    /// whole function a call of its own, the common case's one test included, on every push
    /// that queues a packet).
    #[inline(never)]
    fn waiting_bound_impaired(&self) -> Option<Time> {
        match (&self.trace, self.trace_next) {
            (None, _) if self.prop.reorders() && self.queue.packets() > 0 => {
                Some(self.ser.busy_until + self.prop.delay())
            }
            (Some(trace), Some(k)) if self.prop.reorders() || self.prop.next_arrival().is_none() => {
                Some(trace.time(k) + self.prop.delay())
            }
            _ => None,
        }
    }

    /// When the link next has something to do, if anything.
    #[inline(always)]
    pub fn next_wake(&self) -> Option<Time> {
        // The plain case inline (the simulator asks after every link event): the call's
        // prologue and epilogue cost as much as the look at the FIFO's head.
        if let Some(ring) = self.ring() {
            return ring.next_arrival(); // departed packets lead the queue's ring
        }
        if self.plain {
            return self.prop.next_arrival(); // nothing waits outside the FIFO's order, no cross traffic
        }
        self.next_wake_impaired()
    }

    /// [`Link::next_wake`] of a link with a trace, cross traffic or reordering.
    #[inline(never)]
    fn next_wake_impaired(&self) -> Option<Time> {
        // A running minimum over raw times (`u64::MAX`: none), not over `Option`s: this runs after
        // every event and every push of the link.
        let mut t = self.prop.next_arrival().map_or(u64::MAX, |a| a.0);
        if let Some(b) = self.waiting_bound() {
            t = t.min(b.0);
        }
        if let Some(cross) = &self.cross {
            t = t.min(cross.next_time().0);
        }
        (t != u64::MAX).then_some(Time(t))
    }

    /// Counters.
    pub fn stats(&self) -> LinkStats {
        LinkStats {
            queue: self.queue.stats(),
            ..self.stats
        }
    }

    /// Bytes waiting in the queue.
    pub fn queue_bytes(&self) -> u64 {
        self.queue.bytes()
    }

    /// Packets inside the link: queued, being serialised, or propagating.
    pub fn in_transit_packets(&self) -> u64 {
        let departed = self.ring().map_or(0, Fifo::departed);
        (self.queue.packets() + self.trace_head.is_some() as usize + self.prop.len() + departed) as u64
    }

    /// The link's state at `now` for the time series.
    pub fn sample(&self, now: Time) -> crate::timeseries::LinkSample {
        let st = self.stats();
        let elapsed = now.saturating_since(Time::ZERO);
        let used_of = match &self.trace {
            Some(trace) => (
                st.trace_bytes_used as f64,
                (trace.count_before(now) * OPPORTUNITY_BYTES) as f64,
            ),
            None => (st.busy.min(elapsed).as_secs_f64(), elapsed.as_secs_f64()),
        };
        crate::timeseries::LinkSample {
            queue_bytes: self.queue.bytes(),
            queue_packets: self.queue.packets() as u64,
            drops: st.queue.dropped_packets + st.lost_packets,
            ecn_marks: st.queue.ecn_marked,
            dequeued: (st.dequeued_packets, st.sojourn),
            used_of,
        }
    }

    /// Fraction of `duration` the link was busy: serialiser busy time, or on a trace link the
    /// share of opportunity bytes used.
    pub fn utilisation(&self, duration: Dur) -> f64 {
        if duration.0 == 0 {
            return 0.0;
        }
        match &self.trace {
            Some(trace) => {
                let offered = trace.count_before(Time::ZERO + duration) * OPPORTUNITY_BYTES;
                if offered == 0 {
                    0.0
                } else {
                    self.stats.trace_bytes_used as f64 / offered as f64
                }
            }
            None => self.stats.busy.min(duration).as_secs_f64() / duration.as_secs_f64(),
        }
    }
}

#[cfg(test)]
mod tests;
