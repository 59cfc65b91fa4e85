//! End hosts: one CPU core that does all packet work, a receive socket buffer, and the
//! endpoints of the flows that end here.
//!
//! The host is an event loop like a QUIC server's: whenever the CPU is free it fires the
//! endpoints' due timers (free of cost), then starts the next job, alternating receive and send
//! work while both are pending. A receive job takes datagrams out of the socket buffer (freeing
//! it) and hands them to their endpoints when the CPU has spent their cost; a send job polls an
//! endpoint (round-robin) for a datagram and puts it on the wire when its cost is spent. So a
//! CPU-bound sender sends at `1/send_cost` packets per second and a slow receiver lets its
//! socket buffer fill and overflow (`socket_drops`). The endpoint sees `now` = the job's start
//! for transmits and the job's end for receives. With `cpu.stall` set, scheduling stalls
//! (`stall`) take the core between jobs: no job runs and no timer fires until a stall ends,
//! while arrivals keep filling the socket buffer. With `cpu.idle_states` set, a core that idled
//! long enough sleeps (`idle`) and the work that wakes it starts after the state's exit latency.

mod config;
mod free;
mod idle;
mod rx;
mod single;
mod slot_set;
mod stall;
mod wakeups;

pub use config::{BatchConfig, CpuConfig, HostConfig, IdleStateConfig, StallConfig};

use crate::ack_intervals::AckIntervalStats;
use crate::endpoint::AnyEndpoint;
use crate::engine::Rng;
use crate::packet::InFlight;
use cclab_core::endpoint::{Endpoint, TraceEvent, TraceSink};
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::{Datagram, FlowId};
use idle::IdleStates;
use rx::RxQueue;
use slot_set::SlotSet;
use stall::Stalls;
use wakeups::Wakeups;

/// Which end of a flow an endpoint is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The data sender.
    Sender,
    /// The data receiver.
    Receiver,
}

/// Where a host's datagrams go as they leave it ([`Host::act`]).
///
/// A trait, not a closure: the network's implementation is marked to be inlined at every place a
/// host sends, where LLVM left a closure as a call of its own per datagram, with the packet
/// moved into it and on into the link (docs/performance.md).
pub trait Outbox {
    /// `p` leaves the host now onto `link`, the first link of its route ([`NO_LINK`]: it has none).
    fn put(&mut self, p: InFlight, link: u32);
}

/// [`Outbox::put`]'s link for a route without links: the datagram arrives at a host directly.
pub const NO_LINK: u32 = u32::MAX;

/// Where a host takes the datagram handed to it straight from the link that delivered it
/// ([`Host::act`]'s `arrival`), without the socket buffer.
pub trait Inbox {
    /// The datagram handed straight to the host.
    fn take(&mut self) -> Datagram;
}

/// A send job's datagrams, held until the job's cost is spent.
impl Outbox for Vec<InFlight> {
    #[inline]
    fn put(&mut self, p: InFlight, _link: u32) {
        self.push(p);
    }
}

/// One endpoint on a host.
///
/// Aligned to a cache line, the ACK intervals in the second: a receiver's ACK leaves while its slot
/// is in cache, and with thousands of flows the intervals kept apart from it cost a miss per ACK.
#[repr(C, align(64))]
pub struct Slot {
    /// The endpoint.
    pub endpoint: AnyEndpoint,
    /// Its flow.
    pub flow: FlowId,
    /// Its side.
    pub side: Side,
    /// Route its datagrams take.
    route: u16,
    /// The route's first link ([`NO_LINK`]: none), known when the flow is added: a datagram's way
    /// onto it is then one look-up per send, not three (the route, its links, the link).
    link: u32,
    /// When the flow starts; the endpoint is left alone before.
    start: Time,
    /// Trace events are collected.
    tracing: bool,
    /// The endpoint reported `is_done` (latched).
    done: bool,
    /// Datagrams for it dropped by the full socket buffer.
    pub socket_drops: u64,
    /// Intervals between the ACK-only packets it put on the wire (a receiver's; empty for a sender).
    pub ack_intervals: AckIntervalStats,
}

