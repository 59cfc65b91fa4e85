//! One qlog record per function, in either schema. Field names and types follow the `qlog`
//! crate 0.15 (draft-02) and draft-ietf-quic-qlog-quic-events-12 so strict readers parse
//! every record as a typed event.

use super::json::{str_room, word_of, Buf, Memo, MsMemo, Out, RANGE_ROOM, RS};
use super::{QlogFormat, QlogParams, Vantage};
use cclab_core::endpoint::Metrics;
use cclab_core::time::Dur;
use cclab_core::wire::packet::{AckFrame, DataChunk, Packet};
use cclab_core::wire::size::{Profile, QuicProfile, ACK_DELAY_EXPONENT, ACK_FREQUENCY_TYPE, IMMEDIATE_ACK_TYPE};

/// min_ack_delay transport parameter id (draft-ietf-quic-ack-frequency §3, provisional).
const MIN_ACK_DELAY_ID: u64 = 0xff04de1b;
/// Largest valid max_ack_delay, ms: 2^14 and above are invalid (RFC 9000 §18.2).
const MAX_ACK_DELAY_LIMIT_MS: u64 = (1 << 14) - 1;
/// draft-02 `reference_time` of every trace, ms since the Unix epoch: 2000-01-01T00:00:00Z, a fixed
/// instant standing for the start of the simulated run. qvis treats a zero reference as missing and then
/// aligns each trace on its own first event, which shifts the receiver's trace by the one-way delay in the
/// sequence view; one shared non-zero reference keeps sender and receiver on the same time line.
const REFERENCE_TIME_MS: f64 = 946_684_800_000.0;
/// Event-schema URI of the QUIC events draft the IETF mode follows.
const IETF_QUIC_SCHEMA: &str = "urn:ietf:params:qlog:events:quic-12";

/// Which way a packet went.
#[derive(Clone, Copy)]
pub(super) enum Dir {
    Sent,
    Received,
}

/// The packet fields that mostly repeat or count up from one record of a direction to the next
/// (packet number, size, stream frame length, both ends of the first ACK range, ACK delay), and
/// the stream offset's digits above its last four, memoised.
#[derive(Clone, Copy)]
pub(super) struct PacketMemos {
    pn: Memo,
    size: Memo,
    stream_len: Memo,
    offset_high: Memo,
    ack_lo: Memo,
    ack_hi: Memo,
    ack_delay: MsMemo,
}

impl PacketMemos {
    pub(super) const NEW: PacketMemos = PacketMemos {
        pn: Memo::ZERO,
        size: Memo::ZERO,
        stream_len: Memo::ZERO,
        offset_high: Memo::ZERO,
        ack_lo: Memo::ZERO,
        ack_hi: Memo::ZERO,
        ack_delay: MsMemo::ONE_NS,
    };
}

/// The `metrics_updated` fields, memoised: RTTs keep their whole milliseconds (mostly 0 on
/// short paths) and repeat often; windows repeat; a pacing rate's digits above the last eight
/// (`12950237207` → `129`) change far less often than the rate.
#[derive(Clone, Copy)]
pub(super) struct MetricMemos {
    min_rtt: MsMemo,
    smoothed_rtt: MsMemo,
    latest_rtt: MsMemo,
    cwnd: Memo,
    bytes_in_flight: Memo,
    ssthresh: Memo,
    pacing_high: Memo,
}

impl MetricMemos {
    pub(super) const NEW: MetricMemos = MetricMemos {
        min_rtt: MsMemo::ONE_NS,
        smoothed_rtt: MsMemo::ONE_NS,
        latest_rtt: MsMemo::ONE_NS,
        cwnd: Memo::ZERO,
        bytes_in_flight: Memo::ZERO,
        ssthresh: Memo::ZERO,
        pacing_high: Memo::ZERO,
    };
}

/// Per schema, each event's name with the JSON around it: `,"name":"<name>","data":{`, written
/// after the time as one precomputed fragment (for packets, with the header up to the number).
struct Names {
    parameters_set: &'static str,
    recovery_parameters_set: &'static str,
    packet_sent: &'static str,
    packet_received: &'static str,
    packet_lost: &'static str,
    loss_timer_updated: &'static str,
    metrics_updated: &'static str,
    congestion_state_updated: &'static str,
}

