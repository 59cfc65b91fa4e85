//! The TFRC sender of CCID-3 (RFC 5348 §4, RFC 4342 §5): sends data packets at the allowed rate
//! `X`, one every `t_ipi = s/X`, stamps each with the window counter, and updates `X` from
//! feedback and from its nofeedback timer.
//!
//! Time: every instant stored is a reading of the endpoint's clock model; the application
//! source is polled with clock readings too, and timers fire at `Clock::fire_time`.
//!
//! With `TfrcConfig::handshake` the sender first sends DCCP-Requests and holds data until a
//! Response opens the connection; with `TfrcConfig::send_path` each packet leaves that long after
//! its send decision (the window counter reads the decision, RTT samples start at the departure).

use std::collections::VecDeque;

use super::handshake::{self, Requester};
use super::window_counter::WindowCounter;
use super::x_recv_set::XRecvSet;
use super::{initial_window, TfrcConfig, FALLBACK_RTT, INITIAL_NOFEEDBACK};
use crate::clock::Clock;
use crate::endpoint::source::{Source, SourceConfig};
use crate::endpoint::{Endpoint, EndpointStats, Metrics, TraceEvent, TraceLog};
use crate::time::{Dur, Time};
use crate::wire::packet::{DataChunk, Datagram, Ecn, FlowId, Packet};
use crate::wire::size::Profile;

mod rate_update;

/// The sans-IO TFRC sender of one flow.
#[derive(Debug)]
pub struct TfrcSender {
    flow: FlowId,
    profile: Profile,
    clock: Clock,
    cfg: TfrcConfig,
    source: Source,
    /// Payload bytes of one application write (one datagram per write, as DCCP sends them).
    segment: u64,
    /// Stream bytes already put into packets.
    offset: u64,
    wc: WindowCounter,
    /// Mean payload size `s`, bytes (RFC 4342 §5.3); 0 before the first packet.
    s: f64,
    /// Allowed sending rate `X`, bytes/s.
    x: f64,
    /// Smoothed RTT `R`, `None` before the first sample (handshake or feedback).
    rtt: Option<Dur>,
    /// A feedback packet has arrived (Linux: `t_rto != 0`).
    feedback_received: bool,
    /// The DCCP-Request side of the handshake, `None` without one.
    requester: Option<Requester>,
    /// A packet in the send path: the true time it leaves, and the packet.
    in_send_path: Option<(Time, Datagram)>,
    latest_rtt: Dur,
    min_rtt: Dur,
    /// Loss event rate of the latest feedback.
    p: f64,
    x_recv_set: XRecvSet,
    /// Time last doubled during slow start (`tld`, RFC 5348 §4.2; `None` = -1).
    tld: Option<Time>,
    /// Nominal send time of the last data packet.
    last_nominal: Option<Time>,
    nofeedback_deadline: Option<Time>,
    /// A data packet was sent since the nofeedback timer was last set.
    sent_since_nofeedback_set: bool,
    /// Since the last feedback, data waited for the rate limit: the interval was not data-limited.
    rate_limited: bool,
    /// Packet numbers and send stamps (clock readings at departure) that feedback may still
    /// echo, oldest first.
    sent: VecDeque<(u64, Time)>,
    next_pn: u64,
    /// True time of the latest input, for `poll_timeout` when a packet is due at once.
    last_now: Time,
    stats: EndpointStats,
    trace: TraceLog,
}

impl TfrcSender {
    /// A sender for `flow` whose application starts writing from `source` at true time `now`.
    pub fn new(flow: FlowId, profile: Profile, cfg: &TfrcConfig, source: &SourceConfig, now: Time) -> TfrcSender {
        let clock = Clock::new(cfg.clock);
        let start = clock.read(now);
        let segment = match *source {
            SourceConfig::Cbr { packet_size, .. } => packet_size.0,
            SourceConfig::Bulk { .. } => profile.mss() as u64,
        };
        TfrcSender {
            flow,
            profile,
            clock,
            cfg: *cfg,
            source: Source::new(source, start),
            segment: segment.max(1),
            offset: 0,
            wc: WindowCounter::new(cfg.counter_resolution),
            s: 0.0,
            x: 0.0,
            rtt: None,
            feedback_received: false,
            requester: cfg.handshake.then(|| Requester::new(start)),
            in_send_path: None,
            latest_rtt: Dur::ZERO,
            min_rtt: Dur::MAX,
            p: 0.0,
            x_recv_set: XRecvSet::new(start),
            tld: None,
            last_nominal: None,
            nofeedback_deadline: None,
            sent_since_nofeedback_set: false,
            rate_limited: false,
            sent: VecDeque::new(),
            next_pn: 0,
            last_now: now,
            stats: EndpointStats::default(),
            trace: TraceLog::default(),
        }
    }

    /// Allowed sending rate `X`, bytes/s (0 before the first packet).
    pub fn x_bytes_per_sec(&self) -> f64 {
        self.x
    }

