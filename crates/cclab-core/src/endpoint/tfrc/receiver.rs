//! The TFRC receiver of CCID-3 (RFC 5348 §6, RFC 4342 §6 and §10): measures the receive rate,
//! detects losses, keeps the loss-interval history and sends feedback.
//!
//! Feedback goes out on the first data packet, when `p` increases, and on a data packet whose
//! CCVal is more than 3 ahead (mod 16) of the CCVal echoed by the previous feedback (RFC 4342
//! §10.3), which happens about once per RTT. There is no feedback timer: a sender whose window
//! counter stops advancing gets no periodic feedback.
//!
//! A DCCP-Request is answered with a Response `TfrcConfig::response_delay` after it arrives
//! (the server's connection setup, [`super::handshake`]).

use super::equation;
use super::handshake::{self, Responder};
use super::loss_history::{LossIntervals, ReceiveRecord};
use super::window_counter::ccval_ahead;
use super::{TfrcConfig, FALLBACK_RTT};
use crate::clock::Clock;
use crate::endpoint::{Endpoint, EndpointStats, TraceEvent, TraceLog};
use crate::time::{Dur, Time};
use crate::wire::packet::{AckFrame, Datagram, Ecn, FlowId, Packet, TfrcFeedback};
use crate::wire::size::Profile;

/// Largest DCCP sequence number: they are 48 bits wide (RFC 4340 §7.1).
const MAX_SEQ: u64 = (1 << 48) - 1;
/// How far past the greatest sequence number received a packet may be (RFC 4340 §7.5.1 SWH). Linux uses
/// W = 100; ours is far larger, so that no modelled outage makes a sender outrun it, and still bounds the
/// numbers one datagram can make the loss detector classify.
const SEQ_WINDOW: u64 = 1 << 16;

/// The packet feedback echoes: the greatest sequence number received.
#[derive(Clone, Copy, Debug)]
struct Newest {
    pn: u64,
    /// Clock reading at arrival.
    at: Time,
    ccval: u8,
}

/// The sans-IO TFRC receiver of one flow.
#[derive(Debug)]
pub struct TfrcReceiver {
    flow: FlowId,
    profile: Profile,
    clock: Clock,
    record: ReceiveRecord,
    history: LossIntervals,
    /// Mean payload size `s`, bytes.
    s: f64,
    /// RTT estimated from the window counter (RFC 4342 §8.1), `None` before a sample.
    rtt: Option<Dur>,
    /// Arrival and CCVal of the first packet of the current counter window, for RTT samples.
    rtt_ref: Option<(Time, u8)>,
    newest: Option<Newest>,
    /// Payload bytes received since the last feedback.
    bytes_since_feedback: u64,
    /// Clock reading of the last feedback and the CCVal it echoed.
    last_feedback: Option<(Time, u8)>,
    /// `X_recv` of the last feedback, bytes/s.
    x_recv: u64,
    /// `p` of the last feedback.
    p_reported: f64,
    feedback_due: bool,
    /// Responses to DCCP-Requests.
    responder: Responder,
    fin: bool,
    next_pn: u64,
    /// True time of the latest input, for `poll_timeout` when feedback is due.
    last_now: Time,
    stats: EndpointStats,
    trace: TraceLog,
}

impl TfrcReceiver {
    /// A receiver for `flow` that has received nothing at true time `now`.
    pub fn new(flow: FlowId, profile: Profile, cfg: &TfrcConfig, now: Time) -> TfrcReceiver {
        TfrcReceiver {
            flow,
            profile,
            clock: Clock::new(cfg.clock),
            record: ReceiveRecord::default(),
            history: LossIntervals::default(),
            s: 0.0,
            rtt: None,
            rtt_ref: None,
            newest: None,
            bytes_since_feedback: 0,
            last_feedback: None,
            x_recv: 0,
            p_reported: 0.0,
            feedback_due: false,
            responder: Responder::new(cfg.response_delay),
            fin: false,
            next_pn: 0,
            last_now: now,
            stats: EndpointStats::default(),
            trace: TraceLog::default(),
        }
    }