/// `,"name":"<name>","data":{"header":{"packet_type":"1RTT","packet_number":`: a packet record
/// from its name to its number, one fragment.
macro_rules! packet_open {
    ($name:literal) => {
        concat!(
            ",\"name\":\"",
            $name,
            "\",\"data\":{\"header\":{\"packet_type\":\"1RTT\",\"packet_number\":"
        )
    };
}

const V03_NAMES: Names = Names {
    parameters_set: r#","name":"transport:parameters_set","data":{"#,
    recovery_parameters_set: r#","name":"recovery:parameters_set","data":{"#,
    packet_sent: packet_open!("transport:packet_sent"),
    packet_received: packet_open!("transport:packet_received"),
    packet_lost: r#","name":"recovery:packet_lost","data":{"#,
    loss_timer_updated: r#","name":"recovery:loss_timer_updated","data":{"#,
    metrics_updated: r#","name":"recovery:metrics_updated","data":{"#,
    congestion_state_updated: r#","name":"recovery:congestion_state_updated","data":{"#,
};

const IETF_NAMES: Names = Names {
    parameters_set: r#","name":"quic:parameters_set","data":{"#,
    recovery_parameters_set: r#","name":"quic:recovery_parameters_set","data":{"#,
    packet_sent: packet_open!("quic:packet_sent"),
    packet_received: packet_open!("quic:packet_received"),
    packet_lost: r#","name":"quic:packet_lost","data":{"#,
    loss_timer_updated: r#","name":"quic:loss_timer_updated","data":{"#,
    metrics_updated: r#","name":"quic:recovery_metrics_updated","data":{"#,
    congestion_state_updated: r#","name":"quic:congestion_state_updated","data":{"#,
};

fn names(f: QlogFormat) -> &'static Names {
    match f {
        QlogFormat::V03 => &V03_NAMES,
        QlogFormat::Ietf => &IETF_NAMES,
    }
}

fn protocol(profile: &Profile) -> &'static str {
    match profile {
        Profile::Quic(_) => "QUIC",
        Profile::Tcp(_) => "TCP",
        Profile::Dccp(_) => "DCCP",
    }
}

/// Opens record `{"time":…,"name":…,"data":{`; `name` is a [`Names`] fragment.
#[inline(always)]
fn open(o: &mut Out<'_>, time_ns: u64, name: &str) {
    o.bytes(&[RS, b'{', b'"', b't', b'i', b'm', b'e', b'"', b':']);
    o.time(time_ns);
    o.put(name);
}

#[inline(always)]
fn close(o: &mut Out<'_>) {
    o.put("}}\n");
}

/// The file header (first record).
pub(super) fn header(buf: &mut Buf, f: QlogFormat, vantage: Vantage, title: &str, profile: &Profile) {
    let o = &mut buf.record(2 * str_room(title.len()));
    o.byte(RS);
    match f {
        QlogFormat::V03 => o.put("{\"qlog_version\":\"0.3\",\"qlog_format\":\"JSON-SEQ\",\"title\":"),
        QlogFormat::Ietf => o.put(
            "{\"file_schema\":\"urn:ietf:params:qlog:file:sequential\",\
             \"serialization_format\":\"application/qlog+json-seq\",\"title\":",
        ),
    }
    o.str(title);
    o.put(",\"trace\":{\"title\":");
    o.str(title);
    o.put(",\"vantage_point\":{\"name\":\"");
    o.put(vantage.name());
    o.put("\",\"type\":\"");
    o.put(vantage.qlog_type());
    o.put("\"},\"common_fields\":{");
    // Times are ms since the start of the run: draft-02 says so with a relative format and the
    // shared `REFERENCE_TIME_MS`; the IETF schema with a monotonic clock whose epoch is unknown.
    match f {
        QlogFormat::V03 => {
            o.put("\"protocol_type\":[\"");
            o.put(protocol(profile));
            o.put("\"],\"reference_time\":");
            o.put(&format!("{REFERENCE_TIME_MS:.1}"));
            o.put(",\"time_format\":\"relative\"},");
            o.put("\"configuration\":{\"time_offset\":0.0}}}\n");
        }
        QlogFormat::Ietf => {
            o.put("\"protocol_types\":[\"");
            o.put(protocol(profile));
            o.put("\"],\"reference_time\":{\"clock_type\":\"monotonic\",\"epoch\":\"unknown\"},");
            o.put("\"time_format\":\"relative_to_epoch\"},\"event_schemas\":[\"");
            o.put(IETF_QUIC_SCHEMA);
            o.put("\"]}}\n");
        }
    }
}

