//! One endpoint on one UDP socket, on a thread of its own, with the wall clock.
//!
//! The loop follows the endpoint's polling order (`cclab_core::endpoint`): read every datagram
//! waiting, fire due timers, send everything the endpoint has (consecutive datagrams of one size
//! go out as one GSO batch), then sleep on the socket until the endpoint's next deadline. The
//! endpoint only ever sees `now` and decoded datagrams; datagrams from any address but the peer's,
//! and datagrams that do not decode, are dropped and counted.

use crate::clock::{thread_cpu_time, tighten_timer_slack, wait_fds, WallClock};
use crate::socket::UdpIo;
use crate::wire::RealCodec;
use cclab_core::endpoint::{Endpoint, Metrics, TraceEvent};
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::{Datagram, Ecn};
use cclab_sim::endpoint::AnyEndpoint;
use cclab_sim::qlog::{QlogSink, QlogWriter};
use cclab_sim::summary::AckIntervalStats;
use cclab_sim::timeseries::SampleCounters;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Longest sleep, so stop flags are seen promptly.
const MAX_SLEEP: Dur = Dur(5_000_000);
/// Largest GSO batch: 64 segments, the kernel's UDP_MAX_SEGMENTS.
const MAX_BATCH: usize = 64;
/// How long a full send buffer may hold the loop before the datagram is given up (lost locally).
const SEND_BLOCK_LIMIT: Dur = Dur(20_000_000);

/// Which end of its flow an endpoint is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The data sender: done when its endpoint is; samples the time series.
    Sender,
    /// The data receiver.
    Receiver,
}

/// Flags shared by a run's threads.
#[derive(Clone, Debug)]
pub struct Shared {
    /// Stop now (deadline, Ctrl-C, an error elsewhere).
    pub stop: Arc<AtomicBool>,
    /// This flow's sender is done.
    pub sender_done: Arc<AtomicBool>,
    /// This flow's receiver is done.
    pub receiver_done: Arc<AtomicBool>,
    /// Bytes this flow's sender has had acknowledged (progress).
    pub acked: Arc<AtomicU64>,
    /// Bytes this flow's receiver has delivered in order (the time series' goodput).
    pub delivered: Arc<AtomicU64>,
}

/// What a driver needs besides its endpoint.
pub struct DriverConfig {
    /// Sender or receiver.
    pub role: Role,
    /// The only address datagrams are accepted from and sent to.
    pub peer: SocketAddr,
    /// When the endpoint starts.
    pub start: Time,
    /// When the driver gives up.
    pub deadline: Time,
    /// Time-series interval (sender only).
    pub sample_every: Option<Dur>,
    /// qlog writer for this endpoint's trace.
    pub qlog: Option<QlogWriter<QlogSink>>,
    /// Trace only events in `[start, end)` (`[output] qlog_window`, as in simulation).
    pub qlog_window: Option<(Time, Time)>,
}

/// Whether `ev` falls in the trace's window (none: the whole run).
fn in_window(window: Option<(Time, Time)>, ev: &TraceEvent) -> bool {
    window.is_none_or(|(start, end)| (start..end).contains(&ev.time()))
}

/// What a driver hands back when it stops.
pub struct DriverReport {
    /// The endpoint, with its final counters.
    pub endpoint: AnyEndpoint,
    /// CPU time of the driver's thread.
    pub cpu: Dur,
    /// Wall time from start to stop.
    pub wall: Dur,
    /// Sender: (sample time, metrics, counters) every interval.
    pub samples: Vec<(Time, Metrics, SampleCounters)>,
    /// Receiver: intervals between the ACK-only datagrams it sent.
    pub acks: AckIntervalStats,
    /// Socket counters.
    pub counters: Counters,
}

/// What happened at a driver's socket.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    /// Datagrams that did not decode or carried corrupt stream bytes.
    pub decode_errors: u64,
    /// The first of those errors.
    pub first_decode_error: Option<String>,
    /// Datagrams from an address other than the peer's.
    pub unexpected: u64,
    /// Datagrams given up because the send buffer stayed full.
    pub send_drops: u64,
    /// Data datagrams that arrived CE-marked.
    pub ce_received: u64,
    /// The first socket or file error.
    pub error: Option<String>,
}