    /// Current loss event rate `p` (0 before any loss).
    pub fn p(&self) -> f64 {
        self.history.p()
    }

    /// RTT estimated from CCVal, `None` before a sample.
    pub fn rtt(&self) -> Option<Dur> {
        self.rtt
    }

    /// Receive rate since the last feedback, bytes/s, measured over at least one RTT (RFC 5348
    /// §6.2 with erratum); `None` when nothing to measure over.
    fn measure_x_recv(&self, t: Time) -> Option<f64> {
        let (since, _) = self.last_feedback?;
        let interval = t.saturating_since(since).max(self.rtt.unwrap_or(Dur::ZERO));
        (interval > Dur::ZERO).then(|| self.bytes_since_feedback as f64 / interval.as_secs_f64())
    }

    /// RTT sample from the window counter: the first packets of counter values 4 apart arrive
    /// one RTT apart (RFC 4342 §8.1). EWMA with q = 0.9 as at the sender.
    fn sample_rtt(&mut self, t: Time, ccval: u8) {
        let Some((t0, c0)) = self.rtt_ref else {
            self.rtt_ref = Some((t, ccval));
            return;
        };
        match ccval_ahead(ccval, c0) {
            0..=3 => {}
            4 => {
                let sample = t.saturating_since(t0).max(Dur(1));
                self.rtt = Some(
                    self.rtt
                        .map_or(sample, |r| Dur((r.as_nanos() * 9 + sample.as_nanos()) / 10)),
                );
                self.rtt_ref = Some((t, ccval));
            }
            // The counter jumped (idle sender) or went back: start over from this packet.
            _ => self.rtt_ref = Some((t, ccval)),
        }
    }

    /// Whether `p` must be refused: a sequence number beyond 48 bits (RFC 4340 §7.1) or above the sequence
    /// validity window (§7.5.1: at most `SEQ_WINDOW` past the greatest received), or a CCVal beyond 4 bits
    /// (RFC 4342 §8.1). The window is what bounds the work per datagram: every number skipped is classified.
    fn violates(&self, p: &Packet) -> bool {
        let beyond_window = self
            .record
            .highest()
            .is_some_and(|h| p.pn > h.saturating_add(SEQ_WINDOW));
        p.pn > MAX_SEQ || beyond_window || p.ccval > 15
    }

    fn on_data(&mut self, t: Time, now: Time, pn: u64, ccval: u8, len: u32) {
        // RFC 5348 §6.3.1: the first loss interval is the one the equation needs to produce the
        // receive rate: since the last feedback with this packet included (as Linux measures it),
        // else the last reported X_recv, else (no rate yet) X_target = s/(2R).
        let s = if self.s > 0.0 { self.s } else { len as f64 };
        let r = self.rtt.unwrap_or(FALLBACK_RTT);
        let x_target = self
            .last_feedback
            .map(|(since, _)| t.saturating_since(since))
            .filter(|&d| d > Dur::ZERO)
            .map(|d| (self.bytes_since_feedback + len as u64) as f64 / d.as_secs_f64())
            .filter(|&x| x > 0.0)
            .or((self.x_recv > 0).then_some(self.x_recv as f64))
            .unwrap_or(s / (2.0 * r.as_secs_f64()));
        let first_interval = || (1.0 / equation::loss_rate_for(s, r, x_target)).round().max(1.0) as u64;
        let (mut new_event, mut lost) = (false, 0u64);
        let fresh = self.record.on_packet(pn, ccval, |seq, cc| {
            lost += 1;
            new_event |= self.history.on_loss(seq, cc, first_interval);
            if self.trace.is_on() {
                self.trace.push(TraceEvent::PacketLost {
                    time: now,
                    pn: seq,
                    trigger: "reordering_threshold",
                });
            }
        });
        self.stats.lost_packets += lost;
        if !fresh {
            return;
        }
        self.history.on_packet(pn, ccval);
        self.s = if self.s == 0.0 {
            len as f64
        } else {
            0.9 * self.s + 0.1 * len as f64
        };
        self.bytes_since_feedback += len as u64;
        self.stats.bytes_delivered += len as u64;
        self.sample_rtt(t, ccval);
        if self.newest.is_none_or(|n| pn > n.pn) {
            self.newest = Some(Newest { pn, at: t, ccval });
        }
        let periodic = self.last_feedback.is_none_or(|(_, c)| ccval_ahead(ccval, c) > 3);
        // RFC 5348 §6.2: feedback at once when p increases; RFC 4342 §10.3: once per 4 CCVal steps.
        if periodic || (new_event && self.history.p() > self.p_reported) {
            self.feedback_due = true;
        }
    }