/// `parameters_set` (always) and `recovery_parameters_set` (when the sender names a controller
/// or an initial window), both at time 0.
pub(super) fn parameters(buf: &mut Buf, f: QlogFormat, p: &QlogParams) {
    {
        let o = &mut buf.record(0);
        open(o, 0, names(f).parameters_set);
        o.put(match f {
            QlogFormat::V03 => "\"owner\":\"local\"",
            QlogFormat::Ietf => "\"initiator\":\"local\"",
        });
        if let Profile::Quic(q) = &p.profile {
            o.key(false, "max_udp_payload_size");
            o.u64(q.max_udp_payload as u64);
            o.key(false, "ack_delay_exponent");
            o.u64(ACK_DELAY_EXPONENT as u64);
        }
        // RFC 9000 §18.2: max_ack_delay is an integer number of milliseconds; round up so the
        // advertised bound is never below the real one.
        o.key(false, "max_ack_delay");
        o.u64(
            p.max_ack_delay
                .as_nanos()
                .div_ceil(1_000_000)
                .min(MAX_ACK_DELAY_LIMIT_MS),
        );
        o.key(false, "unknown_parameters");
        o.byte(b'[');
        if let Some(d) = p.min_ack_delay {
            o.put("{\"id\":");
            o.u64(MIN_ACK_DELAY_ID);
            o.put(",\"value\":\"");
            // draft-ietf-quic-ack-frequency §3: a varint in microseconds.
            o.varint_hex(d.as_micros());
            o.put("\"}");
        }
        o.byte(b']');
        close(o);
    }

    if p.cc_algorithm.is_none() && p.initial_cwnd_bytes.is_none() {
        return;
    }
    let o = &mut buf.record(str_room(p.cc_algorithm.as_ref().map_or(0, String::len)));
    open(o, 0, names(f).recovery_parameters_set);
    o.key(true, "max_datagram_size");
    o.u64(p.profile.mss() as u64);
    if let Some(w) = p.initial_cwnd_bytes {
        o.key(false, "initial_congestion_window");
        o.u64(w);
    }
    if let Some(cc) = &p.cc_algorithm {
        // Extension field (qlog allows them; typed readers skip it).
        o.key(false, "cc_algorithm");
        o.str(cc);
    }
    close(o);
}

#[inline(always)]
fn packet_header(o: &mut Out<'_>, pn: u64) {
    o.put("\"header\":{\"packet_type\":\"1RTT\",\"packet_number\":");
    o.u64(pn);
    o.byte(b'}');
}

/// `packet_sent` / `packet_received`: header, IP-layer length, frames. Inlined into each caller,
/// which passes a constant `f`, so every fragment below is a constant.
#[inline(always)]
pub(super) fn packet(
    buf: &mut Buf,
    f: QlogFormat,
    dir: Dir,
    m: &mut PacketMemos,
    time_ns: u64,
    size: u32,
    p: &Packet,
    quic: bool,
) {
    // The two shapes of almost every packet of a transfer first, each a record of its own with
    // none of the other frame types' tests in it: as branches of one record, they cost more.
    if let Some(d) = stream_only(p) {
        let o = &mut buf.record(0);
        packet_head(o, f, dir, m, time_ns, size, p.pn);
        stream_frame(o, f, m, &d);
        return o.word(word_of("}]}}\n"), 5);
    }
    if let Some((ack, ranges)) = ack_only(p) {
        // One range, as in almost every ACK of a transfer without loss: its two numbers fit the
        // record's room, and the frame closes with the record in one store.
        if let [(lo, hi)] = *ranges {
            let o = &mut buf.record(0);
            packet_head(o, f, dir, m, time_ns, size, p.pn);
            ack_head(o, m, ack.ack_delay_ns);
            first_range(o, f, m, lo, hi);
            return o.word(word_of("]]}]}}\n"), 7);
        }
        let o = &mut buf.record(ranges.len() * RANGE_ROOM);
        packet_head(o, f, dir, m, time_ns, size, p.pn);
        ack_frame(o, f, m, ack);
        return o.word(word_of("}]}}\n"), 5);
    }
    any_packet(buf, f, dir, m, time_ns, size, p, quic);
}