impl Slot {
    /// `p` leaves the host at `now`: a receiver's ACK-only packet counts in its ACK intervals.
    #[inline(always)]
    fn note_sent(&mut self, p: &InFlight, now: Time) {
        if self.side == Side::Receiver && p.is_pure_ack() {
            self.ack_intervals.record(now);
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Job {
    Idle,
    Receive,
    Send,
    /// A scheduling stall holds the core.
    Stall,
    /// The core leaves an idle state.
    Wake,
}

/// Counters of one host.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostStats {
    /// CPU time spent on jobs.
    pub busy: Dur,
    /// Datagrams dropped by the full socket buffer.
    pub socket_drops: u64,
    /// Time scheduling stalls held the core while it had work (from when the work waited).
    pub stalled: Dur,
    /// Time work waited for the core to leave an idle state.
    pub waking: Dur,
}

/// A host.
///
/// The fields an event reads on a host that keeps up come first, in the order it reads them
/// (`repr(C)` keeps that order), packed into the first four cache lines (`align(64)`: a host in
/// the network's vector starts on a line, so those fields never straddle a fifth): with
/// thousands of hosts, each event touches those lines, not the whole struct. The CPU model's
/// state follows.
#[repr(C, align(64))]
pub struct Host {
    job: Job,
    /// Every job costs nothing and nothing else holds the core: `act` takes the loop in `free.rs`.
    free: bool,
    /// The next job should be a send job if one is possible.
    send_turn: bool,
    /// How an arrival that finds the host idle is handled: what it allows and the network asks,
    /// settled once here so that a link event tests one byte (see `hand_off`, `takes_straight`).
    hand_off: HandOff,
    /// Slot to poll first for the next send job.
    next_slot: u32,
    /// Bytes of the datagrams waiting in `rx`, and the most it may hold.
    rx_bytes: u64,
    socket_buffer: u64,
    /// Socket buffer: (slot, datagram) waiting for the CPU (the first `job_rx` are the receive job's).
    rx: RxQueue,
    /// Slots' wake-up times and which may send.
    wake: Wakeups,
    /// Slots called since their wake-up time was last read.
    stale: SlotSet,
    slots: Vec<Slot>,
    /// Most datagrams per send job (GSO) and per receive job (GRO).
    max_tx: u32,
    max_rx: u32,
    /// Tracing slots called since the last `drain_events`, in call order (no slot twice in a row):
    /// their events stay in the endpoints until then, so each moves once, endpoint to observer.
    traced: Vec<u16>,
    stats: HostStats,
    cpu: CpuConfig,
    busy_until: Time,
    /// Datagrams at the front of `rx` the receive job carries (they stay there to save a copy each).
    job_rx: usize,
    /// The send job's datagrams, already wrapped for the route (`enqueued` is set when the job ends).
    job_tx: Vec<InFlight>,
    /// Slot whose datagrams the send job carries.
    job_tx_slot: usize,
    stalls: Option<Stalls>,
    idle: Option<IdleStates>,
    /// The host allows hand-offs (see `hand_off`), whether or not the network makes them.
    allows_hand_off: bool,
}

/// How a host takes an arrival that finds it idle.
#[derive(Clone, Copy, PartialEq, Eq)]
enum HandOff {
    /// In a wake-up event of its own.
    Never,
    /// In the arriving event ([`Host::hand_off`]).
    InEvent,
    /// In the arriving event, straight from the link when its socket buffer is empty ([`Host::takes_straight`]).
    Straight,
}

/// Bytes at the start of a host that an event reads: its first four lines (see `Host`).
pub const HOT_BYTES: usize = 256;
const _: () = assert!(std::mem::offset_of!(Host, traced) + size_of::<Vec<u16>>() <= HOT_BYTES);

fn carries_data(d: &Datagram) -> bool {
    d.packet.data.is_some()
}

impl Host {
    /// A host with no endpoints; its stalls (if any) draw from `rng`.
    pub fn new(cfg: &HostConfig, rng: Rng) -> Host {
        let c = &cfg.cpu;
        let batch = |b: &Option<BatchConfig>| b.as_ref().map_or(1, |b| b.max_segments.get());
        let no_fixed = |b: &Option<BatchConfig>| b.as_ref().is_none_or(|b| b.fixed == Dur::ZERO);
        let free = [c.send_cost, c.recv_cost, c.ack_send_cost, c.ack_recv_cost] == [Dur::ZERO; 4]
            && no_fixed(&c.gso)
            && no_fixed(&c.gro)
            && c.stall.is_none()
            && c.idle_states.is_empty();
        let socket_buffer = cfg.socket_buffer.map_or(u64::MAX, |b| b.0);
        let mut host = Host {
            cpu: cfg.cpu.clone(),
            free,
            hand_off: HandOff::Never,
            max_tx: batch(&c.gso),
            max_rx: batch(&c.gro),
            socket_buffer,
            slots: Vec::new(),
            rx: RxQueue::default(),
            rx_bytes: 0,
            job: Job::Idle,
            busy_until: Time::ZERO,
            job_rx: 0,
            job_tx: Vec::new(),
            job_tx_slot: 0,
            send_turn: true,
            next_slot: 0,
            wake: Wakeups::new(),
            stale: SlotSet::default(),
            traced: Vec::new(),
            stats: HostStats::default(),
            stalls: cfg.cpu.stall.as_ref().map(|s| Stalls::new(s, rng)),
            idle: (!cfg.cpu.idle_states.is_empty()).then(|| IdleStates::new(&cfg.cpu.idle_states)),
            allows_hand_off: socket_buffer == u64::MAX && (free || batch(&c.gro) == 1),
        };
        host.set_hand_off(true);
        host
    }

    /// With `on`, the host takes arrivals within the arriving event if it allows it (the network's
    /// default); without, every arrival wakes it in an event of its own ([`Network::set_hand_off`]).
    ///
    /// [`Network::set_hand_off`]: crate::network::Network::set_hand_off
    pub fn set_hand_off(&mut self, on: bool) {
        self.hand_off = match (on && self.allows_hand_off, self.free) {
            (false, _) => HandOff::Never,
            (true, false) => HandOff::InEvent,
            (true, true) => HandOff::Straight,
        };
    }

    /// Adds an endpoint whose datagrams take route `route`, whose first link is `link` ([`NO_LINK`]:
    /// none); returns its slot number.
    pub fn add(
        &mut self,
        endpoint: AnyEndpoint,
        flow: FlowId,
        side: Side,
        route: u16,
        link: u32,
        start: Time,
        tracing: bool,
    ) -> u16 {
        let mut endpoint = endpoint;
        endpoint.set_tracing(tracing);
        self.slots.push(Slot {
            endpoint,
            flow,
            side,
            route,
            link,
            start,
            tracing,
            done: false,
            socket_drops: 0,
            ack_intervals: AckIntervalStats::new(),
        });
        let slot = (self.slots.len() - 1) as u16;
        self.wake.add(slot, start);
        self.stale.grow(self.slots.len());
        slot
    }

    /// What a datagram's arrival at `slot` reads first, as (address, bytes): the host's leading
    /// lines, the slot (a sender's first line: the second holds a receiver's ACK intervals), the
    /// endpoint's leading state. For a prefetch ahead of the arrival.
    pub fn hot_bytes(&self, slot: u16) -> [(usize, usize); 3] {
        let s = &self.slots[slot as usize];
        [
            (self as *const Host as usize, HOT_BYTES),
            (
                s as *const Slot as usize,
                if s.side == Side::Receiver {
                    size_of::<Slot>()
                } else {
                    64
                },
            ),
            s.endpoint.hot_bytes(),
        ]
    }

    /// Starts loading the out-of-line state of `slot`'s endpoint and, for a receiver, where its next
    /// ACK interval goes (after [`Host::hot_bytes`] warmed the host, the slot and the endpoint's
    /// struct, or reading them misses here).
    pub fn prefetch_slot_state(&self, slot: u16) {
        let s = &self.slots[slot as usize];
        s.endpoint.prefetch_state();
        // A data packet arriving at a receiver may make it send an ACK.
        if s.side == Side::Receiver {
            s.ack_intervals.prefetch_tail();
        }
    }

    /// The endpoints.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// Sends the trace events of the endpoint in `slot` to `sink` as they happen (see
    /// [`Endpoint::set_trace_sink`]); the host then has none of its events to collect. An endpoint
    /// without a trace hands the sink back.
    pub fn set_trace_sink(&mut self, slot: u16, sink: Box<dyn TraceSink>) -> Result<(), Box<dyn TraceSink>> {
        let s = &mut self.slots[slot as usize];
        s.endpoint.set_trace_sink(sink)?;
        s.tracing = false;
        Ok(())
    }

    /// Detaches the trace sink of the endpoint in `slot`, if any.
    pub fn take_trace_sink(&mut self, slot: u16) -> Option<Box<dyn TraceSink>> {
        self.slots[slot as usize].endpoint.take_trace_sink()
    }

    /// Counters.
    pub fn stats(&self) -> HostStats {
        self.stats
    }

    /// Bytes waiting in the socket buffer.
    pub fn socket_buffer_bytes(&self) -> u64 {
        self.rx_bytes
    }

    /// Datagrams waiting in the socket buffer. Only a host whose CPU costs time keeps any from one
    /// event to the next ([`Host::costs_time`]).
    pub fn socket_buffer_datagrams(&self) -> u64 {
        self.rx.len() as u64
    }

    /// Its CPU model costs time, so datagrams may wait for it.
    pub fn costs_time(&self) -> bool {
        !self.free
    }

    /// Hands the trace events emitted since the last call to `f`, each endpoint's in the order it
    /// emitted them (one endpoint's all together: each endpoint has a trace of its own).
    ///
    /// Its one test is inlined and the walk is not: untraced runs, the common case, take no call.
    #[inline(always)]
    pub fn drain_events(&mut self, f: impl FnMut(FlowId, Side, &TraceEvent)) {
        if !self.traced.is_empty() {
            self.drain_traced(f);
        }
    }

    #[inline(never)]
    fn drain_traced(&mut self, mut f: impl FnMut(FlowId, Side, &TraceEvent)) {
        for &slot in &self.traced {
            let s = &mut self.slots[slot as usize];
            let (flow, side) = (s.flow, s.side);
            s.endpoint.drain_events(|ev| f(flow, side, ev));
        }
        self.traced.clear();
    }

    /// A datagram for `slot` arrives at `now`. Returns true if the host must run at `now`.
    #[inline]
    pub fn deliver(&mut self, slot: u16, d: Datagram) -> bool {
        let size = d.size as u64;
        if self.rx_bytes + size > self.socket_buffer {
            self.stats.socket_drops += 1;
            self.slots[slot as usize].socket_drops += 1;
            return false;
        }
        self.rx_bytes += size;
        self.rx.push_back(slot, d);
        self.job == Job::Idle
    }

    /// The host may run at once, within the event that delivered to it, when [`Host::deliver`]
    /// returns true, instead of in a wake-up event of its own at the same instant.
    ///
    /// Only the order of same-instant events changes: the host does at `now` what its wake-up
    /// would have done at `now`, except with arrivals at `now` from other events, which the
    /// wake-up took together and hand-offs take one by one. That changes nothing for a host
    /// without receive batches (GRO) and without a socket-buffer limit (each arrival finds the
    /// same datagrams ahead of it, and none is dropped), so only such hosts allow it; a host
    /// whose CPU costs nothing handles every batch at `now` either way, so it allows it with GRO.
    #[inline]
    pub fn hand_off(&self) -> bool {
        self.hand_off != HandOff::Never
    }

    /// A datagram arriving now may skip the socket buffer, taken by the host's next run straight
    /// from where it is ([`Host::act`]'s `arrival`): the host allows hand-offs, its CPU costs
    /// nothing (no job holds it, so a delivery would ask for a run at once) and its buffer is
    /// empty (so the datagram would be the only one there).
    #[inline]
    pub fn takes_straight(&self) -> bool {
        self.hand_off == HandOff::Straight && self.rx.is_empty()
    }

    /// Runs the event loop at `now`; each sent datagram is handed to `out` as it leaves the host,
    /// in the order they leave. Returns the number of endpoints that became done and when the host
    /// next has work ([`Host::next_wake`] after the run: nothing the network does before it asks for
    /// the host's next run changes that, as a delivery only fills the socket buffer).
    ///
    /// With `arrival`, a datagram for that slot waits in `out` ([`Inbox::take`]), handed straight
    /// from its link to a host that [`Host::takes_straight`]: the run makes the calls it would make
    /// with that datagram alone in the socket buffer.
    ///
    /// Inlined where the network runs a host, its one caller: as a call of its own (LLVM's choice
    /// once the arrival's path was added) it cost 3.7 M instructions more on 100 MB at 10 Gbit/s.
    #[inline(always)]
    pub fn act(&mut self, now: Time, out: &mut (impl Outbox + Inbox), arrival: Option<u16>) -> (usize, Option<Time>) {
        let finished = if self.free {
            if self.slots.len() == 1 {
                // Its own wake-up time is re-read in its loop, which returns it: no slot is stale.
                return self.run_single(now, out, arrival);
            }
            self.run_free(now, out, arrival)
        } else {
            debug_assert!(
                arrival.is_none(),
                "a host whose CPU costs time takes datagrams from its socket buffer"
            );
            self.run(now, out)
        };
        self.refresh_stale(now);
        (finished, self.next_wake(now))
    }

    fn run(&mut self, now: Time, out: &mut impl Outbox) -> usize {
        let mut finished = 0;
        let after_job = self.job != Job::Idle;
        if after_job {
            if self.busy_until > now {
                return 0;
            }
            finished += self.finish_job(now, out);
        }
        // A stall holds the core before timers and jobs run.
        if let Some(len) = self.stalls.as_mut().and_then(|s| s.hold(now, after_job)) {
            self.job = Job::Stall;
            self.busy_until = now + len;
            self.stats.stalled += len;
            if let Some(idle) = &mut self.idle {
                idle.taken();
            }
            return finished;
        }
        // Work found the core asleep: it runs once the core is awake.
        if let Some(len) = self.idle.as_mut().filter(|_| !after_job).and_then(|i| i.wake(now)) {
            self.job = Job::Wake;
            self.busy_until = now + len;
            self.stats.waking += len;
            return finished;
        }
        // Timers fire once per wake-up: `now` does not move while zero-cost jobs run.
        self.refresh_stale(now);
        finished += self.fire_timers(now);
        while self.start_job(now) && self.busy_until <= now {
            finished += self.finish_job(now, out);
        }
        if let Some(idle) = self.idle.as_mut().filter(|_| self.job == Job::Idle) {
            idle.went_idle(now);
        }
        finished
    }

    /// When the host next has work, if ever.
    #[inline(always)]
    fn next_wake(&self, now: Time) -> Option<Time> {
        if self.job != Job::Idle {
            return Some(self.busy_until);
        }
        let t = self.wake.earliest()?;
        // An endpoint asking for `now` again after doing nothing would spin; move on by 1 ns.
        Some(t.max(now + Dur(1)))
    }

    /// Notes that `slot`'s endpoint (`s`) may have emitted trace events for `drain_events`.
    fn collect_events(traced: &mut Vec<u16>, slot: u16, s: &Slot) {
        if s.tracing && traced.last() != Some(&slot) {
            traced.push(slot);
        }
    }

    /// Marks endpoints that became done (latched); returns how many did.
    fn check_done(s: &mut Slot) -> usize {
        if !s.done && s.endpoint.is_done() {
            s.done = true;
            return 1;
        }
        0
    }

    /// Notes that `slot`'s endpoint was called, so when it next needs the host must be re-read.
    fn touched(&mut self, slot: usize) {
        self.stale.insert(slot as u16);
    }

    /// Re-reads when the touched slots next need the host. The wake-up times are only read by
    /// `take_due` and `next_wake`, so one `poll_timeout` per touched endpoint before those
    /// suffices; a host that polls, feeds and polls an endpoint again within one event used to
    /// ask it three times. (Slots are refreshed in slot order: the order does not matter, as each
    /// slot has one wake-up time and `take_due` sorts the due slots.)
    #[inline(always)]
    fn refresh_stale(&mut self, now: Time) {
        while let Some(slot) = self.stale.pop_first() {
            let s = &self.slots[slot];
            let t = if s.start > now {
                Some(s.start)
            } else {
                s.endpoint.poll_timeout()
            };
            self.wake.set(slot as u16, t);
        }
    }

    #[inline]
    fn fire_timers(&mut self, now: Time) -> usize {
        // Most events fire no timer: one look at the earliest skips the due list's round trip
        // (inline, so that it costs no call).
        if self.wake.earliest().is_none_or(|t| t > now) {
            return 0;
        }
        self.fire_due_timers(now)
    }

    /// [`Host::fire_timers`] once some timer is due.
    #[inline(never)]
    fn fire_due_timers(&mut self, now: Time) -> usize {
        let mut finished = 0;
        let due = self.wake.take_due(now);
        for &slot in due.slots() {
            let s = &mut self.slots[slot as usize];
            if s.start <= now && s.endpoint.poll_timeout().is_some_and(|t| t <= now) {
                s.endpoint.handle_timeout(now);
                Self::collect_events(&mut self.traced, slot, s);
                finished += Self::check_done(s);
            }
            // A start or a timer may let it send.
            self.wake.mark_ready(slot);
            self.touched(slot as usize);
        }
        due.give_back();
        finished
    }

    /// Hands the oldest datagram waiting in the socket buffer (there is one) to its endpoint at
    /// `now`, and with `count` takes its bytes off the buffer's count; returns 1 if the endpoint
    /// became done. The common case, the datagram in the buffer's first place, on a path of its own.
    #[inline(always)]
    fn receive_oldest(&mut self, now: Time, count: bool) -> usize {
        match self.rx.take_first() {
            Some((slot, d)) => {
                if count {
                    self.rx_bytes -= d.size as u64;
                }
                self.receive(now, slot, d)
            }
            None => self.receive_backlog(now, count),
        }
    }

    /// [`Host::receive_oldest`] from the backlog behind the first place.
    #[inline(never)]
    pub(super) fn receive_backlog(&mut self, now: Time, count: bool) -> usize {
        let (slot, d) = self.rx.pop_front().expect("the socket buffer holds a datagram");
        if count {
            self.rx_bytes -= d.size as u64;
        }
        self.receive(now, slot, d)
    }

    /// Hands datagram `d` to `slot`'s endpoint at `now`; returns 1 if the endpoint became done.
    #[inline(always)]
    pub(super) fn receive(&mut self, now: Time, slot: u16, d: Datagram) -> usize {
        let s = &mut self.slots[slot as usize];
        s.endpoint.handle_datagram(now, d);
        Self::collect_events(&mut self.traced, slot, s);
        let finished = Self::check_done(s);
        self.wake.mark_ready(slot);
        self.touched(slot as usize);
        finished
    }

    fn finish_job(&mut self, now: Time, out: &mut impl Outbox) -> usize {
        let mut finished = 0;
        match self.job {
            Job::Receive => {
                for _ in 0..std::mem::take(&mut self.job_rx) {
                    finished += self.receive_oldest(now, false);
                }
            }
            Job::Send => {
                let s = &mut self.slots[self.job_tx_slot];
                for mut p in self.job_tx.drain(..) {
                    p.enqueued = now;
                    s.note_sent(&p, now);
                    out.put(p, s.link);
                }
                // An endpoint may be done once its last datagram is out (nothing left to wait for).
                finished += Self::check_done(s);
            }
            Job::Idle | Job::Stall | Job::Wake => {}
        }
        self.job = Job::Idle;
        finished
    }

    /// Starts the next job at `now`; false if there is nothing to do.
    fn start_job(&mut self, now: Time) -> bool {
        let fixed = |b: &Option<BatchConfig>| b.as_ref().map_or(Dur::ZERO, |b| b.fixed);
        let mut cost;
        if (self.send_turn || self.rx.is_empty()) && self.poll_send_job(now) {
            cost = fixed(&self.cpu.gso);
            for p in &self.job_tx {
                cost += if p.packet.data.is_some() {
                    self.cpu.send_cost
                } else {
                    self.cpu.ack_send_cost
                };
            }
            self.job = Job::Send;
            self.send_turn = false;
        } else if !self.rx.is_empty() {
            cost = fixed(&self.cpu.gro);
            // The job's datagrams leave the socket buffer's byte count now and the deque when the job ends.
            for (_, d) in self.rx.iter().take(self.max_rx as usize) {
                self.rx_bytes -= d.size as u64;
                cost += if carries_data(d) {
                    self.cpu.recv_cost
                } else {
                    self.cpu.ack_recv_cost
                };
                self.job_rx += 1;
            }
            self.job = Job::Receive;
            self.send_turn = true;
        } else {
            return false;
        }
        self.stats.busy += cost;
        self.busy_until = now + cost;
        true
    }

    /// Fills the send job with datagrams from the next endpoint that has some; false if none has.
    fn poll_send_job(&mut self, now: Time) -> bool {
        let mut tx = std::mem::take(&mut self.job_tx);
        let sent = self.poll_send(now, false, &mut tx);
        self.job_tx = tx;
        if let Some(slot) = sent {
            self.job_tx_slot = slot;
        }
        sent.is_some()
    }

    /// Polls the started endpoints that may send round-robin for up to `max_tx` datagrams from
    /// one of them, appended to `out` (sent at `now`); returns that endpoint's slot. With `leaves`,
    /// they leave the host as `out` takes them (no send job holds them).
    fn poll_send(&mut self, now: Time, leaves: bool, out: &mut impl Outbox) -> Option<usize> {
        let n = self.slots.len();
        if n == 1 {
            return self.poll_send_one(now, leaves, out).then_some(0);
        }
        // Ready slots from `next_slot` to the end, then from the start up to `next_slot`.
        let next = self.next_slot as usize;
        for (lo, hi) in [(next, n), (0, next)] {
            let mut from = lo;
            while let Some(cur) = self.wake.next_ready(from, hi) {
                from = cur + 1;
                let s = &mut self.slots[cur];
                if s.start > now {
                    // Its start timer makes it ready again.
                    self.wake.unready(cur as u16);
                    continue;
                }
                let sent = Self::poll_slot(s, now, self.max_tx, leaves, out);
                Self::collect_events(&mut self.traced, cur as u16, s);
                // Other endpoints promise nothing about when they can send, so they are always polled. A
                // built-in endpoint is polled only on its own events (a datagram, a timer, its start), however
                // many share the host: hosts of up to 16 once polled all of theirs on every send, which cost 16
                // flows on one host pair 956 ns per data packet against 356 now.
                let always_polled = matches!(s.endpoint, AnyEndpoint::Custom(_));
                self.touched(cur);
                if sent {
                    self.next_slot = if cur + 1 == n { 0 } else { cur as u32 + 1 };
                    return Some(cur);
                }
                if !always_polled {
                    self.wake.unready(cur as u16);
                }
            }
        }
        None
    }

    /// [`Host::poll_send`] on a host with one endpoint (a point-to-point run's hosts, each of a
    /// dumbbell's): the same calls without the round-robin search, which cost more than the
    /// poll of an endpoint with nothing to send. True if it sent.
    #[inline]
    ///
    /// Its ready bit is not read: the endpoint stays ready after a poll that sent nothing (the host
    /// acts only on its events, and on its CPU's, which cost nothing to poll for), so only a poll
    /// before its start ever cleared it, and the start test below refuses those; the start's timer
    /// fires before any poll from then on. (`next_slot` stays 0.)
    fn poll_send_one(&mut self, now: Time, leaves: bool, out: &mut impl Outbox) -> bool {
        let s = &mut self.slots[0];
        if s.start > now {
            return false;
        }
        let sent = Self::poll_slot(s, now, self.max_tx, leaves, out);
        Self::collect_events(&mut self.traced, 0, s);
        self.touched(0);
        sent
    }

    /// Hands up to `max_tx` datagrams that `s`'s endpoint sends at `now` to `out`; true if it sent any.
    /// With `leaves` they leave the host now (see [`Slot::note_sent`]); a send job notes them as it ends.
    #[inline(always)]
    fn poll_slot(s: &mut Slot, now: Time, max_tx: u32, leaves: bool, out: &mut impl Outbox) -> bool {
        let mut sent = 0;
        // A poll the endpoint says it would refuse is skipped (`Endpoint::may_transmit` has made
        // its changes): a receiver's after each datagram it does not yet acknowledge and after each ACK.
        while sent < max_tx && s.endpoint.may_transmit(now) {
            match s.endpoint.poll_transmit(now) {
                Some(dgram) => {
                    let p = InFlight::new(dgram, s.route, 0, now);
                    if leaves {
                        s.note_sent(&p, now);
                    }
                    out.put(p, s.link)
                }
                None => break,
            }
            sent += 1;
        }
        sent > 0
    }
}
