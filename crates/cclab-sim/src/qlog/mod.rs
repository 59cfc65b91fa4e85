//! qlog traces of one endpoint, as JSON-SEQ (RFC 7464) files that qvis opens.
//!
//! One [`QlogWriter`] per vantage point: the sender's trace (`trace.sqlog`, vantage "client")
//! and the receiver's (`trace-receiver.sqlog`, vantage "server"). The engine streams the
//! endpoint's [`TraceEvent`]s into it one at a time; each becomes one record, formatted by hand
//! into a reused byte buffer (no per-event allocation, no `serde_json::Value`, no `core::fmt`)
//! that goes to the file in 256 KB chunks, optionally through gzip ([`QlogSink`]), or, for a
//! plain trace of `run()`, whole to the run's writer thread, which writes it with `O_DIRECT`
//! ([`TraceWriter`], [`DirectFile`]). Identical input gives byte-identical files.
//!
//! Two schemas ([`QlogFormat`]): qlog 0.3 (draft-ietf-quic-qlog-main-schema-02 with
//! draft-02 QUIC events, `transport:packet_sent`, ...), which qvis and the `qlog` crate 0.15
//! read; and the IETF drafts (main-schema -12, quic-events -12: `quic:packet_sent`,
//! `quic:recovery_metrics_updated`, ...). Times are milliseconds since the start of the run
//! with six decimals, so nanoseconds survive. `docs/outputs.md` lists every event and field.

mod block;
mod direct;
mod events;
mod json;
mod sink;
mod trace_io;

pub mod read;

use json::Buf;

pub use direct::DirectFile;
pub use sink::{QlogCompression, QlogSink};
pub use trace_io::TraceWriter;

use cclab_core::endpoint::{Metrics, TraceEvent};
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::{FlowId, Packet};
use cclab_core::wire::size::{Profile, QuicProfile};
use serde::Deserialize;
use std::io::{self, Write};

/// Which qlog schema to write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub enum QlogFormat {
    /// qlog 0.3 (main-schema draft-02): what qvis and the `qlog` crate 0.15 read.
    #[default]
    #[serde(rename = "0.3")]
    V03,
    /// The IETF drafts (main-schema -12, quic-events -12), `--qlog-format ietf`.
    #[serde(rename = "ietf")]
    Ietf,
}

impl core::str::FromStr for QlogFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "0.3" | "draft-02" => Ok(QlogFormat::V03),
            "ietf" => Ok(QlogFormat::Ietf),
            _ => Err(format!("unknown qlog format {s:?}: expected \"0.3\" or \"ietf\"")),
        }
    }
}

/// Which end of a flow a trace is seen from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vantage {
    /// The data sender (qlog vantage point type "client").
    Sender,
    /// The data receiver (qlog vantage point type "server").
    Receiver,
}

impl Vantage {
    /// qlog `vantage_point.type`.
    pub fn qlog_type(self) -> &'static str {
        match self {
            Vantage::Sender => "client",
            Vantage::Receiver => "server",
        }
    }
    /// qlog `vantage_point.name`.
    pub fn name(self) -> &'static str {
        match self {
            Vantage::Sender => "sender",
            Vantage::Receiver => "receiver",
        }
    }
}

/// File name of the trace of `flow` seen from `vantage` in a run with `flows` flows:
/// `trace.sqlog` / `trace-receiver.sqlog` for one flow, `trace-flow2.sqlog` /
/// `trace-receiver-flow2.sqlog` when there are several.
pub fn trace_file_name(vantage: Vantage, flow: FlowId, flows: usize) -> String {
    let side = match vantage {
        Vantage::Sender => "",
        Vantage::Receiver => "-receiver",
    };
    if flows <= 1 {
        format!("trace{side}.sqlog")
    } else {
        format!("trace{side}-flow{}.sqlog", flow.0)
    }
}

/// Connection parameters written once at the start of a trace (`transport:parameters_set`,
/// and `recovery:parameters_set` when a controller is named).
#[derive(Clone, Debug, PartialEq)]
pub struct QlogParams {
    /// Schema to write.
    pub format: QlogFormat,
    /// Wire profile of the flow: QUIC adds `max_udp_payload_size`, `ack_delay_exponent` and
    /// PADDING frames; its name goes to `protocol_type`.
    pub profile: Profile,
    /// max_ack_delay transport parameter (written in whole ms, rounded up, as on the wire,
    /// RFC 9000 §18.2; default 25 ms).
    pub max_ack_delay: Dur,
    /// min_ack_delay transport parameter (draft-ietf-quic-ack-frequency §3), if advertised;
    /// written as unknown parameter 0xff04de1b holding the varint in µs.
    pub min_ack_delay: Option<Dur>,
    /// Congestion-control algorithm name (`cubic`, ...); `None` on a receiver.
    pub cc_algorithm: Option<String>,
    /// Initial congestion window, bytes.
    pub initial_cwnd_bytes: Option<u64>,
}