/// [`packet`] for a packet of any shape.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn any_packet(
    buf: &mut Buf,
    f: QlogFormat,
    dir: Dir,
    m: &mut PacketMemos,
    time_ns: u64,
    size: u32,
    p: &Packet,
    quic: bool,
) {
    let ranges = p.ack.as_ref().map_or(0, |a| a.ranges.len());
    let o = &mut buf.record(ranges * RANGE_ROOM);
    packet_head(o, f, dir, m, time_ns, size, p.pn);
    // The frames leave their closing brace to what follows: the next frame's opener or the end.
    const CLOSE_FRAME: u64 = word_of("}]}}\n");
    const CLOSE_EMPTY: u64 = word_of("]}}\n");
    let (w, n) = if frames(o, f, m, p, quic) {
        (CLOSE_FRAME, 5)
    } else {
        // No frame: take back the `{` written for one.
        o.unput(1);
        (CLOSE_EMPTY, 4)
    };
    o.word(w, n);
}

/// A packet record up to its first frame's `{`.
#[inline(always)]
fn packet_head(o: &mut Out<'_>, f: QlogFormat, dir: Dir, m: &mut PacketMemos, time_ns: u64, size: u32, pn: u64) {
    let n = names(f);
    open(
        o,
        time_ns,
        if let Dir::Sent = dir {
            n.packet_sent
        } else {
            n.packet_received
        },
    );
    o.memo(&mut m.pn, pn);
    o.put("},\"raw\":{\"length\":");
    o.memo(&mut m.size, size as u64);
    o.put("},\"frames\":[{");
}

/// The STREAM frame of a packet that has only that frame, of 4 or more bytes and not the last
/// (so no PADDING either, see [`padding`]): a bulk transfer's data packets.
#[inline(always)]
fn stream_only(p: &Packet) -> Option<DataChunk> {
    let plain = p.ack.is_none() && p.ack_frequency().is_none() && !p.immediate_ack && !p.ping;
    p.data.filter(|d| plain && d.len >= 4 && !d.fin)
}

/// The ACK frame of a packet that has only that frame, with its ranges (at least one, so no
/// PADDING, see [`padding`]) and no ECN counts: a receiver's ACKs.
#[inline(always)]
fn ack_only(p: &Packet) -> Option<(&AckFrame, &[(u64, u64)])> {
    let plain = p.data.is_none() && p.ack_frequency().is_none() && !p.immediate_ack && !p.ping;
    let a = p.ack.as_deref().filter(|a| plain && a.ecn.is_none())?;
    let ranges: &[(u64, u64)] = &a.ranges;
    (!ranges.is_empty()).then_some((a, ranges))
}

/// Padding of a QUIC packet (RFC 9001 §5.4.2: pn_len + frames ≥ 4). An ACK frame (≥ 5 bytes) or
/// a STREAM frame with 4 or more data bytes alone reaches 4, so the common packets skip sizing.
#[inline(always)]
fn padding(p: &Packet) -> u32 {
    if p.ack.as_ref().is_some_and(|a| !a.ranges.is_empty()) || p.data.is_some_and(|d| d.len >= 4) {
        0
    } else {
        QuicProfile::default().padding_len(p)
    }
}

/// Opens a frame: nothing for the first in the array (its `{` is written before the frames),
/// else `},{`, which also closes the previous frame. One 8-byte store of either word: a choice
/// between two constant fragments of different lengths would compile to a `memcpy` call.
#[inline(always)]
fn frame_sep(o: &mut Out<'_>, first: bool) {
    const NEXT: u64 = word_of("},{");
    let (w, n) = if first { (0, 0) } else { (NEXT, 3) };
    o.word(w, n);
}

/// An ACK frame's type and delay, after its `{`.
#[inline(always)]
fn ack_head(o: &mut Out<'_>, m: &mut PacketMemos, ack_delay_ns: u64) {
    o.put("\"frame_type\":\"ack\",\"ack_delay\":");
    o.ms_memo(&mut m.ack_delay, ack_delay_ns);
}

/// `,"acked_ranges":[[lo,hi` for the lowest range, left open. quic-events -12 writes a
/// one-packet range as [n]; draft-02 readers want pairs.
#[inline(always)]
fn first_range(o: &mut Out<'_>, f: QlogFormat, m: &mut PacketMemos, lo: u64, hi: u64) {
    o.put(",\"acked_ranges\":[[");
    // The lowest range mostly starts where it started in the last ACK, and ends a packet or
    // two further.
    o.memo(&mut m.ack_lo, lo);
    if lo != hi || f == QlogFormat::V03 {
        o.byte(b',');
        o.memo(&mut m.ack_hi, hi);
    }
}