    /// Inter-packet interval `t_ipi = s/X` (RFC 5348 §4.6), at least 1 ns; zero before the first packet.
    pub fn t_ipi(&self) -> Dur {
        if self.x > 0.0 {
            Dur::from_secs_f64(self.s / self.x).max(Dur(1))
        } else {
            Dur::ZERO
        }
    }

    /// Smoothed RTT `R`, `None` before the first sample (handshake or feedback).
    pub fn rtt(&self) -> Option<Dur> {
        self.rtt
    }

    /// Loss event rate `p` of the latest feedback.
    pub fn p(&self) -> f64 {
        self.p
    }

    /// CCVal of the last data packet sent.
    pub fn ccval(&self) -> u8 {
        self.wc.value()
    }

    fn pending(&self) -> u64 {
        self.source.written() - self.offset
    }

    /// Clock reading from which the next packet may go: `t_nom - t_delta`, with `t_nom` the last
    /// nominal send time plus the current `t_ipi` and `t_delta = min(t_ipi/2, t_gran/2)` (§4.6).
    fn send_time(&self) -> Option<Time> {
        let t_ipi = self.t_ipi();
        let t_delta = (t_ipi / 2).min(self.clock.config().timer_granularity / 2);
        self.last_nominal.map(|n| (n + t_ipi).saturating_sub(t_delta))
    }

    /// `W_init/R`, the initial and recover rate (RFC 5348 §4.2, §4.4), bytes/s.
    fn initial_rate(&self, r: Dur) -> f64 {
        initial_window(self.s) / r.as_secs_f64()
    }

    /// Nofeedback timeout: `max(4R, 2s/X)` (RFC 5348 §4.3 step 3, §4.4 step 2), 2 s before the first
    /// feedback (§4.2; also after a handshake sample, as Linux), and never less than `nofeedback_min`.
    fn nofeedback_interval(&self) -> Dur {
        let base = match self.rtt.filter(|_| self.feedback_received) {
            Some(r) => (r * 4).max(self.t_ipi() * 2),
            None => INITIAL_NOFEEDBACK,
        };
        base.max(self.cfg.nofeedback_min)
    }

    fn set_x(&mut self, now: Time, x: f64) {
        if x != self.x {
            self.x = x;
            self.trace_metrics(now);
        }
    }

    /// A `Metrics` trace event at true time `now` (on every change of `X` or `R`).
    fn trace_metrics(&mut self, now: Time) {
        if self.trace.is_on() {
            let metrics = self.metrics();
            self.trace.push(TraceEvent::Metrics { time: now, metrics });
        }
    }

    fn send_data(&mut self, t: Time, now: Time) -> Datagram {
        let len = self.pending().min(self.segment);
        // RFC 4342 §5.3: s is the mean packet size (Linux: EWMA with weight 9/10).
        self.s = if self.s == 0.0 {
            len as f64
        } else {
            0.9 * self.s + 0.1 * len as f64
        };
        let nominal = match self.last_nominal {
            None => {
                // RFC 5348 §4.2: X = W_init/R with an RTT sample from the handshake (rfc3448bis-00;
                // Linux `dccps_syn_rtt`), else s bytes/s (one packet per second); a 2 s nofeedback timer.
                match self.rtt {
                    Some(r) => {
                        self.set_x(now, self.initial_rate(r));
                        self.tld = Some(t);
                    }
                    None => self.set_x(now, self.s),
                }
                self.nofeedback_deadline = Some(t + self.nofeedback_interval());
                t
            }
            // The packet was due at t_nom; credit for an idle gap is not kept.
            Some(n) => (n + self.t_ipi()).max(t),
        };
        self.last_nominal = Some(nominal);
        let ccval = self.wc.on_data_sent(t, self.rtt.unwrap_or(FALLBACK_RTT));
        let fin = self.source.is_finished() && self.offset + len == self.source.written();
        let packet = Packet {
            pn: self.next_pn,
            data: Some(DataChunk {
                offset: self.offset,
                len: len as u32,
                fin,
            }),
            ccval,
            ..Default::default()
        };
        self.next_pn += 1;
        self.offset += len;
        self.sent_since_nofeedback_set = true;
        self.datagram(packet)
    }

    fn datagram(&self, packet: Packet) -> Datagram {
        Datagram {
            flow: self.flow,
            size: self.profile.datagram_size(&packet),
            ecn: Ecn::NotEct,
            packet,
        }
    }

    /// A packet decided at true time `now` enters the send path; it leaves at once without one.
    fn send(&mut self, now: Time, dgram: Datagram) -> Option<Datagram> {
        if self.cfg.send_path == Dur::ZERO {
            return Some(self.departed(now, dgram));
        }
        self.in_send_path = Some((now + self.cfg.send_path, dgram));
        None
    }

