//! The assembled simulation: links, hosts and flows as actors on one event queue.
//!
//! Build it with [`Network::add_link`], [`Network::add_host`] and [`Network::add_flow`], then
//! drive it with [`Network::run`]. Each link and each host is one actor with one pending
//! wake-up; packets move between them by direct calls at the current instant (push model),
//! never as events of their own; a host that allows it ([`Host::hand_off`]) even runs within the
//! link event that delivered to it, instead of in a wake-up at the same instant. A flow's data
//! take its forward route (a list of links) from the sender's host to the receiver's, and its
//! ACKs the reverse route.

use crate::endpoint::AnyEndpoint;
use crate::engine::{ActorId, Scheduler};
use crate::host::{Host, HostConfig, Inbox, Outbox, Side, HOT_BYTES as HOST_HOT_BYTES, NO_LINK};
use crate::link::{Link, LinkConfig};
use crate::packet::{InFlight, CROSS_TRAFFIC};
use crate::summary::AckIntervalStats;
use cclab_core::endpoint::{TraceEvent, TraceSink};
use cclab_core::prefetch::{prefetch, prefetch_bytes};
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::{Datagram, Ecn, FlowId};

/// Index of a link in a network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkId(pub u32);

/// Index of a host in a network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostId(pub u32);

/// A flow to add: its two endpoints, where they run, and the links between them.
pub struct FlowSpec {
    /// Data sender (built for flow id [`Network::next_flow_id`]).
    pub sender: AnyEndpoint,
    /// Data receiver.
    pub receiver: AnyEndpoint,
    /// Host running the sender.
    pub sender_host: HostId,
    /// Host running the receiver.
    pub receiver_host: HostId,
    /// Links from the sender's host to the receiver's, in order.
    pub forward: Vec<LinkId>,
    /// Links from the receiver's host back to the sender's, in order.
    pub reverse: Vec<LinkId>,
    /// When the endpoints start (they were built with this `now`).
    pub start: Time,
    /// Collect both endpoints' trace events for [`Observer::on_trace`].
    pub trace: bool,
}

/// Watches a run: trace events, periodic ticks, cancellation.
pub trait Observer {
    /// A trace event of a flow whose `FlowSpec::trace` is set; each endpoint's come in the order it
    /// emitted them (events of different endpoints of a host may come grouped per endpoint).
    fn on_trace(&mut self, _flow: FlowId, _side: Side, _ev: &TraceEvent) {}
    /// Called at every multiple of the tick interval given to [`Network::run`].
    fn on_tick(&mut self, _net: &Network) {}
    /// Called every 65,536 events and every tick; false stops the run.
    fn keep_going(&mut self, _net: &Network) -> bool {
        true
    }
}

/// An observer that watches nothing.
impl Observer for () {}

/// Why [`Network::run`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// Both endpoints of every flow reported `is_done`.
    AllDone,
    /// The end time was reached.
    TimeLimit,
    /// Nothing is scheduled any more.
    Idle,
    /// The observer asked to stop.
    Cancelled,
}

/// Half a cache line, its links in the network's shared `route_links`: with thousands of flows
/// every datagram reads a cold route at each hop, and the look-ahead reads the same route's prefetch
/// addresses right after it, so they share the line, and a flow's two routes (`2f`, `2f + 1`) share
/// one (a table of 48-byte entries apart from 16-byte routes was 0.12 misses per data packet of its
/// own at 1,000 flows, docs/performance.md). The flow is the route's index halved.
#[repr(C, align(32))]
struct Route {
    /// Index of its first link in `route_links`.
    first: u32,
    host: u32,
    slot: u16,
    /// Number of links.
    len: u8,
    /// Side of the endpoint that sends on this route.
    from: Side,
    /// What a datagram's arrival at the route's end reads first after the host's leading lines
    /// ([`Host::hot_bytes`]): the slot's and the endpoint's bytes and where they start, filled when
    /// the run starts with at least [`WARM_MIN_FLOWS`] flows (see [`Network::warm_ahead`]).
    slot_bytes: u16,
    endpoint_bytes: u16,
    slot_at: usize,
    endpoint_at: usize,
}

const _: () = assert!(size_of::<Route>() == 32);