    fn feedback(&mut self, t: Time, now: Time) -> Option<Datagram> {
        let newest = self.newest?;
        // The first feedback has no interval to measure over: X_recv = 0 (as Linux sends it).
        if let Some(x) = self.measure_x_recv(t) {
            self.x_recv = x.round() as u64;
        }
        let p = self.history.p();
        let elapsed = t.saturating_since(newest.at).as_nanos();
        let packet = Packet {
            pn: self.next_pn,
            ack: Some(Box::new(AckFrame {
                ranges: [(newest.pn, newest.pn)].into_iter().collect(),
                ack_delay_ns: elapsed,
                ecn: None,
                sack_blocks: None,
            })),
            ..Default::default()
        }
        .with_tfrc(TfrcFeedback {
            x_recv_bps: self.x_recv,
            p,
            elapsed_ns: elapsed,
        });
        self.next_pn += 1;
        self.last_feedback = Some((t, newest.ccval));
        self.bytes_since_feedback = 0;
        self.p_reported = p;
        self.feedback_due = false;
        let size = self.profile.datagram_size(&packet);
        let events = &mut self.trace;
        Some(crate::endpoint::emit_ack(
            self.flow,
            now,
            size,
            packet,
            &mut self.stats,
            events,
        ))
    }
}

impl Endpoint for TfrcReceiver {
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
        if self.violates(&dgram.packet) {
            self.stats.protocol_violations += 1;
            return;
        }
        if handshake::is_request(&dgram.packet) {
            self.responder.on_request(dgram.packet.pn, t);
        }
        let Some(data) = dgram.packet.data else { return };
        self.on_data(t, now, dgram.packet.pn, dgram.packet.ccval, data.len);
        if data.fin && !self.fin {
            self.fin = true;
            self.stats.completion_time = Some(now);
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        self.last_now = now;
    }

    fn poll_transmit(&mut self, now: Time) -> Option<Datagram> {
        self.last_now = now;
        let t = self.clock.read(now);
        if let Some(echo) = self.responder.take_due(t) {
            let packet = handshake::response(self.next_pn, echo);
            self.next_pn += 1;
            let size = self.profile.datagram_size(&packet);
            self.stats.datagrams_sent += 1;
            self.stats.bytes_sent += size as u64;
            if self.trace.is_on() {
                let packet = packet.clone();
                self.trace.push(TraceEvent::PacketSent {
                    time: now,
                    size,
                    packet,
                });
            }
            return Some(Datagram {
                flow: self.flow,
                size,
                ecn: Ecn::NotEct,
                packet,
            });
        }
        if !self.feedback_due {
            return None;
        }
        self.feedback(t, now)
    }

    fn poll_timeout(&self) -> Option<Time> {
        let response = self.responder.due().map(|at| self.clock.fire_time(at));
        [self.feedback_due.then_some(self.last_now), response]
            .into_iter()
            .flatten()
            .min()
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

    fn is_done(&self) -> bool {
        self.fin && !self.feedback_due
    }
}
