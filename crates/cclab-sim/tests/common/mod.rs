//! Tiny endpoints for simulator tests: a constant-rate source, a sink that logs arrivals, and a
//! fixed-window sender with a receiver that ACKs every k-th packet. No congestion control, no
//! loss recovery: what these tests measure is the network and host models alone.
#![allow(dead_code)]

use cclab_core::endpoint::{Endpoint, EndpointStats};
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::{AckFrame, DataChunk, Datagram, Ecn, FlowId, Packet};
use cclab_sim::endpoint::AnyEndpoint;
use cclab_sim::host::{CpuConfig, HostConfig, IdleStateConfig};
use cclab_sim::link::{LinkConfig, LinkRate};
use cclab_sim::network::{FlowSpec, HostId, LinkId, Network};
use std::sync::{Arc, Mutex};

/// A data datagram of `size` IP bytes, packet number `pn`.
pub(crate) fn data(flow: FlowId, pn: u64, size: u32, ecn: Ecn) -> Datagram {
    let chunk = DataChunk {
        offset: pn * size as u64,
        len: size,
        fin: false,
    };
    Datagram {
        flow,
        size,
        ecn,
        packet: Packet {
            pn,
            data: Some(chunk),
            ..Default::default()
        },
    }
}

/// Sends `count` data datagrams of `size` bytes, one every `interval` from `start`
/// (`interval` zero: all at `start`); the last carries FIN.
pub(crate) struct Cbr {
    pub(crate) flow: FlowId,
    pub(crate) size: u32,
    pub(crate) interval: Dur,
    pub(crate) count: u64,
    pub(crate) start: Time,
    pub(crate) ecn: Ecn,
    sent: u64,
}

impl Cbr {
    pub(crate) fn new(flow: FlowId, size: u32, interval: Dur, count: u64, start: Time) -> Cbr {
        Cbr {
            flow,
            size,
            interval,
            count,
            start,
            ecn: Ecn::NotEct,
            sent: 0,
        }
    }
    fn next(&self) -> Time {
        self.start + self.interval * self.sent
    }
}

impl Endpoint for Cbr {
    fn handle_datagram(&mut self, _now: Time, _d: Datagram) {}
    fn handle_timeout(&mut self, _now: Time) {}
    fn poll_transmit(&mut self, now: Time) -> Option<Datagram> {
        if self.sent >= self.count || self.next() > now {
            return None;
        }
        self.sent += 1;
        let mut d = data(self.flow, self.sent - 1, self.size, self.ecn);
        if let Some(chunk) = d.packet.data.as_mut() {
            chunk.fin = self.sent == self.count;
        }
        Some(d)
    }
    fn poll_timeout(&self) -> Option<Time> {
        (self.sent < self.count).then(|| self.next())
    }
    fn stats(&self) -> EndpointStats {
        EndpointStats {
            data_packets_sent: self.sent,
            ..Default::default()
        }
    }
    fn is_done(&self) -> bool {
        self.sent >= self.count
    }
}

/// Arrival log shared between a sink and the test.
pub(crate) type Log = Arc<Mutex<Vec<(Time, Datagram)>>>;

/// Receives and logs; never sends. Done when it has everything up to the FIN.
pub(crate) struct Sink {
    log: Log,
    received: u64,
    fin_pn: Option<u64>,
}

impl Sink {
    pub(crate) fn new(log: Log) -> Sink {
        Sink {
            log,
            received: 0,
            fin_pn: None,
        }
    }
}

impl Endpoint for Sink {
    fn handle_datagram(&mut self, now: Time, d: Datagram) {
        self.received += 1;
        if d.packet.data.is_some_and(|c| c.fin) {
            self.fin_pn = Some(d.packet.pn);
        }
        self.log.lock().unwrap().push((now, d));
    }
    fn handle_timeout(&mut self, _now: Time) {}
    fn poll_transmit(&mut self, _now: Time) -> Option<Datagram> {
        None
    }
    fn poll_timeout(&self) -> Option<Time> {
        None
    }
    fn stats(&self) -> EndpointStats {
        EndpointStats::default()
    }
    fn is_done(&self) -> bool {
        self.fin_pn.is_some_and(|pn| self.received == pn + 1)
    }
}

/// Keeps `window` packets of `size` bytes (payload `size - 50`) outstanding until `total`
/// are acknowledged (cumulative ACKs, no loss recovery).
pub(crate) struct WindowSender {
    pub(crate) flow: FlowId,
    pub(crate) size: u32,
    pub(crate) window: u64,
    pub(crate) total: u64,
    sent: u64,
    acked: u64,
    done_at: Option<Time>,
}

impl WindowSender {
    pub(crate) fn new(flow: FlowId, size: u32, window: u64, total: u64) -> WindowSender {
        WindowSender {
            flow,
            size,
            window,
            total,
            sent: 0,
            acked: 0,
            done_at: None,
        }
    }
}