/// A host's datagrams onto the first link of their routes as they leave it (see `Network::act_host`).
///
/// Built for every host run, and a host run sends a datagram about as often as it runs: the vectors
/// are held by reference, one word each, not as slices of two (an address and a length each on the
/// stack at every run: 17 stores a run, for about one datagram sent).
struct ToLinks<'a> {
    now: Time,
    links: &'a mut Vec<Link>,
    sched: &'a mut Scheduler,
    /// Datagrams of a route without links, and every one after the first of them (`act_host`).
    later: &'a mut Vec<InFlight>,
    /// The link whose last arrival the host takes straight from its ring, if [`Host::act`] is given one.
    arrival_link: u32,
}

impl Outbox for ToLinks<'_> {
    #[inline(always)]
    fn put(&mut self, p: InFlight, link: u32) {
        if link == NO_LINK || !self.later.is_empty() {
            self.later.push(p);
            return;
        }
        if let Some(t) = self.links[link as usize].push(self.now, p) {
            self.sched.schedule(link, t);
        }
    }
}

impl Inbox for ToLinks<'_> {
    /// The arrival [`Network::hand_straight`] left in its link's ring: moved once, ring to endpoint.
    #[inline(always)]
    fn take(&mut self) -> Datagram {
        self.links[self.arrival_link as usize]
            .pop_arrived()
            .expect("a link holds the arrival it handed straight to a host")
            .into_datagram()
    }
}

/// A link event's lone arrival left in the link's ring for its host's run, which follows at once
/// ([`Network::hand_straight`]): a value of the loop's turn, not a field the run reads back.
#[derive(Clone, Copy)]
struct Straight {
    host: u32,
    link: u32,
    slot: u16,
}

/// Per-flow bookkeeping.
struct FlowState {
    sender: (u32, u16),
    receiver: (u32, u16),
    start: Time,
    ce_marks: u64,
}

/// Flows from which links prefetch the state of their next packets' endpoints: with fewer, it stays
/// in the L1 and the hints only cost instructions (8 flows +9 % CPU per packet); from a dozen it
/// spills to the L2 and beyond (12 flows −3 %, 16 to 63 flows −12..−17 %, 10 Gbit/s dumbbells, docs/performance.md).
pub(crate) const WARM_MIN_FLOWS: usize = 12;
/// How far ahead in a link's ring [`Network::warm_ahead`] starts loading packets: the look-ahead reads the
/// packet one ahead, and this leaves the load about a microsecond of work to land.
const RING_AHEAD: usize = 8;
/// Wake-ups further ahead than about this stay out of the scheduler's heap, in its far list: with many
/// flows most hosts wait on a timer tens of milliseconds away (a sender's PTO), while the busy actors ask
/// for times microseconds ahead (docs/performance.md).
const FAR_HORIZON: Dur = Dur::from_millis(16);

/// A simulated network.
pub struct Network {
    now: Time,
    sched: Scheduler,
    started: bool,
    links: Vec<Link>,
    hosts: Vec<Host>,
    /// Hosts whose CPU costs time, the only ones that keep datagrams between events: a count of the
    /// packets held reads these, not every host (with thousands, a cold line each).
    timed_hosts: Vec<u32>,
    routes: Vec<Route>,
    /// The links of every route, route after route.
    route_links: Vec<u32>,
    flows: Vec<FlowState>,
    /// Datagrams a host sent after one whose route has no link, until the host is done (see `act_host`).
    scratch: Vec<InFlight>,
    /// Hosts run within link events when they allow it ([`Network::set_hand_off`]); each host
    /// holds it too, with what it allows (`Host::set_hand_off`), so a link event tests the host's alone.
    hand_off: bool,
    /// The host the last link event delivered to first, which runs next at the same instant, in
    /// the event's turn of `run`'s loop or, when the observer stopped the run after the event,
    /// first in the next run (others the event delivered to wake up as usual, after it: one is the
    /// common case and costs less to keep than a list).
    handed_off: Option<u32>,
    events: u64,
    done: usize,
    tick: Option<Dur>,
    /// Routes' prefetch addresses are filled: links prefetch their next packets' state ([`Network::warm_ahead`]).
    warming: bool,
}

impl Default for Network {
    fn default() -> Self {
        Network::new()
    }
}

