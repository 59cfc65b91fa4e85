//! What watches a run from `run()`: qlog writers, the time-series sampler and the progress hook.

use super::packet_bound::PacketBound;
use crate::endpoint::AnyEndpoint;
use crate::host::Side;
use crate::network::{Network, Observer};
use crate::qlog::{QlogSink, QlogWriter, Vantage};
use crate::timeseries::{SampleCounters, Sampler};
use cclab_core::endpoint::{Endpoint, Metrics, TraceEvent, TraceSink};
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::{FlowId, Packet};
use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A qlog file being written.
pub(crate) type Qlog = QlogWriter<QlogSink>;

/// One endpoint's qlog file, with what the run reports about it. The built-in endpoints write
/// into it themselves, as their [`TraceSink`] (each event as it happens, by reference); other
/// endpoints' events reach it through [`Observer::on_trace`].
pub(crate) struct QlogTrace {
    w: Qlog,
    path: PathBuf,
    /// Trace only events in `[start, end)` (`[output] qlog_window`).
    window: Option<(Time, Time)>,
    /// First write error; writing stops there and `run()` reports it.
    error: Option<io::Error>,
    /// Shared by the run's traces: set on a write error, so that the run stops at its next check.
    failed: Arc<AtomicBool>,
}

impl QlogTrace {
    pub(crate) fn new(w: Qlog, path: PathBuf, window: Option<(Time, Time)>, failed: Arc<AtomicBool>) -> Self {
        QlogTrace {
            w,
            path,
            window,
            error: None,
            failed,
        }
    }

    /// Whether an event at `t` is written: no error yet, and `t` in the window.
    #[inline]
    fn admits(&self, t: Time) -> bool {
        self.error.is_none() && self.window.is_none_or(|(start, end)| t >= start && t < end)
    }

    /// Keeps the first write error and tells the run.
    #[cold]
    fn fail(&mut self, e: io::Error) {
        self.error = Some(e);
        self.failed.store(true, Ordering::Relaxed);
    }

    fn write(&mut self, ev: &TraceEvent) {
        if self.admits(ev.time()) {
            if let Err(e) = self.w.write_event(ev) {
                self.fail(e);
            }
        }
    }

    #[inline]
    fn write_packet(&mut self, sent: bool, time: Time, size: u32, packet: &Packet) {
        if self.admits(time) {
            if let Err(e) = self.w.write_packet(sent, time, size, packet) {
                self.fail(e);
            }
        }
    }

    #[inline]
    fn write_metrics(&mut self, time: Time, metrics: &Metrics) {
        if self.admits(time) {
            if let Err(e) = self.w.write_metrics(time, metrics) {
                self.fail(e);
            }
        }
    }

    /// Its path and first write error, if writing failed.
    pub(crate) fn error(&mut self) -> Option<(PathBuf, io::Error)> {
        self.error.take().map(|e| (self.path.clone(), e))
    }

    /// Writes what is buffered and closes the file.
    pub(crate) fn finish(self) -> Result<(), (PathBuf, io::Error)> {
        self.w.finish().and_then(QlogSink::close).map_err(|e| (self.path, e))
    }
}

/// A sink `run()` attached, back as what it is: `run()` attaches no other kind.
pub(crate) fn into_qlog_trace(sink: Box<dyn TraceSink>) -> Box<QlogTrace> {
    sink.into_any()
        .downcast()
        .unwrap_or_else(|_| unreachable!("run() attaches only qlog traces"))
}

impl TraceSink for QlogTrace {
    #[inline]
    fn event(&mut self, ev: &TraceEvent) {
        self.write(ev);
    }

    fn packet_sent(&mut self, time: Time, size: u32, packet: &Packet) {
        self.write_packet(true, time, size, packet);
    }

    fn packet_received(&mut self, time: Time, size: u32, packet: &Packet) {
        self.write_packet(false, time, size, packet);
    }