/// An ACK frame after its `{`, left open.
#[inline(always)]
fn ack_frame(o: &mut Out<'_>, f: QlogFormat, m: &mut PacketMemos, ack: &AckFrame) {
    ack_head(o, m, ack.ack_delay_ns);
    // Ascending, as qlog examples and quiche write them; ranges are stored highest first.
    let mut ranges = ack.ranges.iter().rev();
    if let Some(&(lo, hi)) = ranges.next() {
        first_range(o, f, m, lo, hi);
        for &(lo, hi) in ranges {
            o.put("],[");
            o.u64(lo);
            if lo != hi || f == QlogFormat::V03 {
                o.byte(b',');
                o.u64(hi);
            }
        }
        o.put("]]");
    } else {
        o.put(",\"acked_ranges\":[]");
    }
    if let Some(&[ect0, ect1, ce]) = ack.ecn.as_deref() {
        for (k, v) in [("ect1", ect1), ("ect0", ect0), ("ce", ce)] {
            o.key(false, k);
            o.u64(v);
        }
    }
}

/// A STREAM frame after its `{`, left open.
#[inline(always)]
fn stream_frame(o: &mut Out<'_>, f: QlogFormat, m: &mut PacketMemos, d: &DataChunk) {
    o.put("\"frame_type\":\"stream\",\"stream_id\":0,\"offset\":");
    o.memo_above_four(&mut m.offset_high, d.offset);
    if f == QlogFormat::V03 {
        o.put(",\"length\":");
        o.memo(&mut m.stream_len, d.len as u64);
    }
    if d.fin {
        o.put(",\"fin\":true");
    }
    if f == QlogFormat::Ietf {
        o.put(",\"raw\":{\"payload_length\":");
        o.memo(&mut m.stream_len, d.len as u64);
        o.byte(b'}');
    }
}

/// Frames in codec order: ACK, ACK_FREQUENCY, IMMEDIATE_ACK, PING, STREAM, PADDING, after the
/// first frame's `{`, each left open (no closing brace). Returns whether any frame was written.
#[inline(always)]
fn frames(o: &mut Out<'_>, f: QlogFormat, m: &mut PacketMemos, p: &Packet, quic: bool) -> bool {
    let mut first = true;
    if let Some(ack) = &p.ack {
        // The ACK frame, when there is one, is the first.
        ack_frame(o, f, m, ack);
        first = false;
    }
    // Neither schema has a typed ACK_FREQUENCY or IMMEDIATE_ACK frame: they are typed
    // `unknown` frames carrying the frame type, plus the draft's field names as extensions.
    if let Some(af) = p.ack_frequency() {
        unknown_frame(o, f, first, ACK_FREQUENCY_TYPE);
        first = false;
        o.key(false, "sequence_number");
        o.u64(af.sequence);
        o.key(false, "ack_eliciting_threshold");
        o.u64(af.ack_eliciting_threshold);
        o.key(false, "request_max_ack_delay");
        o.ms(af.request_max_ack_delay_us * 1_000);
        o.key(false, "reordering_threshold");
        o.u64(af.reordering_threshold);
    }
    if p.immediate_ack {
        unknown_frame(o, f, first, IMMEDIATE_ACK_TYPE);
        first = false;
    }
    if p.ping {
        frame_sep(o, first);
        o.put("\"frame_type\":\"ping\"");
        first = false;
    }
    if let Some(d) = &p.data {
        frame_sep(o, first);
        stream_frame(o, f, m, d);
        first = false;
    }
    // Padding depends only on the packet-number length and the frames (RFC 9001 §5.4.2), not
    // on the profile's other parameters.
    let pad = if quic { padding(p) } else { 0 };
    if pad > 0 {
        frame_sep(o, first);
        o.put(match f {
            QlogFormat::V03 => "\"frame_type\":\"padding\",\"payload_length\":",
            QlogFormat::Ietf => "\"frame_type\":\"padding\",\"raw\":{\"payload_length\":",
        });
        first = false;
        o.u64(pad as u64);
        if f == QlogFormat::Ietf {
            o.byte(b'}');
        }
    }
    !first
}

