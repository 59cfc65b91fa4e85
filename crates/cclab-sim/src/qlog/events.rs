//! One qlog record per function, in either schema. Field names and types follow the `qlog`
//! crate 0.15 (draft-02) and draft-ietf-quic-qlog-quic-events-12 so strict readers parse
//! every record as a typed event.

use super::json::{push_key, push_ms, push_str, push_u64, push_varint_hex, put, RS};
use super::{QlogFormat, QlogParams, Vantage};
use cclab_core::endpoint::Metrics;
use cclab_core::wire::packet::Packet;
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

/// Per schema, each event's name with the JSON around it: `,"name":"<name>","data":{`, written
/// after the time as one precomputed fragment.
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

const V03_NAMES: Names = Names {
    parameters_set: r#","name":"transport:parameters_set","data":{"#,
    recovery_parameters_set: r#","name":"recovery:parameters_set","data":{"#,
    packet_sent: r#","name":"transport:packet_sent","data":{"#,
    packet_received: r#","name":"transport:packet_received","data":{"#,
    packet_lost: r#","name":"recovery:packet_lost","data":{"#,
    loss_timer_updated: r#","name":"recovery:loss_timer_updated","data":{"#,
    metrics_updated: r#","name":"recovery:metrics_updated","data":{"#,
    congestion_state_updated: r#","name":"recovery:congestion_state_updated","data":{"#,
};