impl Default for QlogParams {
    fn default() -> Self {
        QlogParams {
            format: QlogFormat::V03,
            profile: Profile::Quic(QuicProfile::default()),
            max_ack_delay: Dur::from_millis(25),
            min_ack_delay: None,
            cc_algorithm: None,
            initial_cwnd_bytes: None,
        }
    }
}

/// Records collect in the writer's buffer and go to its output in chunks of about this size:
/// one `write_all` per few hundred records, so the output needs no `BufWriter` of its own. A
/// direct file ([`QlogSink::Direct`]) takes chunks of its block size instead.
const CHUNK_BYTES: usize = 256 * 1024;

/// Room in the buffer past a chunk, for the record that crosses its end: the buffer never regrows.
const CHUNK_SLACK: usize = 64 * 1024;

/// Memory a run gives the buffers of all its buffered traces together: with thousands of flows,
/// `CHUNK_BYTES` each would take most of the machine (3,000 flows: 2 GB for 89 MB of traces).
pub const BUFFERED_BUDGET_BYTES: usize = 64 << 20;

/// Smallest chunk of a buffered trace: a write every 16 KiB still costs the kernel about what
/// larger ones do per byte.
const MIN_CHUNK_BYTES: usize = 16 * 1024;

/// The chunk of each of `traces` buffered traces of a run: `CHUNK_BYTES`, or less so that all
/// of them fit in [`BUFFERED_BUDGET_BYTES`], but not below `MIN_CHUNK_BYTES`.
pub fn buffered_chunk_bytes(traces: usize) -> usize {
    (BUFFERED_BUDGET_BYTES / traces.max(1)).clamp(MIN_CHUNK_BYTES, CHUNK_BYTES)
}

/// Streams one endpoint's trace events into a qlog JSON-SEQ file.
///
/// Call order: `new` (writes the header and the parameter events), `write_event` for each
/// event in time order, `finish`. Records are buffered (`CHUNK_BYTES`); dropping the writer
/// without `finish` still writes what is buffered (a cancelled run keeps its partial trace).
pub struct QlogWriter<W: Write + 'static> {
    /// `None` only after `finish` took it.
    out: Option<W>,
    buf: Buf,
    /// Buffered bytes that make a chunk.
    chunk: usize,
    format: QlogFormat,
    /// QUIC traces show PADDING frames; TCP and DCCP have none.
    quic: bool,
    /// Metrics last written: `metrics_updated` carries only fields that changed (qlog's
    /// convention, and what keeps files small).
    last_metrics: Option<Metrics>,
    /// Memoised packet fields of sent (`[0]`) and received (`[1]`) packets.
    memos: [events::PacketMemos; 2],
    /// Memoised `metrics_updated` fields.
    metric_memos: events::MetricMemos,
}