impl Network {
    /// An empty network at time zero.
    pub fn new() -> Network {
        Network {
            now: Time::ZERO,
            sched: Scheduler::new(0),
            started: false,
            links: Vec::new(),
            hosts: Vec::new(),
            timed_hosts: Vec::new(),
            routes: Vec::new(),
            route_links: Vec::new(),
            flows: Vec::new(),
            scratch: Vec::new(),
            hand_off: true,
            handed_off: None,
            events: 0,
            done: 0,
            tick: None,
            warming: false,
        }
    }

    /// Adds link number `links().len()`; its random streams derive from `seed` and that index.
    pub fn add_link(&mut self, cfg: &LinkConfig, seed: u64) -> LinkId {
        let id = self.links.len() as u32;
        self.links.push(Link::new(id, cfg, seed));
        LinkId(id)
    }

    /// Adds host number `hosts().len()`; its random stream derives from `seed` and that index.
    pub fn add_host(&mut self, cfg: &HostConfig, seed: u64) -> HostId {
        let id = self.hosts.len() as u32;
        let rng = crate::engine::stream_rng(seed, crate::engine::Stream::HostStall, id);
        let mut host = Host::new(cfg, rng);
        if host.costs_time() {
            self.timed_hosts.push(id);
        }
        host.set_hand_off(self.hand_off);
        self.hosts.push(host);
        HostId(id)
    }

    /// The id the next added flow gets.
    pub fn next_flow_id(&self) -> FlowId {
        FlowId(self.flows.len() as u32)
    }

    /// Adds a flow.
    ///
    /// # Panics
    /// After the run has started, with a route longer than 255 links, or with a data sender
    /// ([`AnyEndpoint::Sender`]) as the receiver (a host of one endpoint notes the ACK-only packets
    /// of a receiver's side but never looks for them from a data sender, `host/single.rs`).
    pub fn add_flow(&mut self, spec: FlowSpec) -> FlowId {
        assert!(!self.started, "flows must be added before the run starts");
        assert!(
            !matches!(spec.receiver, AnyEndpoint::Sender(_)),
            "a flow's receiver is not a data sender"
        );
        assert!(
            spec.forward.len() < 256 && spec.reverse.len() < 256,
            "routes are at most 255 links"
        );
        let flow = self.next_flow_id();
        // Flow f's routes are 2f and 2f + 1: a packet takes its flow from its route (`InFlight::flow`).
        let fwd = self.routes.len() as u16;
        let (sh, rh) = (spec.sender_host.0, spec.receiver_host.0);
        let first = |v: &[LinkId]| v.first().map_or(NO_LINK, |l| l.0);
        let (s_link, r_link) = (first(&spec.forward), first(&spec.reverse));
        let s_slot = self.hosts[sh as usize].add(spec.sender, flow, Side::Sender, fwd, s_link, spec.start, spec.trace);
        let r_slot = self.hosts[rh as usize].add(
            spec.receiver,
            flow,
            Side::Receiver,
            fwd + 1,
            r_link,
            spec.start,
            spec.trace,
        );
        let mut links = |v: &[LinkId]| {
            let first = self.route_links.len() as u32;
            self.route_links.extend(v.iter().map(|l| l.0));
            (first, v.len() as u8)
        };
        let ((f_first, f_len), (r_first, r_len)) = (links(&spec.forward), links(&spec.reverse));
        self.routes.push(Route {
            first: f_first,
            len: f_len,
            host: rh,
            slot: r_slot,
            from: Side::Sender,
            slot_bytes: 0,
            endpoint_bytes: 0,
            slot_at: 0,
            endpoint_at: 0,
        });
        self.routes.push(Route {
            first: r_first,
            len: r_len,
            host: sh,
            slot: s_slot,
            from: Side::Receiver,
            slot_bytes: 0,
            endpoint_bytes: 0,
            slot_at: 0,
            endpoint_at: 0,
        });
        self.flows.push(FlowState {
            sender: (sh, s_slot),
            receiver: (rh, r_slot),
            start: spec.start,
            ce_marks: 0,
        });
        flow
    }