/// Opens `{"frame_type":"unknown",<type field>:ty` (left open for extension fields), as
/// [`frame_sep`] does.
#[inline(always)]
fn unknown_frame(o: &mut Out<'_>, f: QlogFormat, first: bool, ty: u64) {
    frame_sep(o, first);
    o.put(match f {
        QlogFormat::V03 => "\"frame_type\":\"unknown\",\"raw_frame_type\":",
        QlogFormat::Ietf => "\"frame_type\":\"unknown\",\"frame_type_bytes\":",
    });
    o.u64(ty);
}

/// `packet_lost` with its trigger (`reordering_threshold`, `time_threshold`, `pto_expired`).
pub(super) fn packet_lost(buf: &mut Buf, f: QlogFormat, time_ns: u64, pn: u64, trigger: &str) {
    let o = &mut buf.record(str_room(trigger.len()));
    open(o, time_ns, names(f).packet_lost);
    packet_header(o, pn);
    o.key(false, "trigger");
    o.str(trigger);
    close(o);
}

/// `loss_timer_updated` for an expired probe timeout (RFC 9002 §6.2): `timer_type` `pto`, `event_type`
/// `expired`, in the application-data number space (the only one the endpoints model).
pub(super) fn pto_expired(buf: &mut Buf, f: QlogFormat, time_ns: u64) {
    let o = &mut buf.record(0);
    open(o, time_ns, names(f).loss_timer_updated);
    o.put("\"timer_type\":\"pto\",\"packet_number_space\":\"application_data\",\"event_type\":\"expired\"");
    close(o);
}

/// `loss_timer_updated` for the TFRC nofeedback timer (RFC 5348 §4.4); qlog has no DCCP timer type, so it
/// is named `nofeedback` and has no packet number space.
pub(super) fn nofeedback_expired(buf: &mut Buf, f: QlogFormat, time_ns: u64) {
    let o = &mut buf.record(0);
    open(o, time_ns, names(f).loss_timer_updated);
    o.put("\"timer_type\":\"nofeedback\",\"event_type\":\"expired\"");
    close(o);
}

/// `metrics_updated` with the fields that differ from `last` (all set fields when `last` is
/// `None`); writes nothing when none changed. Unset values (RTTs before a sample, pacing rate
/// 0, ssthresh `u64::MAX`) are never written.
#[inline(always)]
pub(super) fn metrics(
    buf: &mut Buf,
    f: QlogFormat,
    mm: &mut MetricMemos,
    time_ns: u64,
    m: &Metrics,
    last: Option<&Metrics>,
) {
    let l = last.copied().unwrap_or(Metrics {
        // Values no set metric has, so that every set field counts as changed.
        cwnd: u64::MAX,
        bytes_in_flight: u64::MAX,
        smoothed_rtt: Dur(u64::MAX),
        min_rtt: Dur(u64::MAX),
        latest_rtt: Dur(u64::MAX),
        pacing_rate_bps: 0,
        delivery_rate_bps: 0,
        ssthresh: u64::MAX,
    });
    let rtt = |v: Dur, old: Dur| v.0 > 0 && v != old;
    // cwnd and bytes in flight are always set; MAX only marks an unbounded window.
    let count = |v: u64, old: u64, unset: u64| v != unset && v != old;
    let write = [
        rtt(m.min_rtt, l.min_rtt),
        rtt(m.smoothed_rtt, l.smoothed_rtt),
        rtt(m.latest_rtt, l.latest_rtt),
        count(m.cwnd, l.cwnd, u64::MAX),
        count(m.bytes_in_flight, l.bytes_in_flight, u64::MAX),
        count(m.ssthresh, l.ssthresh, u64::MAX),
        count(m.pacing_rate_bps, l.pacing_rate_bps, 0),
    ];
    // Most updates change nothing that is written: decide before opening a record.
    if !write.contains(&true) {
        return;
    }
    let o = &mut buf.record(0);
    open(o, time_ns, names(f).metrics_updated);
    // The separator, then each key as a constant fragment: a choice between `"key":` and
    // `,"key":` is one of two lengths, which compiled to a `memcpy` call per field.
    let mut first = true;
    macro_rules! field {
        ($i:expr, $key:literal, $put:expr) => {
            if write[$i] {
                o.byte_unless(b',', std::mem::replace(&mut first, false));
                o.put(concat!("\"", $key, "\":"));
                $put;
            }
        };
    }
    field!(0, "min_rtt", o.ms_memo(&mut mm.min_rtt, m.min_rtt.0));
    field!(1, "smoothed_rtt", o.ms_memo(&mut mm.smoothed_rtt, m.smoothed_rtt.0));
    field!(2, "latest_rtt", o.ms_memo(&mut mm.latest_rtt, m.latest_rtt.0));
    field!(3, "congestion_window", o.memo(&mut mm.cwnd, m.cwnd));
    field!(4, "bytes_in_flight", o.memo(&mut mm.bytes_in_flight, m.bytes_in_flight));
    field!(5, "ssthresh", o.memo(&mut mm.ssthresh, m.ssthresh));
    field!(6, "pacing_rate", o.memo_high(&mut mm.pacing_high, m.pacing_rate_bps));
    close(o);
}