    fn metrics(&mut self, time: Time, metrics: &Metrics) {
        self.write_metrics(time, metrics);
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

/// A progress hook: fraction done in, false to cancel.
pub(crate) type Progress = Box<dyn FnMut(f64) -> bool + Send>;

/// The observer `run()` hands to the network.
pub(crate) struct RunObserver {
    /// Per flow: sender's and receiver's qlog, when tracing and the endpoint does not write it
    /// itself (see [`QlogTrace`]).
    pub(crate) qlogs: Vec<[Option<QlogTrace>; 2]>,
    pub(crate) sampler: Sampler,
    pub(crate) progress: Option<Progress>,
    pub(crate) duration: Dur,
    /// Total bytes of the bulk transfers, when every flow is one.
    pub(crate) total_bytes: Option<u64>,
    /// Stop once this many events ran.
    pub(crate) max_events: Option<u64>,
    /// Set when a qlog write failed (see [`QlogTrace`]): the run stops.
    pub(crate) qlog_failed: Arc<AtomicBool>,
    /// The run stops once the network holds more packets than this allows.
    pub(crate) packets: PacketBound,
}

impl RunObserver {
    fn fraction(&self, net: &Network) -> f64 {
        let by_time = net.now().as_nanos() as f64 / self.duration.as_nanos().max(1) as f64;
        let by_bytes = self.total_bytes.filter(|&t| t > 0).map_or(0.0, |total| {
            let acked: u64 = (0..net.flow_count())
                .map(|f| net.endpoints(FlowId(f as u32)).0.stats().bytes_delivered)
                .sum();
            acked as f64 / total as f64
        });
        by_time.max(by_bytes).min(1.0)
    }
}

impl Observer for RunObserver {
    fn on_trace(&mut self, flow: FlowId, side: Side, ev: &TraceEvent) {
        if let Some(t) = self
            .qlogs
            .get_mut(flow.0 as usize)
            .and_then(|f| f[(side == Side::Receiver) as usize].as_mut())
        {
            t.write(ev);
        }
    }

    fn on_tick(&mut self, net: &Network) {
        for f in 0..net.flow_count() {
            let flow = FlowId(f as u32);
            let (sender, receiver) = net.endpoints(flow);
            // The built-in endpoints' counters are read field by field: copying all of them touched
            // a second cache line of each cold endpoint, per flow and tick.
            let (bytes_sent, bytes_acked) = match sender {
                AnyEndpoint::Sender(s) => s.sent_and_acked_bytes(),
                other => {
                    let st = other.stats();
                    (st.bytes_sent, st.bytes_delivered)
                }
            };
            let c = SampleCounters {
                bytes_sent,
                bytes_acked,
                bytes_delivered: match receiver {
                    AnyEndpoint::Receiver(r) => r.bytes_delivered(),
                    other => other.stats().bytes_delivered,
                },
            };
            self.sampler.sample(net.now(), flow, &sender.metrics(), &c);
        }
        for (i, link) in net.links().iter().enumerate() {
            self.sampler.sample_link(net.now(), i as u32, &link.sample(net.now()));
        }
    }

    fn keep_going(&mut self, net: &Network) -> bool {
        if self.qlog_failed.load(Ordering::Relaxed)
            || self.max_events.is_some_and(|cap| net.events() >= cap)
            || !self.packets.holds(net)
        {
            return false;
        }
        if self.progress.is_none() {
            // The fraction reads every flow's sender: with thousands of flows, cold endpoints at
            // every tick and every 65,536 events for a hook nobody set.
            return true;
        }
        let fraction = self.fraction(net);
        self.progress.as_mut().is_none_or(|p| p(fraction))
    }
}

/// The vantage of a side.
pub(crate) fn vantage(side: Side) -> Vantage {
    match side {
        Side::Sender => Vantage::Sender,
        Side::Receiver => Vantage::Receiver,
    }
}
