//! Trace events an endpoint emits (the qlog writer in cclab-sim turns them into qlog 0.3).

use std::collections::VecDeque;

use crate::cc::CcState;
use crate::time::{Dur, Time};
use crate::wire::packet::{AckFrame, Packet};

/// Congestion-control metrics at one instant (qlog `recovery:metrics_updated`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Bytes in flight.
    pub bytes_in_flight: u64,
    /// Smoothed RTT.
    pub smoothed_rtt: Dur,
    /// Minimum RTT.
    pub min_rtt: Dur,
    /// Latest RTT sample.
    pub latest_rtt: Dur,
    /// Pacing rate, bits/s (0 = not pacing).
    pub pacing_rate_bps: u64,
    /// Latest delivery-rate sample, bits/s.
    pub delivery_rate_bps: u64,
    /// Slow-start threshold, bytes (`u64::MAX` = unset).
    pub ssthresh: u64,
}

/// One trace event, timestamped with the true time.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceEvent {
    /// A packet was sent (`transport:packet_sent`).
    PacketSent {
        /// When.
        time: Time,
        /// IP-layer size, bytes.
        size: u32,
        /// Contents.
        packet: Packet,
    },
    /// A packet was received (`transport:packet_received`).
    PacketReceived {
        /// When.
        time: Time,
        /// IP-layer size, bytes.
        size: u32,
        /// Contents.
        packet: Packet,
    },
    /// A packet was declared lost (`recovery:packet_lost`).
    PacketLost {
        /// When.
        time: Time,
        /// Packet number.
        pn: u64,
        /// `"reordering_threshold"`, `"time_threshold"` or `"pto_expired"`.
        trigger: &'static str,
    },
    /// The probe timeout fired (`recovery:loss_timer_updated`, `expired`): RFC 9002 §6.2.4 probes follow and
    /// nothing is declared lost, so without this event a run of PTOs leaves no trace.
    PtoExpired {
        /// When.
        time: Time,
    },
    /// The TFRC sender's nofeedback timer fired (`recovery:loss_timer_updated`, `expired`, timer
    /// `nofeedback`): RFC 5348 §4.4 then cuts the allowed rate, so a run of these with no feedback between
    /// them shows a dead feedback loop directly, not only as rate halvings.
    NofeedbackExpired {
        /// When.
        time: Time,
    },
    /// Metrics changed (`recovery:metrics_updated`).
    Metrics {
        /// When.
        time: Time,
        /// Values.
        metrics: Metrics,
    },
    /// The controller changed state (`recovery:congestion_state_updated`).
    CongestionState {
        /// When.
        time: Time,
        /// Old state.
        old: CcState,
        /// New state.
        new: CcState,
    },
}

impl TraceEvent {
    /// When it happened.
    pub fn time(&self) -> Time {
        match self {
            TraceEvent::PacketSent { time, .. }
            | TraceEvent::PacketReceived { time, .. }
            | TraceEvent::PacketLost { time, .. }
            | TraceEvent::Metrics { time, .. }
            | TraceEvent::CongestionState { time, .. }
            | TraceEvent::PtoExpired { time }
            | TraceEvent::NofeedbackExpired { time } => *time,
        }
    }
}

/// Where an endpoint's trace events go as they happen, when one is attached
/// ([`TraceLog::set_sink`]): the qlog writer of a simulated run. Each event is shown by reference,
/// once, and dropped after: nothing is copied into a queue and drained later, which cost more per
/// event than formatting its record did.
///
/// Packets, most of a trace, come as their parts by reference ([`TraceSink::packet_sent`],
/// [`TraceSink::packet_received`]): building an event around a packet moves it twice and drops it
/// once, which cost more than writing the sink's own record of it.
pub trait TraceSink: Send {
    /// One event, in the order the endpoint emits them.
    fn event(&mut self, ev: &TraceEvent);
    /// A [`TraceEvent::PacketSent`], given as its parts.
    fn packet_sent(&mut self, time: Time, size: u32, packet: &Packet) {
        let packet = packet.clone();
        self.event(&TraceEvent::PacketSent { time, size, packet });
    }
    /// A [`TraceEvent::PacketReceived`], given as its parts.
    fn packet_received(&mut self, time: Time, size: u32, packet: &Packet) {
        let packet = packet.clone();
        self.event(&TraceEvent::PacketReceived { time, size, packet });
    }
    /// A [`TraceEvent::Metrics`], given as its parts: one per ACK, most of which the qlog
    /// writer skips, so that building the event around them and matching it again cost more
    /// than deciding to skip.
    fn metrics(&mut self, time: Time, metrics: &Metrics) {
        self.event(&TraceEvent::Metrics {
            time,
            metrics: *metrics,
        });
    }
    /// The sink as `Any`, for its owner to take its concrete type back after a run.
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any>;
}

/// An endpoint's trace events while tracing is on (off by default: no cost when nobody listens):
/// handed to a [`TraceSink`] as they happen, or kept for `pop`/`drain` when there is none.
///
/// The queue and sink are boxed: an endpoint reads only `on` per packet, and inline they would
/// spread its hot fields over one more cache line (16 bytes here, not 56), which counts with
/// thousands of flows.
#[derive(Debug, Default)]
pub struct TraceLog {
    on: bool,
    kept: Box<Kept>,
}

#[derive(Default)]
struct Kept {
    events: VecDeque<TraceEvent>,
    sink: Option<Box<dyn TraceSink>>,
}