    /// With `false`, every arrival wakes its host in an event of its own, as before hand-offs
    /// existed (for tests that compare the two; the default is `true`).
    pub fn set_hand_off(&mut self, on: bool) {
        self.hand_off = on;
        self.hosts.iter_mut().for_each(|h| h.set_hand_off(on));
    }

    /// Current simulated time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// The links, by [`LinkId`].
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The hosts, by [`HostId`].
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// Packets the network holds now: in its links (queued, being serialised, propagating) and in
    /// the socket buffers of hosts whose CPU costs time (other hosts empty theirs within each event).
    /// Reads every link and every such host: call it now and then, not per event.
    pub fn packets_held(&self) -> u64 {
        let links: u64 = self.links.iter().map(Link::in_transit_packets).sum();
        let hosts: u64 = self
            .timed_hosts
            .iter()
            .map(|&h| self.hosts[h as usize].socket_buffer_datagrams())
            .sum();
        links + hosts
    }

    /// Number of flows.
    pub fn flow_count(&self) -> usize {
        self.flows.len()
    }

    /// Sender and receiver endpoint of `flow`.
    pub fn endpoints(&self, flow: FlowId) -> (&AnyEndpoint, &AnyEndpoint) {
        let f = &self.flows[flow.0 as usize];
        let ep = |(h, s): (u32, u16)| &self.hosts[h as usize].slots()[s as usize].endpoint;
        (ep(f.sender), ep(f.receiver))
    }

    /// Host and slot of `flow`'s endpoint on `side`.
    fn slot_of(&self, flow: FlowId, side: Side) -> (usize, u16) {
        let f = &self.flows[flow.0 as usize];
        let (h, s) = match side {
            Side::Sender => f.sender,
            Side::Receiver => f.receiver,
        };
        (h as usize, s)
    }

    /// Sends the trace events of `flow`'s endpoint on `side` to `sink` as they happen, not to
    /// [`Observer::on_trace`]; an endpoint without a trace hands the sink back ([`Host::set_trace_sink`]).
    pub fn set_trace_sink(
        &mut self,
        flow: FlowId,
        side: Side,
        sink: Box<dyn TraceSink>,
    ) -> Result<(), Box<dyn TraceSink>> {
        let (h, s) = self.slot_of(flow, side);
        self.hosts[h].set_trace_sink(s, sink)
    }

    /// Detaches the trace sink of `flow`'s endpoint on `side`, if any.
    pub fn take_trace_sink(&mut self, flow: FlowId, side: Side) -> Option<Box<dyn TraceSink>> {
        let (h, s) = self.slot_of(flow, side);
        self.hosts[h].take_trace_sink(s)
    }

    /// Hosts of `flow`'s sender and receiver.
    pub fn flow_hosts(&self, flow: FlowId) -> (HostId, HostId) {
        let f = &self.flows[flow.0 as usize];
        (HostId(f.sender.0), HostId(f.receiver.0))
    }

    /// Datagrams of `flow` dropped by full socket buffers (both directions).
    pub fn socket_drops(&self, flow: FlowId) -> u64 {
        let f = &self.flows[flow.0 as usize];
        let drops = |(h, s): (u32, u16)| self.hosts[h as usize].slots()[s as usize].socket_drops;
        drops(f.sender) + drops(f.receiver)
    }

    /// Start time of `flow`.
    pub fn flow_start(&self, flow: FlowId) -> Time {
        self.flows[flow.0 as usize].start
    }

    /// Intervals between the ACK-only packets `flow`'s receiver put on the wire.
    pub fn ack_intervals(&self, flow: FlowId) -> &AckIntervalStats {
        let (h, s) = self.flows[flow.0 as usize].receiver;
        &self.hosts[h as usize].slots()[s as usize].ack_intervals
    }

    /// Data packets of `flow` that reached the receiver's host CE-marked.
    pub fn ce_marks(&self, flow: FlowId) -> u64 {
        self.flows[flow.0 as usize].ce_marks
    }

    fn host_actor(&self, h: u32) -> ActorId {
        self.links.len() as u32 + h
    }

    fn tick_actor(&self) -> ActorId {
        (self.links.len() + self.hosts.len()) as u32
    }