const IETF_NAMES: Names = Names {
    parameters_set: r#","name":"quic:parameters_set","data":{"#,
    recovery_parameters_set: r#","name":"quic:recovery_parameters_set","data":{"#,
    packet_sent: r#","name":"quic:packet_sent","data":{"#,
    packet_received: r#","name":"quic:packet_received","data":{"#,
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
fn open(buf: &mut Vec<u8>, time_ns: u64, name: &str) {
    buf.push(RS);
    put(buf, "{\"time\":");
    push_ms(buf, time_ns);
    put(buf, name);
}

fn close(buf: &mut Vec<u8>) {
    put(buf, "}}\n");
}

/// The file header (first record).
pub(super) fn header(buf: &mut Vec<u8>, f: QlogFormat, vantage: Vantage, title: &str, profile: &Profile) {
    buf.push(RS);
    match f {
        QlogFormat::V03 => put(buf, "{\"qlog_version\":\"0.3\",\"qlog_format\":\"JSON-SEQ\",\"title\":"),
        QlogFormat::Ietf => put(
            buf,
            "{\"file_schema\":\"urn:ietf:params:qlog:file:sequential\",\
             \"serialization_format\":\"application/qlog+json-seq\",\"title\":",
        ),
    }
    push_str(buf, title);
    put(buf, ",\"trace\":{\"title\":");
    push_str(buf, title);
    put(buf, ",\"vantage_point\":{\"name\":\"");
    put(buf, vantage.name());
    put(buf, "\",\"type\":\"");
    put(buf, vantage.qlog_type());
    put(buf, "\"},\"common_fields\":{");
    // Times are ms since the start of the run: draft-02 says so with a relative format and the
    // shared `REFERENCE_TIME_MS`; the IETF schema with a monotonic clock whose epoch is unknown.
    match f {
        QlogFormat::V03 => {
            put(buf, "\"protocol_type\":[\"");
            put(buf, protocol(profile));
            put(buf, "\"],\"reference_time\":");
            put(buf, &format!("{REFERENCE_TIME_MS:.1}"));
            put(buf, ",\"time_format\":\"relative\"},");
            put(buf, "\"configuration\":{\"time_offset\":0.0}}}\n");
        }
        QlogFormat::Ietf => {
            put(buf, "\"protocol_types\":[\"");
            put(buf, protocol(profile));
            put(
                buf,
                "\"],\"reference_time\":{\"clock_type\":\"monotonic\",\"epoch\":\"unknown\"},",
            );
            put(buf, "\"time_format\":\"relative_to_epoch\"},\"event_schemas\":[\"");
            put(buf, IETF_QUIC_SCHEMA);
            put(buf, "\"]}}\n");
        }
    }
}

/// `parameters_set` (always) and `recovery_parameters_set` (when the sender names a controller
/// or an initial window), both at time 0.
pub(super) fn parameters(buf: &mut Vec<u8>, f: QlogFormat, p: &QlogParams) {
    open(buf, 0, names(f).parameters_set);
    put(
        buf,
        match f {
            QlogFormat::V03 => "\"owner\":\"local\"",
            QlogFormat::Ietf => "\"initiator\":\"local\"",
        },
    );
    if let Profile::Quic(q) = &p.profile {
        push_key(buf, false, "max_udp_payload_size");
        push_u64(buf, q.max_udp_payload as u64);
        push_key(buf, false, "ack_delay_exponent");
        push_u64(buf, ACK_DELAY_EXPONENT as u64);
    }
    // RFC 9000 §18.2: max_ack_delay is an integer number of milliseconds; round up so the
    // advertised bound is never below the real one.
    push_key(buf, false, "max_ack_delay");
    push_u64(
        buf,
        p.max_ack_delay
            .as_nanos()
            .div_ceil(1_000_000)
            .min(MAX_ACK_DELAY_LIMIT_MS),
    );
    push_key(buf, false, "unknown_parameters");
    buf.push(b'[');
    if let Some(d) = p.min_ack_delay {
        put(buf, "{\"id\":");
        push_u64(buf, MIN_ACK_DELAY_ID);
        put(buf, ",\"value\":\"");
        // draft-ietf-quic-ack-frequency §3: a varint in microseconds.
        push_varint_hex(buf, d.as_micros());
        put(buf, "\"}");
    }
    buf.push(b']');
    close(buf);

    if p.cc_algorithm.is_none() && p.initial_cwnd_bytes.is_none() {
        return;
    }
    open(buf, 0, names(f).recovery_parameters_set);
    push_key(buf, true, "max_datagram_size");
    push_u64(buf, p.profile.mss() as u64);
    if let Some(w) = p.initial_cwnd_bytes {
        push_key(buf, false, "initial_congestion_window");
        push_u64(buf, w);
    }
    if let Some(cc) = &p.cc_algorithm {
        // Extension field (qlog allows them; typed readers skip it).
        push_key(buf, false, "cc_algorithm");
        push_str(buf, cc);
    }
    close(buf);
}

fn packet_header(buf: &mut Vec<u8>, pn: u64) {
    put(buf, "\"header\":{\"packet_type\":\"1RTT\",\"packet_number\":");
    push_u64(buf, pn);
    buf.push(b'}');
}

/// `packet_sent` / `packet_received`: header, IP-layer length, frames.
pub(super) fn packet(buf: &mut Vec<u8>, f: QlogFormat, dir: Dir, time_ns: u64, size: u32, p: &Packet, quic: bool) {
    let n = names(f);
    open(
        buf,
        time_ns,
        if let Dir::Sent = dir {
            n.packet_sent
        } else {
            n.packet_received
        },
    );
    packet_header(buf, p.pn);
    put(buf, ",\"raw\":{\"length\":");
    push_u64(buf, size as u64);
    put(buf, "},\"frames\":[");
    frames(buf, f, p, quic);
    buf.push(b']');
    close(buf);
}

/// Frames in codec order: ACK, ACK_FREQUENCY, IMMEDIATE_ACK, PING, STREAM, PADDING.
fn frames(buf: &mut Vec<u8>, f: QlogFormat, p: &Packet, quic: bool) {
    let start = buf.len();
    let sep = |buf: &mut Vec<u8>| {
        if buf.len() > start {
            buf.push(b',');
        }
    };
    if let Some(ack) = &p.ack {
        sep(buf);
        put(buf, "{\"frame_type\":\"ack\",\"ack_delay\":");
        push_ms(buf, ack.ack_delay_ns);
        put(buf, ",\"acked_ranges\":[");
        // Ascending, as qlog examples and quiche write them; ranges are stored highest first.
        for (i, &(lo, hi)) in ack.ranges.iter().rev().enumerate() {
            if i > 0 {
                buf.push(b',');
            }
            buf.push(b'[');
            push_u64(buf, lo);
            // quic-events -12 writes a one-packet range as [n]; draft-02 readers want pairs.
            if lo != hi || f == QlogFormat::V03 {
                buf.push(b',');
                push_u64(buf, hi);
            }
            buf.push(b']');
        }
        buf.push(b']');
        if let Some(&[ect0, ect1, ce]) = ack.ecn.as_deref() {
            for (k, v) in [("ect1", ect1), ("ect0", ect0), ("ce", ce)] {
                push_key(buf, false, k);
                push_u64(buf, v);
            }
        }
        buf.push(b'}');
    }
    // Neither schema has a typed ACK_FREQUENCY or IMMEDIATE_ACK frame: they are typed
    // `unknown` frames carrying the frame type, plus the draft's field names as extensions.
    if let Some(af) = &p.ack_frequency {
        sep(buf);
        unknown_frame(buf, f, ACK_FREQUENCY_TYPE);
        push_key(buf, false, "sequence_number");
        push_u64(buf, af.sequence);
        push_key(buf, false, "ack_eliciting_threshold");
        push_u64(buf, af.ack_eliciting_threshold);
        push_key(buf, false, "request_max_ack_delay");
        push_ms(buf, af.request_max_ack_delay_us * 1_000);
        push_key(buf, false, "reordering_threshold");
        push_u64(buf, af.reordering_threshold);
        buf.push(b'}');
    }
    if p.immediate_ack {
        sep(buf);
        unknown_frame(buf, f, IMMEDIATE_ACK_TYPE);
        buf.push(b'}');
    }
    if p.ping {
        sep(buf);
        put(buf, "{\"frame_type\":\"ping\"}");
    }
    if let Some(d) = &p.data {
        sep(buf);
        put(buf, "{\"frame_type\":\"stream\",\"stream_id\":0,\"offset\":");
        push_u64(buf, d.offset);
        if f == QlogFormat::V03 {
            push_key(buf, false, "length");
            push_u64(buf, d.len as u64);
        }
        if d.fin {
            put(buf, ",\"fin\":true");
        }
        if f == QlogFormat::Ietf {
            put(buf, ",\"raw\":{\"payload_length\":");
            push_u64(buf, d.len as u64);
            buf.push(b'}');
        }
        buf.push(b'}');
    }
    // Padding depends only on the packet-number length and the frames (RFC 9001 §5.4.2), not
    // on the profile's other parameters.
    let pad = if quic { QuicProfile::default().padding_len(p) } else { 0 };
    if pad > 0 {
        sep(buf);
        put(
            buf,
            match f {
                QlogFormat::V03 => "{\"frame_type\":\"padding\",\"payload_length\":",
                QlogFormat::Ietf => "{\"frame_type\":\"padding\",\"raw\":{\"payload_length\":",
            },
        );
        push_u64(buf, pad as u64);
        put(buf, if f == QlogFormat::Ietf { "}}" } else { "}" });
    }
}

/// Opens `{"frame_type":"unknown",<type field>:ty` (left open for extension fields).
fn unknown_frame(buf: &mut Vec<u8>, f: QlogFormat, ty: u64) {
    put(
        buf,
        match f {
            QlogFormat::V03 => "{\"frame_type\":\"unknown\",\"raw_frame_type\":",
            QlogFormat::Ietf => "{\"frame_type\":\"unknown\",\"frame_type_bytes\":",
        },
    );
    push_u64(buf, ty);
}

/// `packet_lost` with its trigger (`reordering_threshold`, `time_threshold`, `pto_expired`).
pub(super) fn packet_lost(buf: &mut Vec<u8>, f: QlogFormat, time_ns: u64, pn: u64, trigger: &str) {
    open(buf, time_ns, names(f).packet_lost);
    packet_header(buf, pn);
    push_key(buf, false, "trigger");
    push_str(buf, trigger);
    close(buf);
}

/// `loss_timer_updated` for an expired probe timeout (RFC 9002 §6.2): `timer_type` `pto`, `event_type`
/// `expired`, in the application-data number space (the only one the endpoints model).
pub(super) fn pto_expired(buf: &mut Vec<u8>, f: QlogFormat, time_ns: u64) {
    open(buf, time_ns, names(f).loss_timer_updated);
    put(
        buf,
        "\"timer_type\":\"pto\",\"packet_number_space\":\"application_data\",\"event_type\":\"expired\"",
    );
    close(buf);
}

/// `loss_timer_updated` for the TFRC nofeedback timer (RFC 5348 §4.4); qlog has no DCCP timer type, so it
/// is named `nofeedback` and has no packet number space.
pub(super) fn nofeedback_expired(buf: &mut Vec<u8>, f: QlogFormat, time_ns: u64) {
    open(buf, time_ns, names(f).loss_timer_updated);
    put(buf, "\"timer_type\":\"nofeedback\",\"event_type\":\"expired\"");
    close(buf);
}

/// Reads one metric as an integer (ns for RTTs).
type MetricField = fn(&Metrics) -> u64;

/// `metrics_updated` with the fields that differ from `last` (all set fields when `last` is
/// `None`); writes nothing when none changed. Unset values (RTTs before a sample, pacing rate
/// 0, ssthresh `u64::MAX`) are never written.
pub(super) fn metrics(buf: &mut Vec<u8>, f: QlogFormat, time_ns: u64, m: &Metrics, last: Option<&Metrics>) {
    let changed = |get: MetricField| match last {
        None => true,
        Some(l) => get(l) != get(m),
    };
    let start = buf.len();
    open(buf, time_ns, names(f).metrics_updated);
    let body = buf.len();
    let rtts: [(&str, MetricField); 3] = [
        ("min_rtt", |m| m.min_rtt.as_nanos()),
        ("smoothed_rtt", |m| m.smoothed_rtt.as_nanos()),
        ("latest_rtt", |m| m.latest_rtt.as_nanos()),
    ];
    for (key, get) in rtts {
        if get(m) > 0 && changed(get) {
            push_key(buf, buf.len() == body, key);
            push_ms(buf, get(m));
        }
    }
    let counts: [(&str, MetricField, u64); 4] = [
        // cwnd and bytes in flight are always set; MAX only marks an unbounded window.
        ("congestion_window", |m| m.cwnd, u64::MAX),
        ("bytes_in_flight", |m| m.bytes_in_flight, u64::MAX),
        ("ssthresh", |m| m.ssthresh, u64::MAX),
        ("pacing_rate", |m| m.pacing_rate_bps, 0),
    ];
    for (key, get, unset) in counts {
        if get(m) != unset && changed(get) {
            push_key(buf, buf.len() == body, key);
            push_u64(buf, get(m));
        }
    }
    if buf.len() == body {
        buf.truncate(start);
    } else {
        close(buf);
    }
}

/// `congestion_state_updated` from `old` to `new`.
pub(super) fn congestion_state(buf: &mut Vec<u8>, f: QlogFormat, time_ns: u64, old: &str, new: &str) {
    open(buf, time_ns, names(f).congestion_state_updated);
    push_key(buf, true, "old");
    push_str(buf, old);
    push_key(buf, false, "new");
    push_str(buf, new);
    close(buf);
}