impl Endpoint for WindowSender {
    fn handle_datagram(&mut self, now: Time, d: Datagram) {
        if let Some(largest) = d.packet.ack.as_deref().and_then(AckFrame::largest) {
            self.acked = self.acked.max(largest + 1);
            if self.acked >= self.total && self.done_at.is_none() {
                self.done_at = Some(now);
            }
        }
    }
    fn handle_timeout(&mut self, _now: Time) {}
    fn poll_transmit(&mut self, _now: Time) -> Option<Datagram> {
        if self.sent >= self.total || self.sent - self.acked >= self.window {
            return None;
        }
        self.sent += 1;
        Some(data(self.flow, self.sent - 1, self.size, Ecn::NotEct))
    }
    fn poll_timeout(&self) -> Option<Time> {
        None
    }
    fn stats(&self) -> EndpointStats {
        EndpointStats {
            bytes_delivered: self.acked * (self.size as u64 - 50),
            data_packets_sent: self.sent,
            completion_time: self.done_at,
            ..Default::default()
        }
    }
    fn is_done(&self) -> bool {
        self.done_at.is_some()
    }
}

/// ACKs every `k`-th data packet with a pure ACK of `ack_size` bytes (and the last one of
/// `total`, so the sender finishes).
pub(crate) struct AckEvery {
    pub(crate) flow: FlowId,
    pub(crate) k: u64,
    pub(crate) ack_size: u32,
    pub(crate) total: u64,
    received: u64,
    largest: u64,
    pending: bool,
    acks: u64,
}

impl AckEvery {
    pub(crate) fn new(flow: FlowId, k: u64, ack_size: u32, total: u64) -> AckEvery {
        AckEvery {
            flow,
            k,
            ack_size,
            total,
            received: 0,
            largest: 0,
            pending: false,
            acks: 0,
        }
    }
}

impl Endpoint for AckEvery {
    fn handle_datagram(&mut self, _now: Time, d: Datagram) {
        self.received += 1;
        self.largest = self.largest.max(d.packet.pn);
        if self.received.is_multiple_of(self.k) || self.received == self.total {
            self.pending = true;
        }
    }
    fn handle_timeout(&mut self, _now: Time) {}
    fn poll_transmit(&mut self, _now: Time) -> Option<Datagram> {
        if !std::mem::take(&mut self.pending) {
            return None;
        }
        self.acks += 1;
        let ack = AckFrame {
            ranges: [(0, self.largest)].into_iter().collect(),
            ack_delay_ns: 0,
            ecn: None,
            sack_blocks: None,
        };
        Some(Datagram {
            flow: self.flow,
            size: self.ack_size,
            ecn: Ecn::NotEct,
            packet: Packet {
                pn: self.acks,
                ack: Some(Box::new(ack)),
                ..Default::default()
            },
        })
    }
    fn poll_timeout(&self) -> Option<Time> {
        None
    }
    fn stats(&self) -> EndpointStats {
        EndpointStats {
            acks_sent: self.acks,
            ..Default::default()
        }
    }
    fn is_done(&self) -> bool {
        self.received == self.total && !self.pending
    }
}

/// The idle states of a host whose CPU costs nothing: with `general`, one of no exit latency, which
/// sends the host through the general loop (`Host::free`) rather than the loop of a host of one
/// endpoint (`host/single.rs`, only for hosts whose CPU costs nothing), with the same timing.
pub(crate) fn idle_states(general: bool) -> Vec<IdleStateConfig> {
    let idle = IdleStateConfig {
        residency: Dur::from_micros(1),
        exit_latency: Dur::ZERO,
    };
    if general {
        vec![idle]
    } else {
        vec![]
    }
}

/// A link of `rate_bps` (0 = unlimited) and one-way `delay`.
pub(crate) fn link(rate_bps: u64, delay: Dur) -> LinkConfig {
    let rate = if rate_bps == 0 {
        LinkRate::Unlimited
    } else {
        LinkRate::Limited(cclab_core::units::Rate(rate_bps))
    };
    LinkConfig::new(rate, delay)
}

/// A two-host network with a forward and a return link; returns it with the link ids.
pub(crate) fn pair(
    fwd: &LinkConfig,
    ret: &LinkConfig,
    sender_host: &HostConfig,
    receiver_host: &HostConfig,
) -> (Network, HostId, HostId, LinkId, LinkId) {
    let mut net = Network::new();
    let f = net.add_link(fwd, 1);
    let r = net.add_link(ret, 1);
    let s = net.add_host(sender_host, 1);
    let d = net.add_host(receiver_host, 1);
    (net, s, d, f, r)
}