    fn start(&mut self) {
        self.started = true;
        if self.flows.len() >= WARM_MIN_FLOWS {
            for r in &mut self.routes {
                // The host's own lines are found from its index (`host::HOT_BYTES` of them).
                let [_, (slot_at, slot_bytes), (endpoint_at, endpoint_bytes)] =
                    self.hosts[r.host as usize].hot_bytes(r.slot);
                // A prefetch length: a longer slot or endpoint is prefetched in part, never wrongly.
                let short = |n: usize| u16::try_from(n).unwrap_or(u16::MAX);
                (r.slot_at, r.slot_bytes) = (slot_at, short(slot_bytes));
                (r.endpoint_at, r.endpoint_bytes) = (endpoint_at, short(endpoint_bytes));
            }
            self.warming = true;
            self.links.iter_mut().for_each(Link::warm_tail);
        }
        self.sched = Scheduler::with_horizon(self.links.len() + self.hosts.len() + 1, FAR_HORIZON);
        for h in 0..self.hosts.len() as u32 {
            self.sched.schedule(self.host_actor(h), self.now);
        }
        for l in 0..self.links.len() as u32 {
            self.reschedule_link(l);
        }
    }

    /// Runs until both endpoints of every flow are done, `end`, or the observer stops it. With `tick`,
    /// `observer.on_tick` runs at every multiple of it (from the current time on).
    pub fn run(&mut self, end: Time, tick: Option<Dur>, observer: &mut dyn Observer) -> Stop {
        if !self.started {
            self.start();
        }
        if let Some(t) = tick.filter(|t| t.0 > 0) {
            self.tick = Some(t);
            self.sched.schedule(self.tick_actor(), self.now);
        }
        let n_links = self.links.len() as u32;
        let n_hosts = self.hosts.len() as u32;
        // Only a host's run makes endpoints done: the count is compared after those, not per event.
        let mut all_done = self.all_done();
        let stop = loop {
            if all_done {
                break Stop::AllDone;
            }
            // The host a link event handed datagrams to runs next, at now, as the wake-up it would
            // have had (after every arrival of that event) but without the event: lo100 -115
            // instructions a data packet. It runs in the same turn of the loop as the link event,
            // not the next one, whose top would test again what the event settled. One place calls
            // each actor kind, so that each stays inlined here.
            let (h, handed, straight) = if let Some(h) = self.handed_off.take() {
                // Left by a link event after which the observer stopped the last run.
                (h, true, None)
            } else {
                let (t, actor) = match self.sched.pop_until(end) {
                    Ok(next) => next,
                    Err(None) => break Stop::Idle,
                    Err(Some(_)) => {
                        self.now = end;
                        break Stop::TimeLimit;
                    }
                };
                // No event in the past: actors only ever schedule at or after now (checked when fuzzing).
                debug_assert!(t >= self.now, "event at {t:?} before now {:?}", self.now);
                self.now = t;
                self.events += 1;
                if actor < n_links {
                    let straight = self.act_link(actor);
                    if self.events & 0xffff == 0 && !observer.keep_going(self) {
                        break Stop::Cancelled;
                    }
                    // A straight arrival forwards nothing, so it hands off no host: the field is
                    // read (and emptied) only after events that forwarded.
                    match straight {
                        Some(s) => {
                            debug_assert!(self.handed_off.is_none(), "a straight arrival handed off a host");
                            (s.host, true, Some(s))
                        }
                        None => match self.handed_off.take() {
                            Some(h) => (h, true, None),
                            None => continue,
                        },
                    }
                } else if actor < n_links + n_hosts {
                    (actor - n_links, false, None)
                } else {
                    if !self.act_tick(actor, t, observer) {
                        break Stop::Cancelled;
                    }
                    if self.events & 0xffff == 0 && !observer.keep_going(self) {
                        break Stop::Cancelled;
                    }
                    continue;
                }
            };
            if handed {
                // A wake-up it had pending is taken by this run, as if popped; its entry stays for
                // the host's next request to replace in place.
                self.sched.withdraw(self.host_actor(h));
            }
            all_done = self.act_host(h, straight, observer);
            if !handed && self.events & 0xffff == 0 && !observer.keep_going(self) {
                break Stop::Cancelled;
            }
        };
        self.catch_up_links();
        stop
    }