    /// `dgram` leaves at true time `now`: data packets get their send stamp (Linux
    /// `ccid3_hc_tx_packet_sent`, after the transmit call) and are counted.
    fn departed(&mut self, now: Time, dgram: Datagram) -> Datagram {
        if let Some(data) = dgram.packet.data {
            self.sent.push_back((dgram.packet.pn, self.clock.read(now)));
            self.stats.data_packets_sent += 1;
            if data.fin {
                self.stats.completion_time = Some(now);
            }
        }
        self.stats.datagrams_sent += 1;
        self.stats.bytes_sent += dgram.size as u64;
        if self.trace.is_on() {
            self.trace.push(TraceEvent::PacketSent {
                time: now,
                size: dgram.size,
                packet: dgram.packet.clone(),
            });
        }
        dgram
    }
}

impl Endpoint for TfrcSender {
    fn handle_datagram(&mut self, now: Time, dgram: Datagram) {
        self.last_now = now;
        let t = self.clock.read(now);
        if self.trace.is_on() {
            let (size, packet) = (dgram.size, dgram.packet.clone());
            self.trace.push(TraceEvent::PacketReceived {
                time: now,
                size,
                packet,
            });
        }
        let echo = dgram.packet.ack.as_ref().and_then(|a| a.largest());
        // RFC 4340 §7.5.3: an acknowledgement of a sequence number never sent is invalid; RFC 4342 §8.5: the
        // loss event rate is 1/p with p in [0, 1].
        let bad_echo = echo.is_some_and(|e| e >= self.next_pn);
        let bad_p = dgram.packet.tfrc().is_some_and(|fb| !(0.0..=1.0).contains(&fb.p));
        if bad_echo || bad_p {
            self.stats.protocol_violations += 1;
            return;
        }
        match (dgram.packet.tfrc(), echo, self.requester.as_mut()) {
            (Some(&fb), Some(echo), _) => self.on_feedback(t, now, fb, echo),
            (None, Some(echo), Some(req)) => {
                if let Some(sample) = req.on_response(echo, t) {
                    self.on_handshake_rtt(sample);
                    self.trace_metrics(now);
                }
            }
            _ => {}
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        self.last_now = now;
        let t = self.clock.read(now);
        self.source.poll(t);
        if self.nofeedback_deadline.is_some_and(|d| d <= t) {
            self.on_nofeedback(t, now);
        }
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Datagram> {
        self.last_now = now;
        if let Some((leaves, _)) = self.in_send_path {
            // One packet at a time: the next send decision waits for this one to leave.
            if now < leaves {
                return None;
            }
            let (_, dgram) = self.in_send_path.take()?;
            return Some(self.departed(now, dgram));
        }
        let t = self.clock.read(now);
        self.source.poll(t);
        if let Some(req) = self.requester.as_mut().filter(|r| !r.is_open()) {
            if req.due().is_none_or(|at| t < at) {
                return None;
            }
            // RFC 4340 §8.1.1: the client sends a DCCP-Request (and repeats it) until answered.
            req.on_request_sent(self.next_pn, t);
            let dgram = self.datagram(handshake::request(self.next_pn));
            self.next_pn += 1;
            return self.send(now, dgram);
        }
        if self.pending() == 0 {
            return None;
        }
        if self.send_time().is_some_and(|at| t < at) {
            self.rate_limited = true;
            return None;
        }
        let dgram = self.send_data(t, now);
        self.send(now, dgram)
    }

    fn poll_timeout(&self) -> Option<Time> {
        // Once everything is sent the flow is over; the nofeedback timer no longer matters.
        if self.is_done() {
            return None;
        }
        let nofeedback = self.nofeedback_deadline.map(|d| self.clock.fire_time(d));
        let send = if let Some((leaves, _)) = self.in_send_path {
            Some(leaves)
        } else if let Some(at) = self.requester.and_then(|r| r.due()) {
            Some(self.clock.fire_time(at).max(self.last_now))
        } else if self.pending() > 0 {
            Some(
                self.send_time()
                    .map_or(self.last_now, |at| self.clock.fire_time(at).max(self.last_now)),
            )
        } else {
            self.source.next_event().map(|w| self.clock.fire_time(w))
        };
        [nofeedback, send].into_iter().flatten().min()
    }

    fn trace_log(&mut self) -> Option<&mut TraceLog> {
        Some(&mut self.trace)
    }

    fn set_tracing(&mut self, on: bool) {
        self.trace.set(on);
    }

    fn stats(&self) -> EndpointStats {
        self.stats.clone()
    }

    /// `pacing_rate_bps` = 8·X, `smoothed_rtt` = R; `t_ipi` = 8·s / pacing rate (see [`Self::t_ipi`]).
    fn metrics(&self) -> Metrics {
        Metrics {
            smoothed_rtt: self.rtt.unwrap_or(Dur::ZERO),
            min_rtt: if self.min_rtt == Dur::MAX {
                Dur::ZERO
            } else {
                self.min_rtt
            },
            latest_rtt: self.latest_rtt,
            pacing_rate_bps: (self.x * 8.0).round() as u64,
            ssthresh: u64::MAX,
            ..Metrics::default()
        }
    }

    fn is_done(&self) -> bool {
        self.source.is_finished() && self.pending() == 0 && self.in_send_path.is_none()
    }
}