impl core::fmt::Debug for Kept {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Kept")
            .field("events", &self.events)
            .field("sink", &self.sink.is_some())
            .finish()
    }
}

impl TraceLog {
    /// Whether events are kept; callers test it before building an expensive event.
    #[inline]
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// Keeps `ev` if tracing is on: shows it to the sink, or queues it.
    #[inline]
    pub fn push(&mut self, ev: TraceEvent) {
        if self.on {
            let kept = &mut *self.kept;
            match &mut kept.sink {
                Some(sink) => Self::show(&mut **sink, ev),
                None => kept.events.push_back(ev),
            }
        }
    }

    /// Shows `ev` to `sink`, then drops it; an ACK frame's box goes back for reuse (`wire::ack_box`).
    #[inline]
    fn show(sink: &mut dyn TraceSink, mut ev: TraceEvent) {
        sink.event(&ev);
        if let TraceEvent::PacketSent { packet, .. } | TraceEvent::PacketReceived { packet, .. } = &mut ev {
            if let Some(ack) = packet.ack.take() {
                AckFrame::recycle(ack);
            }
        }
    }

    /// Traces `packet`, sent at `time` as `size` IP-layer bytes (call only while tracing is on): a
    /// sink sees it by reference, a queue keeps a copy ([`TraceLog::copy_packet`]). Out of line, so
    /// that the untraced send path around the call compiles as if it were not there.
    #[inline(never)]
    pub fn sent(&mut self, time: Time, size: u32, packet: &Packet) {
        match &mut self.kept.sink {
            Some(sink) => sink.packet_sent(time, size, packet),
            None => self.keep_sent(time, size, packet),
        }
    }

    /// [`TraceLog::sent`] without a sink. Apart, so that the sink's path needs no stack frame: it
    /// only jumps to the sink.
    #[cold]
    #[inline(never)]
    fn keep_sent(&mut self, time: Time, size: u32, packet: &Packet) {
        let copy = self.copy_packet(packet);
        self.push(TraceEvent::PacketSent {
            time,
            size,
            packet: copy,
        });
    }

    /// Traces the metrics after an ACK (call only while tracing is on): a sink sees them by
    /// reference, a queue keeps a [`TraceEvent::Metrics`].
    #[inline]
    pub fn metrics(&mut self, time: Time, metrics: &Metrics) {
        match &mut self.kept.sink {
            Some(sink) => sink.metrics(time, metrics),
            None => self.push(TraceEvent::Metrics {
                time,
                metrics: *metrics,
            }),
        }
    }

    /// Traces `packet`, received at `time` as `size` IP-layer bytes, after which it is dropped (call
    /// only while tracing is on): a sink sees it by reference, a queue keeps it. An ACK frame's box
    /// goes back for reuse (`wire::ack_box`), as an untraced receiver's does.
    #[inline]
    pub fn received(&mut self, time: Time, size: u32, packet: Packet) {
        match &mut self.kept.sink {
            Some(sink) => {
                sink.packet_received(time, size, &packet);
                if let Some(ack) = packet.ack {
                    AckFrame::recycle(ack);
                }
            }
            None => self.push(TraceEvent::PacketReceived { time, size, packet }),
        }
    }

    /// Sends events to `sink` from now on (after any still queued) and turns tracing on.
    pub fn set_sink(&mut self, mut sink: Box<dyn TraceSink>) {
        for ev in self.kept.events.drain(..) {
            Self::show(&mut *sink, ev);
        }
        self.kept.sink = Some(sink);
        self.on = true;
    }

    /// Detaches the sink, if any (events are queued again from now on).
    pub fn take_sink(&mut self) -> Option<Box<dyn TraceSink>> {
        self.kept.sink.take()
    }

    /// The oldest kept event.
    pub fn pop(&mut self) -> Option<TraceEvent> {
        self.kept.events.pop_front()
    }

    /// Shows every kept event to `f`, oldest first, dropping each after: what repeated `pop`s give, in
    /// one pass. By reference, as the qlog writer only reads them: passing each ~100-byte event by value
    /// through the host's and the observer's calls copied it again at every call.
    #[inline]
    pub fn drain(&mut self, mut f: impl FnMut(&TraceEvent)) {
        while let Some(mut ev) = self.kept.events.pop_front() {
            f(&ev);
            if let TraceEvent::PacketSent { packet, .. } | TraceEvent::PacketReceived { packet, .. } = &mut ev {
                if let Some(ack) = packet.ack.take() {
                    AckFrame::recycle(ack);
                }
            }
        }
    }

    /// A copy of `p` for a trace event, its ACK frame copied into a reused box (`wire::ack_box`; the drain
    /// gives the boxes of ACK frames back): the copy of every ACK a receiver sends then costs no allocation
    /// here and no free at the drain. Field by field and inlined, a data packet's copy is also cheaper than
    /// the derived `clone`, a call per packet.
    #[inline]
    pub fn copy_packet(&mut self, p: &Packet) -> Packet {
        let ack = p.ack.as_deref().map(AckFrame::boxed_copy);
        Packet {
            pn: p.pn,
            pn_len: p.pn_len,
            data: p.data,
            ack,
            immediate_ack: p.immediate_ack,
            ping: p.ping,
            ccval: p.ccval,
            rare: p.rare.clone(),
        }
    }

    /// Turns tracing on or off; turning it off drops what was kept (a sink stays attached).
    pub fn set(&mut self, on: bool) {
        self.on = on;
        if !on {
            self.kept.events.clear();
        }
    }
}
