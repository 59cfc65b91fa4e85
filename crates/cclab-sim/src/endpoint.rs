//! The endpoints a host runs: the built-in ones of `cclab-core` as enum variants (static
//! dispatch on the per-packet path), plus `Custom` for any other [`Endpoint`].

use cclab_core::endpoint::receiver::Receiver;
use cclab_core::endpoint::sender::Sender;
use cclab_core::endpoint::tfrc::{TfrcReceiver, TfrcSender};
use cclab_core::endpoint::{Endpoint, EndpointStats, Metrics, TraceEvent, TraceSink};
use cclab_core::time::Time;
use cclab_core::wire::packet::Datagram;

/// One endpoint of a flow.
pub enum AnyEndpoint {
    /// QUIC/TCP data sender.
    Sender(Box<Sender>),
    /// QUIC/TCP data receiver.
    Receiver(Box<Receiver>),
    /// DCCP CCID-3 (TFRC) sender.
    TfrcSender(Box<TfrcSender>),
    /// DCCP CCID-3 (TFRC) receiver.
    TfrcReceiver(Box<TfrcReceiver>),
    /// Any other endpoint (tests, plug-ins).
    Custom(Box<dyn Endpoint>),
}

macro_rules! dispatch {
    ($self:ident, $e:ident => $body:expr) => {
        match $self {
            AnyEndpoint::Sender($e) => $body,
            AnyEndpoint::Receiver($e) => $body,
            AnyEndpoint::TfrcSender($e) => $body,
            AnyEndpoint::TfrcReceiver($e) => $body,
            AnyEndpoint::Custom($e) => $body,
        }
    };
}

/// Bytes of an endpoint's state a prefetch warms: its per-packet fields come first.
const HOT_BYTES: usize = 1280;

impl AnyEndpoint {
    /// Starts loading the endpoint's out-of-line state (see `Sender::prefetch_state`).
    pub fn prefetch_state(&self) {
        match self {
            AnyEndpoint::Sender(s) => s.prefetch_state(),
            AnyEndpoint::Receiver(r) => r.prefetch_state(),
            _ => {}
        }
    }

    /// Where the endpoint's state starts and how many of its leading bytes a datagram's arrival
    /// reads, for a prefetch ahead of it (the boxed state never moves); none for custom endpoints.
    pub fn hot_bytes(&self) -> (usize, usize) {
        fn span<T>(b: &T) -> (usize, usize) {
            (b as *const T as usize, size_of::<T>().min(HOT_BYTES))
        }
        match self {
            AnyEndpoint::Sender(s) => span(&**s),
            AnyEndpoint::Receiver(r) => span(&**r),
            AnyEndpoint::TfrcSender(s) => span(&**s),
            AnyEndpoint::TfrcReceiver(r) => span(&**r),
            AnyEndpoint::Custom(_) => (0, 0),
        }
    }

    /// Hands every pending trace event to `f`, oldest first; the built-in QUIC/TCP endpoints in one
    /// pass over their trace, the others through `poll_event`.
    #[inline]
    pub fn drain_events(&mut self, mut f: impl FnMut(&TraceEvent)) {
        match self {
            AnyEndpoint::Sender(e) => e.drain_events(f),
            AnyEndpoint::Receiver(e) => e.drain_events(f),
            _ => {
                while let Some(ev) = self.poll_event() {
                    f(&ev);
                }
            }
        }
    }
}

impl Endpoint for AnyEndpoint {
    fn handle_datagram(&mut self, now: Time, dgram: Datagram) {
        dispatch!(self, e => e.handle_datagram(now, dgram))
    }
    fn handle_timeout(&mut self, now: Time) {
        dispatch!(self, e => e.handle_timeout(now))
    }
    fn poll_transmit(&mut self, now: Time) -> Option<Datagram> {
        dispatch!(self, e => e.poll_transmit(now))
    }
    /// Inlined with each kind's answer (the built-in receiver's is a few field tests), so that a
    /// refused poll costs the host no call.
    #[inline(always)]
    fn may_transmit(&mut self, now: Time) -> bool {
        dispatch!(self, e => e.may_transmit(now))
    }
    fn poll_timeout(&self) -> Option<Time> {
        dispatch!(self, e => e.poll_timeout())
    }
    fn poll_event(&mut self) -> Option<TraceEvent> {
        dispatch!(self, e => e.poll_event())
    }
    fn set_tracing(&mut self, on: bool) {
        dispatch!(self, e => e.set_tracing(on))
    }
    fn set_trace_sink(&mut self, sink: Box<dyn TraceSink>) -> Result<(), Box<dyn TraceSink>> {
        dispatch!(self, e => e.set_trace_sink(sink))
    }
    fn take_trace_sink(&mut self) -> Option<Box<dyn TraceSink>> {
        dispatch!(self, e => e.take_trace_sink())
    }
    fn stats(&self) -> EndpointStats {
        dispatch!(self, e => e.stats())
    }
    fn metrics(&self) -> Metrics {
        dispatch!(self, e => e.metrics())
    }
    fn is_done(&self) -> bool {
        dispatch!(self, e => e.is_done())
    }
    fn rtt_percentiles(&self) -> Option<[cclab_core::time::Dur; 3]> {
        dispatch!(self, e => e.rtt_percentiles())
    }
}