/// Runs `endpoint` on `io` until it is done, the deadline passes or `shared.stop` is set; hands
/// the socket back too, so its kernel counters can still be read.
pub fn drive(
    mut io: UdpIo,
    mut endpoint: AnyEndpoint,
    mut codec: RealCodec,
    mut cfg: DriverConfig,
    clock: WallClock,
    shared: Shared,
) -> (DriverReport, UdpIo) {
    tighten_timer_slack();
    let cpu0 = thread_cpu_time();
    endpoint.set_tracing(cfg.qlog.is_some());
    let mut c = Counters::default();
    let mut samples = Vec::new();
    let mut acks = AckIntervalStats::new();
    let mut batch = Batch::default();
    let mut next_sample = cfg.sample_every.map(|_| cfg.start);
    let fd = [io.fd()];
    let max_batch = io.max_segments().clamp(1, MAX_BATCH);
    while clock.now() < cfg.start && !shared.stop.load(Ordering::Relaxed) {
        let _ = wait_fds(&[], 0, cfg.start.saturating_since(clock.now()).min(MAX_SLEEP));
    }
    let begin = clock.now();
    loop {
        let now = clock.now();
        // A flow ends when both ends are done, as in the simulator: a done receiver may still owe
        // the sender an ACK, and a done sender (DCCP sends no retransmissions) still has data in flight.
        let (mine, peers) = match cfg.role {
            Role::Sender => (&shared.sender_done, &shared.receiver_done),
            Role::Receiver => (&shared.receiver_done, &shared.sender_done),
        };
        if endpoint.is_done() {
            mine.store(true, Ordering::Relaxed);
        }
        let both = mine.load(Ordering::Relaxed) && peers.load(Ordering::Relaxed);
        if both || now >= cfg.deadline || shared.stop.load(Ordering::Relaxed) {
            break;
        }
        let peer = cfg.peer;
        let recv = io.recv(&clock, |at, from, bytes, ecn| {
            if from != peer {
                c.unexpected += 1;
                return;
            }
            match codec.decode(bytes, ecn) {
                Ok(d) => {
                    c.ce_received += (ecn == Ecn::Ce && d.packet.data.is_some()) as u64;
                    endpoint.handle_datagram(at, d)
                }
                Err(e) => {
                    c.decode_errors += 1;
                    c.first_decode_error.get_or_insert_with(|| e.to_string());
                }
            }
        });
        if let Err(e) = recv {
            c.error.get_or_insert_with(|| format!("receive: {e}"));
            break;
        }
        // Read again: the datagrams above may have been stamped later than the loop's first reading, and
        // an endpoint's time never goes back.
        let now = clock.now();
        endpoint.handle_timeout(now);
        if cfg.role == Role::Receiver {
            shared
                .delivered
                .store(endpoint.stats().bytes_delivered, Ordering::Relaxed);
        }
        while let Some(d) = endpoint.poll_transmit(now) {
            if cfg.role == Role::Receiver && d.packet.data.is_none() {
                acks.record(now);
            }
            batch.push(&codec, &d, max_batch, &io, peer, &clock, &mut c);
        }
        batch.flush(&io, peer, &clock, &mut c);
        if let Some(w) = cfg.qlog.as_mut() {
            while let Some(ev) = endpoint.poll_event() {
                if !in_window(cfg.qlog_window, &ev) {
                    continue;
                }
                if let Err(e) = w.write_event(&ev) {
                    c.error.get_or_insert_with(|| format!("qlog: {e}"));
                    endpoint.set_tracing(false);
                    cfg.qlog = None;
                    break;
                }
            }
        }
        if let (Some(t), Some(every)) = (next_sample, cfg.sample_every) {
            if now >= t {
                let st = endpoint.stats();
                let counters = SampleCounters {
                    bytes_sent: st.bytes_sent,
                    bytes_acked: st.bytes_delivered,
                    bytes_delivered: shared.delivered.load(Ordering::Relaxed),
                };
                samples.push((t, endpoint.metrics(), counters));
                shared.acked.store(st.bytes_delivered, Ordering::Relaxed);
                // The next multiple of the interval after now: a late loop skips samples, never bunches them.
                next_sample = Some(t + Dur(((now.0 - t.0) / every.0 + 1) * every.0));
            }
        }
        let now = clock.now();
        let wake = [endpoint.poll_timeout(), next_sample, Some(cfg.deadline)]
            .into_iter()
            .flatten()
            .min()
            .unwrap_or(cfg.deadline);
        if wake > now {
            if let Err(e) = wait_fds(&fd, libc::POLLIN, wake.saturating_since(now).min(MAX_SLEEP)) {
                c.error.get_or_insert_with(|| format!("wait: {e}"));
                break;
            }
        }
    }
    if cfg.role == Role::Sender {
        shared.acked.store(endpoint.stats().bytes_delivered, Ordering::Relaxed);
    }
    if let Some(mut w) = cfg.qlog.take() {
        let mut res = Ok(());
        while let Some(ev) = endpoint.poll_event() {
            if in_window(cfg.qlog_window, &ev) {
                res = res.and(w.write_event(&ev));
            }
        }
        if let Err(e) = res.and_then(|()| w.finish().and_then(QlogSink::close)) {
            c.error.get_or_insert_with(|| format!("qlog: {e}"));
        }
    }
    let report = DriverReport {
        endpoint,
        cpu: thread_cpu_time() - cpu0,
        wall: clock.now().saturating_since(begin),
        samples,
        acks,
        counters: c,
    };
    (report, io)
}

