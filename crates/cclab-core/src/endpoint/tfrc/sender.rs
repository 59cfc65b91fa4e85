//! The TFRC sender of CCID-3 (RFC 5348 §4, RFC 4342 §5): sends data packets at the allowed rate
//! `X`, one every `t_ipi = s/X`, stamps each with the window counter, and updates `X` from
//! feedback and from its nofeedback timer.
//!
//! Time: every instant stored is a reading of the endpoint's clock model; the application
//! source is polled with clock readings too, and timers fire at `Clock::fire_time`.

use std::collections::VecDeque;

use super::equation;
use super::window_counter::WindowCounter;
use super::x_recv_set::XRecvSet;
use super::{initial_window, SlowStartFloor, TfrcConfig, FALLBACK_RTT, INITIAL_NOFEEDBACK, T_MBI};
use crate::clock::Clock;
use crate::endpoint::source::{Source, SourceConfig};
use crate::endpoint::{Endpoint, EndpointStats, Metrics, TraceEvent};
use crate::time::{Dur, Time};
use crate::wire::packet::{DataChunk, Datagram, Ecn, FlowId, Packet, TfrcFeedback};
use crate::wire::size::Profile;

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
    /// Smoothed RTT `R`, `None` before the first feedback.
    rtt: Option<Dur>,
    latest_rtt: Dur,
    min_rtt: Dur,
    /// Loss event rate of the latest feedback.
    p: f64,
    x_recv_set: XRecvSet,
    /// Time last doubled during slow start (`tld`, RFC 5348 §4.2; `None` = -1).
    tld: Option<Time>,
    /// Nominal send time of the last data packet.
    last_nominal: Option<Time>,
    last_sent: Option<Time>,
    nofeedback_deadline: Option<Time>,
    /// A data packet was sent since the nofeedback timer was last set.
    sent_since_nofeedback_set: bool,
    /// Since the last feedback, data waited for the rate limit: the interval was not data-limited.
    rate_limited: bool,
    /// Packet numbers and send times that feedback may still echo, oldest first.
    sent: VecDeque<(u64, Time)>,
    next_pn: u64,
    /// True time of the latest input, for `poll_timeout` when a packet is due at once.
    last_now: Time,
    stats: EndpointStats,
    tracing: bool,
    events: VecDeque<TraceEvent>,
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
            latest_rtt: Dur::ZERO,
            min_rtt: Dur::MAX,
            p: 0.0,
            x_recv_set: XRecvSet::new(start),
            tld: None,
            last_nominal: None,
            last_sent: None,
            nofeedback_deadline: None,
            sent_since_nofeedback_set: false,
            rate_limited: false,
            sent: VecDeque::new(),
            next_pn: 0,
            last_now: now,
            stats: EndpointStats::default(),
            tracing: false,
            events: VecDeque::new(),
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

    /// Smoothed RTT `R`, `None` before the first feedback.
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

    /// Nofeedback timeout: `max(4R, 2s/X)` (RFC 5348 §4.3 step 3, §4.4 step 2), 2 s before any RTT
    /// sample (§4.2), and never less than `nofeedback_min`.
    fn nofeedback_interval(&self) -> Dur {
        let base = match self.rtt {
            Some(r) => (r * 4).max(self.t_ipi() * 2),
            None => INITIAL_NOFEEDBACK,
        };
        base.max(self.cfg.nofeedback_min)
    }

    fn set_x(&mut self, now: Time, x: f64) {
        if x != self.x {
            self.x = x;
            if self.tracing {
                let metrics = self.metrics();
                self.events.push_back(TraceEvent::Metrics { time: now, metrics });
            }
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
                // RFC 5348 §4.2: X = s bytes/s (one packet per second) and a 2 s nofeedback timer.
                self.set_x(now, self.s);
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
        self.sent.push_back((packet.pn, t));
        self.last_sent = Some(t);
        self.sent_since_nofeedback_set = true;
        let size = self.profile.datagram_size(&packet);
        self.stats.data_packets_sent += 1;
        self.stats.datagrams_sent += 1;
        self.stats.bytes_sent += size as u64;
        if fin {
            self.stats.completion_time = Some(now);
        }
        if self.tracing {
            self.events.push_back(TraceEvent::PacketSent {
                time: now,
                size,
                packet: packet.clone(),
            });
        }
        Datagram {
            flow: self.flow,
            size,
            ecn: Ecn::NotEct,
            packet,
        }
    }

    /// RFC 5348 §4.3 steps 1–6 for feedback echoing packet `echo`, at clock reading `t`.
    fn on_feedback(&mut self, t: Time, now: Time, fb: TfrcFeedback, echo: u64) {
        while self.sent.front().is_some_and(|&(pn, _)| pn < echo) {
            self.sent.pop_front();
        }
        // Feedback for a packet not in the history gives no RTT sample; ignore it (as Linux does).
        let Some(&(pn, sent_at)) = self.sent.front() else {
            return;
        };
        if pn != echo {
            return;
        }
        // Step 1: R_sample = (t_now - t_recvdata) - t_delay, clamped below by rtt_clamp_min.
        let sample = t
            .saturating_since(sent_at)
            .saturating_sub(Dur(fb.elapsed_ns))
            .max(self.cfg.rtt_clamp_min)
            .max(Dur(1));
        self.latest_rtt = sample;
        self.min_rtt = self.min_rtt.min(sample);
        // Step 2: R = R_sample first, then R = q·R + (1 - q)·R_sample with q = 0.9.
        let first = self.rtt.is_none();
        let r = self
            .rtt
            .map_or(sample, |r| Dur((r.as_nanos() * 9 + sample.as_nanos()) / 10));
        self.rtt = Some(r);
        // Step 4 (step 3's RTO is the nofeedback interval set below).
        let loss_increase = fb.p > self.p;
        let recv_limit = self
            .x_recv_set
            .on_feedback(t, fb.x_recv_bps as f64, !self.rate_limited, loss_increase, r);
        self.p = fb.p;
        if first {
            // §4.2: the first feedback sets the initial rate W_init/R.
            self.set_x(now, self.initial_rate(r));
            self.tld = Some(t);
        } else {
            self.update_x(t, now, recv_limit);
        }
        // Step 6: restart the nofeedback timer.
        self.nofeedback_deadline = Some(t + self.nofeedback_interval());
        self.sent_since_nofeedback_set = false;
        self.rate_limited = false;
    }

    /// The rate update at the end of RFC 5348 §4.3 step 4, given `recv_limit` (bytes/s).
    fn update_x(&mut self, t: Time, now: Time, recv_limit: f64) {
        let Some(r) = self.rtt else { return };
        let initial = self.initial_rate(r);
        let limit = match self.cfg.slow_start_floor {
            // rfc3448bis-00: a sender idle for more than 2 RTT may restart at the RFC 3390 rate.
            SlowStartFloor::SegmentPerRtt if self.last_sent.is_none_or(|ls| t.saturating_since(ls) > r * 2) => {
                recv_limit.max(initial)
            }
            _ => recv_limit,
        };
        if self.p > 0.0 {
            // Congestion avoidance: X = max(min(X_Bps, recv_limit), s/t_mbi).
            let x_bps = equation::throughput(self.s, r, self.p);
            self.set_x(now, x_bps.min(limit).max(self.s / T_MBI.as_secs_f64()));
        } else if self.tld.is_none_or(|tld| t.saturating_since(tld) >= r) {
            // Slow start: at most one doubling per RTT.
            let floor = match self.cfg.slow_start_floor {
                SlowStartFloor::InitialRate => initial,
                SlowStartFloor::SegmentPerRtt => self.s / r.as_secs_f64(),
            };
            self.set_x(now, (2.0 * self.x).min(limit).max(floor));
            self.tld = Some(t);
        }
    }

    /// Nofeedback timer expiry, RFC 5348 §4.4.
    fn on_nofeedback(&mut self, t: Time, now: Time) {
        let idle = !self.sent_since_nofeedback_set && self.pending() == 0;
        let halved = (self.x / 2.0).max(self.s / T_MBI.as_secs_f64());
        match self.rtt {
            // No RTT sample or feedback yet: halve, unless idle since the timer was set.
            None if !idle => self.set_x(now, halved),
            None => {}
            Some(r) => {
                let recover = self.initial_rate(r);
                let x_recv = self.x_recv_set.max();
                if idle && ((self.p > 0.0 && x_recv < recover) || (self.p == 0.0 && self.x < 2.0 * recover)) {
                    // An idle sender is not cut below the recover rate.
                } else if self.p == 0.0 {
                    self.set_x(now, halved);
                } else {
                    let x_bps = equation::throughput(self.s, r, self.p);
                    // Update_Limits: X_recv if 2·X_recv already limited X, else X_Bps/2.
                    let limit = if x_bps > 2.0 * x_recv { x_recv } else { x_bps / 2.0 };
                    let limit = limit.max(self.s / T_MBI.as_secs_f64());
                    self.x_recv_set.reset(t, limit / 2.0);
                    self.update_x(t, now, limit);
                }
            }
        }
        self.nofeedback_deadline = Some(t + self.nofeedback_interval());
        self.sent_since_nofeedback_set = false;
    }
}