impl<W: Write + 'static> QlogWriter<W> {
    /// Writes the header of a trace titled `title` from `vantage`, then the parameter events.
    pub fn new(out: W, vantage: Vantage, title: &str, params: &QlogParams) -> io::Result<Self> {
        QlogWriter::with_chunk(out, vantage, title, params, CHUNK_BYTES)
    }

    /// [`QlogWriter::new`], writing a buffered output every `chunk` bytes (a direct file takes
    /// whole blocks whatever `chunk` says): see [`buffered_chunk_bytes`].
    pub fn with_chunk(
        mut out: W,
        vantage: Vantage,
        title: &str,
        params: &QlogParams,
        chunk: usize,
    ) -> io::Result<Self> {
        let (chunk, slack) = match direct(&mut out) {
            Some(_) => (trace_io::BLOCK_BYTES, CHUNK_SLACK),
            // A record asks for `RECORD_ROOM` and its variable parts: room for two past a small
            // chunk keeps its buffer from growing at the end (a larger record still grows it, once).
            None => (chunk.max(1), (chunk / 4).clamp(2 * json::RECORD_ROOM, CHUNK_SLACK)),
        };
        let mut w = QlogWriter {
            out: Some(out),
            buf: Buf::with_capacity(chunk + slack),
            chunk,
            format: params.format,
            quic: matches!(params.profile, Profile::Quic(_)),
            last_metrics: None,
            memos: [events::PacketMemos::NEW; 2],
            metric_memos: events::MetricMemos::NEW,
        };
        events::header(&mut w.buf, w.format, vantage, title, &params.profile);
        events::parameters(&mut w.buf, w.format, params);
        Ok(w)
    }

    /// Appends one event (a `Metrics` event in which nothing changed writes nothing).
    ///
    /// Only the dispatch: each kind of record is written out of line, so this inlines into its
    /// caller and a record costs one call, not two.
    #[inline]
    pub fn write_event(&mut self, ev: &TraceEvent) -> io::Result<()> {
        // One copy of the writers per schema, each with its format a constant: their fragments
        // then compile to constant stores instead of table lookups and copies of unknown length.
        match self.format {
            QlogFormat::V03 => self.append(QlogFormat::V03, ev),
            QlogFormat::Ietf => self.append(QlogFormat::Ietf, ev),
        }
        if self.buf.len() >= self.chunk {
            self.flush_buf()?;
        }
        Ok(())
    }

    /// Appends a `packet_sent` (`sent`) or `packet_received` record of `packet`, `size` IP-layer
    /// bytes at `time`: what [`QlogWriter::write_event`] does with such an event, from its parts.
    #[inline]
    pub fn write_packet(&mut self, sent: bool, time: Time, size: u32, packet: &Packet) -> io::Result<()> {
        match self.format {
            QlogFormat::V03 => self.append_packet(QlogFormat::V03, sent, time, size, packet),
            QlogFormat::Ietf => self.append_packet(QlogFormat::Ietf, sent, time, size, packet),
        }
        if self.buf.len() >= self.chunk {
            self.flush_buf()?;
        }
        Ok(())
    }

    /// Appends a `metrics_updated` record of `metrics` at `time`, if a written field changed: what
    /// [`QlogWriter::write_event`] does with such an event, from its parts.
    #[inline]
    pub fn write_metrics(&mut self, time: Time, metrics: &Metrics) -> io::Result<()> {
        match self.format {
            QlogFormat::V03 => self.append_metrics(QlogFormat::V03, time, metrics),
            QlogFormat::Ietf => self.append_metrics(QlogFormat::Ietf, time, metrics),
        }
        if self.buf.len() >= self.chunk {
            self.flush_buf()?;
        }
        Ok(())
    }

    #[inline(always)]
    fn append_metrics(&mut self, f: QlogFormat, time: Time, metrics: &Metrics) {
        if self
            .last_metrics
            .as_ref()
            .is_some_and(|l| events::metrics_unchanged(metrics, l))
        {
            return;
        }
        let (buf, mm, last, t) = (
            &mut self.buf,
            &mut self.metric_memos,
            &mut self.last_metrics,
            time.as_nanos(),
        );
        match f {
            QlogFormat::V03 => metrics_record::<false>(buf, mm, last, t, metrics),
            QlogFormat::Ietf => metrics_record::<true>(buf, mm, last, t, metrics),
        }
    }

    #[inline(always)]
    fn append_packet(&mut self, f: QlogFormat, sent: bool, time: Time, size: u32, packet: &Packet) {
        let (buf, memos, quic, t) = (&mut self.buf, &mut self.memos, self.quic, time.as_nanos());
        match (f, sent) {
            (QlogFormat::V03, true) => packet_record::<false, true>(buf, memos, quic, t, size, packet),
            (QlogFormat::V03, false) => packet_record::<false, false>(buf, memos, quic, t, size, packet),
            (QlogFormat::Ietf, true) => packet_record::<true, true>(buf, memos, quic, t, size, packet),
            (QlogFormat::Ietf, false) => packet_record::<true, false>(buf, memos, quic, t, size, packet),
        }
    }

    #[inline(always)]
    fn append(&mut self, f: QlogFormat, ev: &TraceEvent) {
        match ev {
            TraceEvent::PacketSent { time, size, packet } => self.append_packet(f, true, *time, *size, packet),
            TraceEvent::PacketReceived { time, size, packet } => self.append_packet(f, false, *time, *size, packet),
            TraceEvent::PacketLost { time, pn, trigger } => {
                events::packet_lost(&mut self.buf, f, time.as_nanos(), *pn, trigger)
            }
            TraceEvent::PtoExpired { time } => events::pto_expired(&mut self.buf, f, time.as_nanos()),
            TraceEvent::NofeedbackExpired { time } => events::nofeedback_expired(&mut self.buf, f, time.as_nanos()),
            TraceEvent::Metrics { time, metrics } => self.append_metrics(f, *time, metrics),
            TraceEvent::CongestionState { time, old, new } => {
                events::congestion_state(&mut self.buf, f, time.as_nanos(), old.name(), new.name())
            }
        }
    }

    /// Writes what is buffered, flushes and returns the underlying writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.flush_all()?;
        let mut out = self.out.take().expect("only finish takes the output");
        out.flush()?;
        Ok(out)
    }

    /// Sends a chunk on (a direct file keeps the unaligned end in the buffer).
    #[cold]
    fn flush_buf(&mut self) -> io::Result<()> {
        let r = match self.out.as_mut() {
            Some(out) => match direct(out) {
                Some(d) => return d.take(&mut self.buf),
                None => out.write_all(self.buf.text()),
            },
            None => Ok(()),
        };
        self.buf.clear();
        r
    }

    /// Sends everything buffered on.
    fn flush_all(&mut self) -> io::Result<()> {
        match self.out.as_mut().and_then(direct) {
            Some(d) => d.take_all(&mut self.buf),
            None => self.flush_buf(),
        }
    }
}