/// Whether `m` holds what `last` holds in every field `metrics_updated` writes: then it writes
/// nothing, whatever else changed (most ACKs move only the delivery rate, or nothing). The
/// writer tests this inline before the record's out-of-line call; one branch for the fields,
/// not one per field.
#[inline(always)]
pub(super) fn metrics_unchanged(m: &Metrics, last: &Metrics) -> bool {
    (m.cwnd ^ last.cwnd)
        | (m.bytes_in_flight ^ last.bytes_in_flight)
        | (m.ssthresh ^ last.ssthresh)
        | (m.pacing_rate_bps ^ last.pacing_rate_bps)
        | (m.min_rtt.0 ^ last.min_rtt.0)
        | (m.smoothed_rtt.0 ^ last.smoothed_rtt.0)
        | (m.latest_rtt.0 ^ last.latest_rtt.0)
        == 0
}

/// `congestion_state_updated` from `old` to `new`.
pub(super) fn congestion_state(buf: &mut Buf, f: QlogFormat, time_ns: u64, old: &str, new: &str) {
    let o = &mut buf.record(str_room(old.len() + new.len()));
    open(o, time_ns, names(f).congestion_state_updated);
    o.key(true, "old");
    o.str(old);
    o.key(false, "new");
    o.str(new);
    close(o);
}

#[cfg(test)]
mod tests {
    use super::super::json::RECORD_ROOM;
    use super::*;
    use cclab_core::wire::packet::AckFrequencyFrame;

    /// The unchecked appends rely on every record's fixed part fitting in `RECORD_ROOM`: a packet
    /// with every frame and every number at its widest stays within half of it, in both schemas.
    #[test]
    fn largest_packet_record_fits_half_its_room() {
        let p = Packet {
            pn: u64::MAX,
            pn_len: 4,
            data: Some(DataChunk {
                offset: u64::MAX,
                len: u32::MAX,
                fin: true,
            }),
            ack: Some(Box::new(AckFrame {
                ranges: vec![(u64::MAX - 1, u64::MAX)].into(),
                ack_delay_ns: u64::MAX,
                ecn: Some(Box::new([u64::MAX; 3])),
                ..Default::default()
            })),
            immediate_ack: true,
            ping: true,
            ..Default::default()
        }
        .with_ack_frequency(AckFrequencyFrame {
            sequence: u64::MAX,
            ack_eliciting_threshold: u64::MAX,
            request_max_ack_delay_us: u64::MAX / 1_000,
            reordering_threshold: u64::MAX,
        });
        for f in [QlogFormat::V03, QlogFormat::Ietf] {
            let mut buf = Buf::with_capacity(0);
            let mut m = PacketMemos::NEW;
            packet(&mut buf, f, Dir::Received, &mut m, u64::MAX, u32::MAX, &p, true);
            let n = buf.len() - RANGE_ROOM;
            assert!(n < RECORD_ROOM / 2, "{f:?}: {n} bytes");
        }
    }