    /// The sampler's tick at `t`; false when the observer stops the run. Out of line: it is rare,
    /// and kept apart it leaves the per-packet loop fewer values to keep in registers.
    #[inline(never)]
    fn act_tick(&mut self, actor: ActorId, t: Time, observer: &mut dyn Observer) -> bool {
        self.catch_up_links();
        observer.on_tick(self);
        if let Some(step) = self.tick {
            self.sched.schedule(actor, t + step);
        }
        observer.keep_going(self)
    }

    /// Brings every link's lazy serialiser up to now ([`Link::catch_up`]), so that what readers
    /// see of queues and counters is the state at now. Later pushes are at now or after, so this
    /// changes nothing the simulation does.
    fn catch_up_links(&mut self) {
        for link in &mut self.links {
            link.catch_up(self.now);
        }
    }

    #[inline(always)]
    fn reschedule_link(&mut self, l: u32) {
        if let Some(t) = self.links[l as usize].next_wake() {
            self.sched.schedule(l, t);
        }
    }

    /// Link `l`'s event at now; returns the arrival it leaves in the ring for its host, if any
    /// ([`Network::hand_straight`]).
    #[inline(always)]
    fn act_link(&mut self, l: u32) -> Option<Straight> {
        if let Some(t) = self.links[l as usize].advance_to_arrivals(self.now) {
            self.sched.schedule_popped(l, t);
        }
        let straight = self.hand_straight(l);
        if straight.is_none() {
            while let Some(p) = self.links[l as usize].pop_arrived() {
                self.forward(p);
            }
        }
        if self.warming {
            self.warm_ahead(l);
        }
        straight
    }

    /// With many flows the next packets' hosts and endpoints are out of cache, and reading each
    /// is a miss that waits for the one before (host, slot, endpoint, what it points to). Two
    /// packets ahead, start loading what the arrival reads directly; one packet ahead (loaded by
    /// now), what that points to.
    fn warm_ahead(&self, l: u32) {
        let link = &self.links[l as usize];
        // The link's ring is read in order, but with thousands of flows the hardware prefetcher, busy
        // with their state's misses, no longer streams it: reading the route of the packet one ahead
        // below was a miss of its own (a quarter of this loop's time at 1,000 flows).
        if let Some(p) = link.in_flight(RING_AHEAD) {
            prefetch(p);
        }
        let at_end = |p: &InFlight| p.route != CROSS_TRAFFIC && self.route_link(p.route, p.hop as usize + 1).is_none();
        if let Some(p) = link.in_flight(1).filter(|p| at_end(p)) {
            let r = &self.routes[p.route as usize];
            prefetch_bytes(&self.hosts[r.host as usize] as *const Host as usize, HOST_HOT_BYTES);
            prefetch_bytes(r.slot_at, r.slot_bytes as usize);
            prefetch_bytes(r.endpoint_at, r.endpoint_bytes as usize);
        }
        if let Some(p) = link.in_flight(0).filter(|p| at_end(p)) {
            let r = &self.routes[p.route as usize];
            self.hosts[r.host as usize].prefetch_slot_state(r.slot);
        }
    }

    /// Leaves link `l`'s arrival in its ring for its host to take straight into the endpoint,
    /// when it is the event's only one, ends its route, and finds its host free and its socket buffer
    /// empty with no host handed off yet: [`Network::arrive`] would put it in that buffer and hand
    /// the host off, and the host's run, next, would take it out again as the only datagram there
    /// (`Host::act`'s `arrival` makes the same calls in the same order). The datagram then moves
    /// once, from the ring into the endpoint's call, instead of through `arrive`, the socket buffer
    /// and back. Not on an event after which the observer is asked whether to go on
    /// (`Network::run`), which must find the datagram in the buffer as before. Asked before the
    /// event's arrivals are forwarded, so no host is handed off yet.
    #[inline(always)]
    fn hand_straight(&mut self, l: u32) -> Option<Straight> {
        if self.events & 0xffff == 0 {
            return None;
        }
        let p = self.links[l as usize].only_arrival()?;
        if p.route == CROSS_TRAFFIC {
            return None;
        }
        let r = &self.routes[p.route as usize];
        if (p.hop as usize) + 1 < r.len as usize || !self.hosts[r.host as usize].takes_straight() {
            return None;
        }
        if r.from == Side::Sender && p.ecn == Ecn::Ce {
            self.flows[p.flow().0 as usize].ce_marks += 1;
        }
        Some(Straight {
            host: r.host,
            link: l,
            slot: r.slot,
        })
    }