/// `out` as a direct trace file, if it is one: such a file takes the writer's buffer itself
/// instead of a copy of its text. (The writer stays generic over `Write`, for tests and tools
/// that write into memory.)
fn direct<W: Write + 'static>(out: &mut W) -> Option<&mut DirectFile> {
    match (out as &mut dyn std::any::Any).downcast_mut::<QlogSink>() {
        Some(QlogSink::Direct(d)) => Some(d),
        _ => None,
    }
}

/// A packet record, out of line: one copy per schema (`IETF`) and direction (`SENT`), so that its
/// fragments are constants, and small enough a function that the record's cursor stays in a
/// register (inlined into `write_event` with every other event, it was kept on the stack).
#[inline(never)]
fn packet_record<const IETF: bool, const SENT: bool>(
    buf: &mut Buf,
    memos: &mut [events::PacketMemos; 2],
    quic: bool,
    time_ns: u64,
    size: u32,
    packet: &Packet,
) {
    let f = if IETF { QlogFormat::Ietf } else { QlogFormat::V03 };
    let (dir, m) = if SENT {
        (events::Dir::Sent, &mut memos[0])
    } else {
        (events::Dir::Received, &mut memos[1])
    };
    events::packet(buf, f, dir, m, time_ns, size, packet, quic);
}

/// A `metrics_updated` record (if any field changed since `last`, which it then holds), out of
/// line like [`packet_record`]: one copy per schema.
#[inline(never)]
fn metrics_record<const IETF: bool>(
    buf: &mut Buf,
    mm: &mut events::MetricMemos,
    last: &mut Option<Metrics>,
    time_ns: u64,
    m: &Metrics,
) {
    let f = if IETF { QlogFormat::Ietf } else { QlogFormat::V03 };
    events::metrics(buf, f, mm, time_ns, m, last.as_ref());
    *last = Some(*m);
}

impl<W: Write + 'static> Drop for QlogWriter<W> {
    fn drop(&mut self) {
        // After `finish` nothing is left; otherwise keep the partial trace (errors have nowhere to go).
        let _ = self.flush_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trace_file_names_follow_flow_count() {
        assert_eq!(trace_file_name(Vantage::Sender, FlowId(0), 1), "trace.sqlog");
        assert_eq!(trace_file_name(Vantage::Receiver, FlowId(0), 1), "trace-receiver.sqlog");
        assert_eq!(
            trace_file_name(Vantage::Receiver, FlowId(2), 3),
            "trace-receiver-flow2.sqlog"
        );
    }

    #[test]
    fn qlog_format_parses_cli_names() {
        assert_eq!("ietf".parse::<QlogFormat>(), Ok(QlogFormat::Ietf));
        assert_eq!("0.3".parse::<QlogFormat>(), Ok(QlogFormat::V03));
        assert!("json".parse::<QlogFormat>().unwrap_err().contains("ietf"));
    }
}