impl Endpoint for TfrcSender {
    fn handle_datagram(&mut self, now: Time, dgram: Datagram) {
        self.last_now = now;
        let t = self.clock.read(now);
        if self.tracing {
            let (size, packet) = (dgram.size, dgram.packet.clone());
            self.events.push_back(TraceEvent::PacketReceived {
                time: now,
                size,
                packet,
            });
        }
        let echo = dgram.packet.ack.as_ref().and_then(|a| a.largest());
        if let (Some(fb), Some(echo)) = (dgram.packet.tfrc, echo) {
            self.on_feedback(t, now, fb, echo);
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
        let t = self.clock.read(now);
        self.source.poll(t);
        if self.pending() == 0 {
            return None;
        }
        if self.send_time().is_some_and(|at| t < at) {
            self.rate_limited = true;
            return None;
        }
        Some(self.send_data(t, now))
    }

    fn poll_timeout(&self) -> Option<Time> {
        // Once everything is sent the flow is over; the nofeedback timer no longer matters.
        if self.is_done() {
            return None;
        }
        let nofeedback = self.nofeedback_deadline.map(|d| self.clock.fire_time(d));
        let send = if self.pending() > 0 {
            Some(
                self.send_time()
                    .map_or(self.last_now, |at| self.clock.fire_time(at).max(self.last_now)),
            )
        } else {
            self.source.next_event().map(|w| self.clock.fire_time(w))
        };
        [nofeedback, send].into_iter().flatten().min()
    }

    fn poll_event(&mut self) -> Option<TraceEvent> {
        self.events.pop_front()
    }

    fn set_tracing(&mut self, on: bool) {
        self.tracing = on;
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
        self.source.is_finished() && self.pending() == 0
    }
}