    /// Both endpoints of every flow are done.
    fn all_done(&self) -> bool {
        !self.flows.is_empty() && self.done == 2 * self.flows.len()
    }

    /// Runs host `h` at now; returns whether every flow is done after it.
    ///
    /// Inlined into `Network::run`, its one caller: LLVM left it a call once a host of one endpoint
    /// had a loop of its own (`host/single.rs`), 1.3 % more instructions on 100 MB at 10 Gbit/s.
    #[inline(always)]
    fn act_host(&mut self, h: u32, straight: Option<Straight>, observer: &mut dyn Observer) -> bool {
        let now = self.now;
        // Datagrams go onto their first link as the host sends them, not through a list: the
        // links' and scheduler's calls come in the same order either way. One whose route has no
        // link arrives at a host, maybe this one, so it waits in `later` with every one after it
        // (keeping that order) until the host is done.
        let mut out = ToLinks {
            now,
            links: &mut self.links,
            sched: &mut self.sched,
            later: &mut self.scratch,
            arrival_link: straight.map_or(0, |s| s.link),
        };
        let host = &mut self.hosts[h as usize];
        let (finished, wake) = host.act(now, &mut out, straight.map(|s| s.slot));
        self.done += finished;
        host.drain_events(|flow, side, ev| observer.on_trace(flow, side, ev));
        // Only a datagram that arrives at a host (below) asks for one during a host's run: without
        // one, the host's entry is as its pop or withdrawal left it.
        let injected = !self.scratch.is_empty();
        if injected {
            let mut later = std::mem::take(&mut self.scratch);
            for p in later.drain(..) {
                self.inject(p);
            }
            self.scratch = later;
        }
        if let Some(t) = wake {
            if injected {
                self.sched.schedule(self.host_actor(h), t);
            } else {
                self.sched.schedule_popped(self.host_actor(h), t);
            }
        }
        finished > 0 && self.all_done()
    }

    /// Link number `hop` of route `route`, if the route has that many.
    fn route_link(&self, route: u16, hop: usize) -> Option<u32> {
        let r = &self.routes[route as usize];
        (hop < r.len as usize).then(|| self.route_links[r.first as usize + hop])
    }

    /// A datagram leaves its host onto the first link of its route.
    fn inject(&mut self, p: InFlight) {
        match self.route_link(p.route, 0) {
            Some(l) => self.push(l, p),
            None => self.arrive(p, false),
        }
    }

    /// `p` enters link `l` now; the wake-up the push returns is merged into the link's pending one.
    fn push(&mut self, l: u32, p: InFlight) {
        if let Some(t) = self.links[l as usize].push(self.now, p) {
            self.sched.schedule(l, t);
        }
    }

    /// A datagram reached the end of link `p.hop` of its route.
    fn forward(&mut self, mut p: InFlight) {
        match self.route_link(p.route, p.hop as usize + 1) {
            Some(l) => {
                p.hop += 1;
                self.push(l, p);
            }
            None => self.arrive(p, true),
        }
    }

    /// A datagram reached its destination host; with `in_link_event`, a host that allows it (and
    /// that the network lets: `Host::hand_off`) runs at the end of the link event (a datagram a host
    /// sends to itself always wakes it).
    #[inline]
    fn arrive(&mut self, p: InFlight, in_link_event: bool) {
        let r = &self.routes[p.route as usize];
        let (h, slot) = (r.host, r.slot);
        if r.from == Side::Sender && p.ecn == Ecn::Ce {
            self.flows[p.flow().0 as usize].ce_marks += 1;
        }
        let host = &mut self.hosts[h as usize];
        if host.deliver(slot, p.into_datagram()) {
            if in_link_event && host.hand_off() {
                match self.handed_off {
                    None => self.handed_off = Some(h),
                    Some(first) if first == h => {}
                    Some(_) => self.sched.schedule(self.host_actor(h), self.now),
                }
            } else {
                self.sched.schedule(self.host_actor(h), self.now);
            }
        }
    }
}