/// Datagrams waiting to go out together: one GSO send of equal-sized segments (the last may be
/// shorter) with one ECN codepoint.
#[derive(Default)]
struct Batch {
    buf: Vec<u8>,
    segment: usize,
    count: usize,
    ecn: Ecn,
    /// The last segment was shorter: nothing may follow it.
    closed: bool,
}

impl Batch {
    /// Encodes `d` at the end of the batch; when it cannot join the segments before it, those
    /// go out first and it starts the next batch.
    fn push(
        &mut self,
        codec: &RealCodec,
        d: &Datagram,
        max: usize,
        io: &UdpIo,
        peer: SocketAddr,
        clock: &WallClock,
        c: &mut Counters,
    ) {
        let before = self.buf.len();
        codec.encode(d, &mut self.buf);
        let len = self.buf.len() - before;
        let joins = !self.closed && d.ecn == self.ecn && self.count < max && len <= self.segment;
        if self.count > 0 && !joins {
            self.send(before, io, peer, clock, c);
            self.buf.drain(..before);
            self.count = 0;
            self.closed = false;
        }
        if self.count == 0 {
            self.segment = len;
            self.ecn = d.ecn;
        } else if len < self.segment {
            self.closed = true;
        }
        self.count += 1;
    }

    /// Sends everything batched.
    fn flush(&mut self, io: &UdpIo, peer: SocketAddr, clock: &WallClock, c: &mut Counters) {
        if self.count > 0 {
            self.send(self.buf.len(), io, peer, clock, c);
        }
        self.buf.clear();
        self.count = 0;
        self.closed = false;
    }

    /// Sends the first `end` bytes (`self.count` segments), waiting while the send buffer is full.
    fn send(&self, end: usize, io: &UdpIo, peer: SocketAddr, clock: &WallClock, c: &mut Counters) {
        let until = clock.now() + SEND_BLOCK_LIMIT;
        let segment = (self.count > 1).then_some(self.segment);
        loop {
            match io.send(peer, &self.buf[..end], segment, self.ecn) {
                Ok(true) => return,
                Ok(false) if clock.now() < until => {
                    let _ = wait_fds(&[io.fd()], libc::POLLOUT, Dur(1_000_000));
                }
                Ok(false) => {
                    c.send_drops += self.count as u64;
                    return;
                }
                Err(e) => {
                    c.error.get_or_insert_with(|| format!("send: {e}"));
                    return;
                }
            }
        }
    }
}