/// Adds a flow from `s` to `d` over `f`, ACKs over `r`, started at zero.
pub(crate) fn flow(
    net: &mut Network,
    (s, d, f, r): (HostId, HostId, LinkId, LinkId),
    sender: impl Endpoint + 'static,
    receiver: impl Endpoint + 'static,
) -> FlowId {
    net.add_flow(FlowSpec {
        sender: AnyEndpoint::Custom(Box::new(sender)),
        receiver: AnyEndpoint::Custom(Box::new(receiver)),
        sender_host: s,
        receiver_host: d,
        forward: vec![f],
        reverse: vec![r],
        start: Time::ZERO,
        trace: false,
    })
}

/// A window-limited transfer of `total` 1250 B packets (window 1000) from a sender host with `cpu` over a
/// 10 Gbit/s, 1 ms path both ways, ACKed every `k` packets, run until `end`. Returns the network, the sender
/// host and the flow: a sender far above the path's BDP, so its CPU sets the pace.
pub(crate) fn cpu_bound_transfer(cpu: CpuConfig, k: u64, total: u64, end: Time) -> (Network, HostId, FlowId) {
    let sender_host = HostConfig {
        cpu,
        socket_buffer: None,
    };
    let l = link(10_000_000_000, Dur::from_millis(1));
    let (mut net, s, d, f, r) = pair(&l, &l, &sender_host, &HostConfig::default());
    let id = flow(
        &mut net,
        (s, d, f, r),
        WindowSender::new(FlowId(0), 1250, 1000, total),
        AckEvery::new(FlowId(0), k, 64, total),
    );
    net.run(end, None, &mut ());
    (net, s, id)
}

/// `count` 1250 B datagrams every `gap` from an infinitely fast host to a logging sink on `receiver_host`,
/// over unlimited-rate links with one-way `delay`. Returns the network (not yet run), the receiver host and
/// the sink's log.
pub(crate) fn cbr_to_sink(receiver_host: &HostConfig, delay: Dur, gap: Dur, count: u64) -> (Network, HostId, Log) {
    let l = link(0, delay);
    let (mut net, s, d, f, r) = pair(&l, &l, &HostConfig::default(), receiver_host);
    let arrivals = log();
    flow(
        &mut net,
        (s, d, f, r),
        Cbr::new(FlowId(0), 1250, gap, count, Time::ZERO),
        Sink::new(arrivals.clone()),
    );
    (net, d, arrivals)
}

/// A new empty arrival log.
pub(crate) fn log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

/// One call an endpoint got: (time, endpoint, what, packet number or result).
pub(crate) type Call = (Time, u32, &'static str, Option<u64>);
/// The calls of every recorded endpoint of a run, in call order.
pub(crate) type Calls = Arc<Mutex<Vec<Call>>>;

/// Forwards every call to `inner` and notes it in `calls` as endpoint `id`'s: its inputs and polls,
/// and with `queries` also `poll_timeout` and `is_done` (noted at the time the host last gave it).
struct Recorder<E> {
    id: u32,
    inner: E,
    calls: Calls,
    queries: bool,
    now: Time,
}

impl<E: Endpoint> Recorder<E> {
    fn note(&self, now: Time, what: &'static str, n: Option<u64>) {
        self.calls.lock().unwrap().push((now, self.id, what, n));
    }
}

impl<E: Endpoint> Endpoint for Recorder<E> {
    fn handle_datagram(&mut self, now: Time, d: Datagram) {
        self.now = now;
        self.note(now, "datagram", Some(d.packet.pn));
        self.inner.handle_datagram(now, d);
    }
    fn handle_timeout(&mut self, now: Time) {
        self.now = now;
        self.note(now, "timeout", None);
        self.inner.handle_timeout(now);
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Datagram> {
        self.now = now;
        let d = self.inner.poll_transmit(now);
        self.note(now, "poll", d.as_ref().map(|d| d.packet.pn));
        d
    }
    fn poll_timeout(&self) -> Option<Time> {
        let t = self.inner.poll_timeout();
        if self.queries {
            self.note(self.now, "poll_timeout", t.map(|t| t.0));
        }
        t
    }
    fn stats(&self) -> EndpointStats {
        self.inner.stats()
    }
    fn is_done(&self) -> bool {
        let done = self.inner.is_done();
        if self.queries {
            self.note(self.now, "is_done", Some(done as u64));
        }
        done
    }
}

/// `inner`, its calls noted in `calls` as endpoint `id`'s (with `queries`, its `poll_timeout` and
/// `is_done` too).
pub(crate) fn recorded(id: u32, inner: impl Endpoint + 'static, calls: &Calls, queries: bool) -> AnyEndpoint {
    AnyEndpoint::Custom(Box::new(Recorder {
        id,
        inner,
        calls: calls.clone(),
        queries,
        now: Time::ZERO,
    }))
}
