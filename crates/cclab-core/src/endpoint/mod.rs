//! Endpoints: sans-IO state machines the simulator and the UDP driver both drive.
//!
//! Method families (quinn-proto's convention): `handle_*` take inputs with the true time `now`,
//! `poll_*` give outputs, getters report state. Drive an endpoint like this, with `now` never
//! going backwards:
//!
//! 1. `handle_datagram(now, d)` for each arriving datagram, `handle_timeout(now)` when
//!    `now >= poll_timeout()` (calling it early does nothing);
//! 2. `poll_transmit(now)` until it returns `None`;
//! 3. sleep until `poll_timeout()` or the next datagram.
//!
//! The endpoint reads `now` only through its own clock model and never touches a socket.

use crate::time::Time;
use crate::wire::packet::Datagram;

pub mod handshake;
pub mod receiver;
pub mod sender;
pub mod source;
pub mod tfrc;
pub mod trace;
pub use trace::{Metrics, TraceEvent, TraceLog, TraceSink};

/// Counters every endpoint keeps (units in the names). Summaries are built from these.
///
/// Fields in a fixed order (`repr(C)`): the counters a sender writes with every packet sent first,
/// then those it writes on ACKs (`completion_time` to `cwnd_max_bytes`), then the rest: the sender puts the
/// struct last among its fields read by sends, so a send touches only the first half line
/// (`Sender`).
#[derive(Clone, Debug, Default, PartialEq)]
#[repr(C)]
pub struct EndpointStats {
    /// Datagrams sent of any kind, and their IP-layer bytes.
    pub datagrams_sent: u64,
    /// IP-layer bytes of all datagrams sent.
    pub bytes_sent: u64,
    /// Data-carrying packets sent, retransmissions included.
    pub data_packets_sent: u64,
    /// Packets sent that carried retransmitted data.
    pub retransmitted_packets: u64,
    /// When the transfer completed (sender: last byte acked; receiver: last byte received).
    pub completion_time: Option<Time>,
    /// Packets declared lost.
    pub lost_packets: u64,
    /// Largest congestion window seen, bytes.
    pub cwnd_max_bytes: u64,
    /// Application bytes delivered in order to the receiving application (receiver side) or
    /// acknowledged (sender side).
    pub bytes_delivered: u64,
    /// ACK-only (or feedback) packets sent.
    pub acks_sent: u64,
    /// IP-layer bytes of those ACK packets.
    pub ack_bytes: u64,
    /// Receiver: packet-number ranges it stopped tracking to stay bounded (QUIC: the oldest beyond
    /// `max_ack_ranges`, RFC 9000 §13.2.4; TCP: the oldest SACK-able ones beyond `TCP_MAX_RANGES`).
    pub ack_ranges_forgotten: u64,
    /// Datagrams (or frames) refused as protocol violations and otherwise ignored: ACKs of packets never
    /// sent or with malformed ranges (RFC 9000 §13.1, §19.3.1), stream data past the largest offset or the
    /// final size (RFC 9000 §4.5, §19.8), out-of-range packet or sequence numbers. A correct peer causes none.
    pub protocol_violations: u64,
}

/// A sans-IO endpoint.
pub trait Endpoint: Send {
    /// A datagram arrived at true time `now`.
    fn handle_datagram(&mut self, now: Time, dgram: Datagram);
    /// Timers due at or before `now` fire; early calls do nothing.
    fn handle_timeout(&mut self, now: Time);
    /// The next datagram to send now, if any.
    fn poll_transmit(&mut self, now: Time) -> Option<Datagram>;
    /// Whether `poll_transmit(now)` may return a datagram. `false` is exact, never a guess: that
    /// poll would return `None`, and this call has made every change to the endpoint that the
    /// refused poll would have made, so a caller may skip the poll. A caller that polls until
    /// `None` asks this first (a simulated host does): a bulk receiver refuses two polls in three,
    /// after every datagram it does not yet acknowledge and after every ACK it sends, and this
    /// answer can be inlined where a poll is a call. The default, `true`, is always right.
    #[inline]
    fn may_transmit(&mut self, _now: Time) -> bool {
        true
    }
    /// The true time at which `handle_timeout` or `poll_transmit` next has work (timers and
    /// pacing), `None` if nothing is pending.
    fn poll_timeout(&self) -> Option<Time>;
    /// The endpoint's trace, if it keeps one: what `poll_event`, `set_trace_sink` and
    /// `take_trace_sink` use unless the endpoint has its own.
    fn trace_log(&mut self) -> Option<&mut TraceLog> {
        None
    }
    /// Next trace event, if tracing is on (see `set_tracing`).
    fn poll_event(&mut self) -> Option<TraceEvent> {
        self.trace_log()?.pop()
    }
    /// Turns trace events on or off (off by default: no cost when nobody listens).
    fn set_tracing(&mut self, _on: bool) {}
    /// Sends trace events to `sink` as they happen instead of queueing them for `poll_event`, and
    /// turns tracing on (through `set_tracing`, so an endpoint's own catch-up runs); an endpoint
    /// without a trace hands the sink back.
    fn set_trace_sink(&mut self, sink: Box<dyn TraceSink>) -> Result<(), Box<dyn TraceSink>> {
        if self.trace_log().is_none() {
            return Err(sink);
        }
        self.set_tracing(true);
        match self.trace_log() {
            Some(log) => {
                log.set_sink(sink);
                Ok(())
            }
            None => Err(sink),
        }
    }
    /// Detaches the trace sink, if any.
    fn take_trace_sink(&mut self) -> Option<Box<dyn TraceSink>> {
        self.trace_log()?.take_sink()
    }
    /// Counters.
    fn stats(&self) -> EndpointStats;
    /// Instantaneous congestion-control metrics (sender side; zeros on a receiver).
    fn metrics(&self) -> Metrics {
        Metrics::default()
    }
    /// The transfer is complete and nothing is left to send or wait for.
    fn is_done(&self) -> bool;
    /// The median, 90th and 99th percentile of every RTT sample taken so far (sender side;
    /// `None` before any sample or for an endpoint that takes none).
    fn rtt_percentiles(&self) -> Option<[crate::time::Dur; 3]> {
        None
    }
}

/// Counts an ACK-only (or feedback) packet of `size` bytes in `stats`, traces it into `trace`
/// when tracing, and wraps it in a datagram: what every receiver does for each ACK it sends. Inlined:
/// as a call, the packet was moved into it and the datagram out (`#[inline]` alone left it a call).
#[inline(always)]
pub(crate) fn emit_ack(
    flow: crate::wire::packet::FlowId,
    now: Time,
    size: u32,
    packet: crate::wire::packet::Packet,
    stats: &mut EndpointStats,
    trace: &mut TraceLog,
) -> Datagram {
    stats.acks_sent += 1;
    stats.ack_bytes += size as u64;
    stats.datagrams_sent += 1;
    stats.bytes_sent += size as u64;
    if trace.is_on() {
        trace.sent(now, size, &packet);
    }
    Datagram {
        flow,
        size,
        ecn: crate::wire::packet::Ecn::NotEct,
        packet,
    }
}