    /// The records of the two common shapes, written on their own, are those of any packet, in both
    /// schemas and both directions, as numbers repeat, count up and jump (the memos).
    #[test]
    fn common_shapes_write_what_any_packet_writes() {
        let stream = |pn: u64, offset: u64, len: u32| Packet {
            pn,
            pn_len: 2,
            data: Some(DataChunk {
                offset,
                len,
                fin: false,
            }),
            ..Default::default()
        };
        let ack = |pn: u64, ranges: Vec<(u64, u64)>, delay: u64| Packet {
            pn,
            pn_len: 1,
            ack: Some(Box::new(AckFrame {
                ranges: ranges.into(),
                ack_delay_ns: delay,
                ..Default::default()
            })),
            ..Default::default()
        };
        let packets = [
            stream(0, 0, 1200),
            stream(1, 1200, 1200),
            stream(2, 2400, 4),
            stream(9, 1 << 40, 1200),
            stream(10, 99_999_999, 1200),
            ack(0, vec![(0, 0)], 0),
            ack(1, vec![(0, 5)], 25_000),
            ack(2, vec![(9, 12), (0, 5)], 25_000),
            ack(3, vec![(100_000_000, 100_000_001)], 1_000_000_000),
        ];
        for f in [QlogFormat::V03, QlogFormat::Ietf] {
            for dir in [Dir::Sent, Dir::Received] {
                let (mut fast, mut any) = (Buf::with_capacity(0), Buf::with_capacity(0));
                let (mut mf, mut ma) = (PacketMemos::NEW, PacketMemos::NEW);
                for (i, p) in packets.iter().enumerate() {
                    assert!(stream_only(p).is_some() || ack_only(p).is_some(), "{p:?}");
                    let t = 1_000_000 * i as u64 + 7;
                    packet(&mut fast, f, dir, &mut mf, t, 1250, p, true);
                    any_packet(&mut any, f, dir, &mut ma, t, 1250, p, true);
                }
                assert_eq!(
                    String::from_utf8_lossy(fast.text()),
                    String::from_utf8_lossy(any.text()),
                    "{f:?}"
                );
            }
        }
    }

    /// The inline test that skips a `metrics_updated` call agrees with the record: it holds
    /// exactly when the record would write nothing, as each written field changes on its own.
    #[test]
    fn metrics_unchanged_agrees_with_the_record() {
        let last = Metrics {
            cwnd: 12_000,
            bytes_in_flight: 6_000,
            smoothed_rtt: Dur(50_000),
            min_rtt: Dur(40_000),
            latest_rtt: Dur(55_000),
            pacing_rate_bps: 12_950_237_207,
            delivery_rate_bps: 9_000_000_000,
            ssthresh: 30_000,
        };
        let changes: [fn(&mut Metrics); 9] = [
            |_| {},
            |m| m.delivery_rate_bps += 1,
            |m| m.cwnd += 1,
            |m| m.bytes_in_flight -= 1,
            |m| m.smoothed_rtt.0 += 1,
            |m| m.min_rtt.0 -= 1,
            |m| m.latest_rtt.0 += 1,
            |m| m.pacing_rate_bps += 1,
            |m| m.ssthresh -= 1,
        ];
        for (i, change) in changes.iter().enumerate() {
            let mut m = last;
            change(&mut m);
            let (mut buf, mut memos) = (Buf::with_capacity(0), MetricMemos::NEW);
            metrics(&mut buf, QlogFormat::V03, &mut memos, 7, &m, Some(&last));
            assert_eq!(metrics_unchanged(&m, &last), buf.len() == 0, "change {i}");
            assert_eq!(buf.len() == 0, i < 2, "change {i}");
        }
    }

    #[test]
    fn padding_shortcut_matches_the_codec() {
        let mut packets = Vec::new();
        for pn_len in 0..=4u8 {
            for len in [0, 1, 2, 3, 4, 5, 1200] {
                for offset in [0, 1 << 40] {
                    let data = Some(DataChunk {
                        offset,
                        len,
                        fin: len == 0,
                    });
                    packets.push(Packet {
                        pn_len,
                        data,
                        ..Default::default()
                    });
                }
            }
            for ranges in [vec![], vec![(0, 0)], vec![(5, 9), (0, 2)]] {
                let ack = Some(Box::new(AckFrame {
                    ranges: ranges.into(),
                    ..Default::default()
                }));
                packets.push(Packet {
                    pn_len,
                    ack,
                    ..Default::default()
                });
            }
            packets.push(Packet {
                pn_len,
                ping: true,
                ..Default::default()
            });
            packets.push(Packet {
                pn_len,
                ..Default::default()
            });
        }
        for p in &packets {
            assert_eq!(padding(p), QuicProfile::default().padding_len(p), "{p:?}");
        }
    }
}
