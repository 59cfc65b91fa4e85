//! The tables of a trace, built event by event as `_Builder` in `python/cclab/traces/qlog.py` builds them:
//! same columns, same rules, same floating-point operations in the same order.

use super::header::Header;
use super::pn_sets::{LostSet, Unacked, UnackedSet};
use super::pyvalue::{as_str, num, object, py_str, truthy, Unsupported};
use super::value::{Json, Num, Obj};
use std::collections::HashMap;

/// RFC 9002 §6.2.2's initial RTT, s: a first smoothed RTT of this number means the trace writes seconds.
const INITIAL_RTT_S: f64 = 0.333;
/// Frame type of ACK_FREQUENCY (draft-ietf-quic-ack-frequency §4), as `raw_frame_type`/`frame_type_bytes`.
const ACK_FREQUENCY_TYPE: f64 = 175.0;
/// Frames that do not make a packet ack-eliciting (RFC 9002 §2).
const NON_ELICITING: [&str; 3] = ["ack", "padding", "connection_close"];
/// Frames an ACK-only packet may hold besides the ACK (RFC 9000 §13.2.4 PINGs).
const ACK_ONLY_KINDS: [&str; 3] = ["ack", "padding", "ping"];
/// Metrics that carry a time, and their columns (indices into `METRICS` after `time_s`).
const RTT_FIELDS: [(&str, usize); 3] = [("smoothed_rtt", 4), ("min_rtt", 5), ("latest_rtt", 6)];
/// Metrics in bytes or bit/s; picoquic writes `cwnd`, the schemas `congestion_window`.
const SIZE_FIELDS: [(&str, usize); 5] = [
    ("congestion_window", 0),
    ("cwnd", 0),
    ("bytes_in_flight", 1),
    ("ssthresh", 2),
    ("pacing_rate", 3),
];

/// Distinct event names looked up by a scan before `Builder::count` switches to a hash map.
const SCAN_NAMES: usize = 32;

const PACKETS: &[&str] = &["time_s", "pn", "size", "stream_bytes", "ack_eliciting", "ack_only"];
const METRICS: &[&str] = &[
    "time_s",
    "cwnd_bytes",
    "bytes_in_flight",
    "ssthresh_bytes",
    "pacing_rate_bps",
    "srtt_s",
    "min_rtt_s",
    "latest_rtt_s",
];
const ACKS: &[&str] = &[
    "time_s",
    "size",
    "newly_acked",
    "newly_acked_bytes",
    "largest_pn",
    "largest_sent_s",
];

/// Named columns of equal length.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub names: &'static [&'static str],
    pub columns: Vec<Vec<f64>>,
}

impl Table {
    fn new(names: &'static [&'static str]) -> Self {
        Table {
            names,
            columns: vec![Vec::new(); names.len()],
        }
    }

    fn push(&mut self, row: &[f64]) {
        for (col, &v) in self.columns.iter_mut().zip(row) {
            col.push(v);
        }
    }

    fn last(&self, column: usize) -> f64 {
        *self.columns[column].last().expect("a row was just pushed")
    }

    /// Rows so far.
    pub fn len(&self) -> usize {
        self.columns.first().map_or(0, Vec::len)
    }

    /// No rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Everything `QlogTrace` holds, as `cclab.traces.qlog.QlogTrace` documents each table.
#[derive(Debug, Clone, PartialEq)]
pub struct QlogTables {
    pub vantage: String,
    pub protocol: String,
    pub schema: String,
    /// The records of `parameters_set` events, whole: Python merges their `data` with its own JSON decoder,
    /// so the values (integers of any size included) are exactly Python's.
    pub param_records: Vec<String>,
    pub sent: Table,
    pub received: Table,
    pub metrics: Table,
    pub lost: Table,
    pub lost_triggers: Vec<String>,
    pub acked_after_loss: Table,
    pub ack_frequency: Table,
    pub acks: Table,
    pub pto_expired_s: Vec<f64>,
    pub nofeedback_expired_s: Vec<f64>,
    pub states: Vec<(f64, String)>,
    /// Events per short name, in order of first appearance.
    pub event_counts: Vec<(String, u64)>,
}

pub(super) struct Builder {
    unit_s: f64,
    rtt_unit_s: Option<f64>,
    /// RTT fields still hold the initial 333 ms a stack logs before its first sample.
    placeholder: bool,
    pto_count: f64,
    current: [f64; 7],
    /// Events per short name in order of first appearance. A trace has a dozen names, and a scan beats hashing;
    /// past `SCAN_NAMES` (only a hostile file has that many) `index` finds them, so work per event stays bounded.
    counts: Vec<(String, u64)>,
    index: HashMap<String, usize>,
    /// Sent and not yet acknowledged (a packet enters only above the largest so far: packet numbers only grow,
    /// RFC 9000 §12.3).
    unacked: UnackedSet,
    lost: LostSet,
    t: QlogTables,
}

impl Builder {
    pub(super) fn new(header: &Header, rtt_unit_s: Option<f64>) -> Self {
        Builder {
            unit_s: header.unit_s,
            rtt_unit_s,
            placeholder: false,
            pto_count: 0.0,
            current: [f64::NAN; 7],
            counts: Vec::new(),
            index: HashMap::new(),
            unacked: UnackedSet::default(),
            lost: LostSet::default(),
            t: QlogTables {
                vantage: header.vantage.clone(),
                protocol: header.protocol.clone(),
                schema: header.schema.clone(),
                param_records: Vec::new(),
                sent: Table::new(PACKETS),
                received: Table::new(PACKETS),
                metrics: Table::new(METRICS),
                lost: Table::new(&["time_s", "pn"]),
                lost_triggers: Vec::new(),
                acked_after_loss: Table::new(&["time_s", "pn"]),
                ack_frequency: Table::new(&["time_s", "threshold", "max_ack_delay_s"]),
                acks: Table::new(ACKS),
                pto_expired_s: Vec::new(),
                nofeedback_expired_s: Vec::new(),
                states: Vec::new(),
                event_counts: Vec::new(),
            },
        }
    }

    /// One event: its short name, time (s), `data` object and the record it came from.
    pub(super) fn add(&mut self, name: &str, time_s: f64, d: &Obj<'_>, record: &[u8]) -> Result<(), Unsupported> {
        self.count(name);
        match name {
            "packet_sent" => self.on_packet_sent(time_s, d),
            "packet_received" => self.on_packet_received(time_s, d),
            "packet_lost" => self.on_packet_lost(time_s, d),
            "loss_timer_updated" => {
                self.on_loss_timer_updated(time_s, d);
                Ok(())
            }
            "metrics_updated" => self.on_metrics_updated(time_s, d),
            "congestion_state_updated" => {
                let new = d.get("new").map(py_str).transpose()?.unwrap_or_default();
                self.t.states.push((time_s, new));
                Ok(())
            }
            "parameters_set" | "recovery_parameters_set" => {
                self.t.param_records.push(String::from_utf8_lossy(record).into_owned());
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn count(&mut self, name: &str) {
        let found = if self.index.is_empty() {
            self.counts.iter().position(|(n, _)| n == name)
        } else {
            self.index.get(name).copied()
        };
        if let Some(i) = found {
            self.counts[i].1 += 1;
            return;
        }
        self.counts.push((name.to_owned(), 1));
        if !self.index.is_empty() {
            self.index.insert(name.to_owned(), self.counts.len() - 1);
        } else if self.counts.len() > SCAN_NAMES {
            self.index = self
                .counts
                .iter()
                .enumerate()
                .map(|(i, (n, _))| (n.clone(), i))
                .collect();
        }
    }

    /// The tables; `None` when no event was read.
    pub(super) fn finish(mut self) -> Option<QlogTables> {
        if self.counts.is_empty() {
            return None;
        }
        // Python's sorted(): stable, and -0.0 equals 0.0 (no total order).
        self.t
            .pto_expired_s
            .sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        self.t.event_counts = self.counts;
        Some(self.t)
    }

    fn on_packet_sent(&mut self, time_s: f64, d: &Obj<'_>) -> Result<(), Unsupported> {
        let Some(frames) = packet_row(&mut self.t.sent, time_s, d)? else {
            return Ok(());
        };
        let pn = int(self.t.sent.last(1));
        if pn >= 0.0 && self.unacked.last().is_none_or(|last| pn > last) {
            let size = self.t.sent.last(2);
            self.unacked.insert(pn, Unacked { size, time_s });
        }
        for fr in frames {
            let is_freq = as_str(fr.get("frame_type")) == Some("unknown")
                && [fr.get("raw_frame_type"), fr.get("frame_type_bytes")]
                    .iter()
                    .any(|v| is_number(*v, ACK_FREQUENCY_TYPE));
            if is_freq {
                let threshold = or_num(num(fr.get("ack_eliciting_threshold"))?, 0.0);
                let delay = or_num(num(fr.get("request_max_ack_delay"))?, 0.0) * 1e-3;
                self.t.ack_frequency.push(&[time_s, threshold, delay]);
            }
        }
        Ok(())
    }

    fn on_packet_received(&mut self, time_s: f64, d: &Obj<'_>) -> Result<(), Unsupported> {
        let Some(frames) = packet_row(&mut self.t.received, time_s, d)? else {
            return Ok(());
        };
        for fr in frames {
            if as_str(fr.get("frame_type")) != Some("ack") {
                continue;
            }
            let ranges = range_bounds(fr.get("acked_ranges"))?;
            if !self.lost.is_empty() {
                self.check_spurious(time_s, &ranges);
            }
            let size = self.t.received.last(2);
            self.newly_acked(time_s, size, &ranges);
        }
        Ok(())
    }

    /// One `acks` row: what this ACK frame covers that no earlier one did.
    fn newly_acked(&mut self, time_s: f64, size: f64, ranges: &[(f64, f64)]) {
        let (mut count, mut nbytes, mut largest, mut largest_sent) = (0u64, 0.0, -1.0, f64::NAN);
        let mut largest_new = -1.0;
        for &(lo, hi) in ranges {
            if hi > largest {
                largest = hi; // Python's max(largest, hi) keeps the first of equals
            }
            let mut top = None;
            self.unacked.take_range(int(lo), int(hi), |pn, u| {
                nbytes += u.size;
                count += 1;
                top = Some((pn, u.time_s));
            });
            if let Some((pn, sent)) = top.filter(|&(pn, _)| pn >= largest_new) {
                (largest_new, largest_sent) = (pn, sent);
            }
        }
        self.t
            .acks
            .push(&[time_s, size, count as f64, nbytes, largest, largest_sent]);
    }

    fn check_spurious(&mut self, time_s: f64, ranges: &[(f64, f64)]) {
        for &(lo, hi) in ranges {
            let table = &mut self.t.acked_after_loss;
            self.lost.take_range(int(lo), int(hi), |pn| table.push(&[time_s, pn]));
        }
    }

    fn on_packet_lost(&mut self, time_s: f64, d: &Obj<'_>) -> Result<(), Unsupported> {
        let hdr = object(d.get("header"));
        if !application_space(d, hdr) {
            return Ok(());
        }
        let pn = num(hdr.get("packet_number"))?;
        let trigger = d.get("trigger").map(py_str).transpose()?.unwrap_or_default();
        self.t.lost.push(&[time_s, pn.unwrap_or(-1.0)]);
        if trigger == "pto_expired" {
            self.t.pto_expired_s.push(time_s);
        }
        self.t.lost_triggers.push(trigger);
        if let Some(pn) = pn {
            self.lost.insert(int(pn));
        }
        Ok(())
    }

    fn on_loss_timer_updated(&mut self, time_s: f64, d: &Obj<'_>) {
        let kind = if truthy(d.get("event_type")) {
            d.get("event_type")
        } else {
            d.get("type")
        };
        if as_str(kind) != Some("expired") {
            return;
        }
        match as_str(d.get("timer_type")) {
            Some("pto") => self.t.pto_expired_s.push(time_s),
            Some("nofeedback") => self.t.nofeedback_expired_s.push(time_s),
            _ => {}
        }
    }

    fn on_metrics_updated(&mut self, time_s: f64, d: &Obj<'_>) -> Result<(), Unsupported> {
        let mut changed = false;
        let first = num(d.get("smoothed_rtt"))?;
        if let (None, Some(first)) = (self.rtt_unit_s, first) {
            self.placeholder = (first - INITIAL_RTT_S).abs() < 1e-6;
            self.rtt_unit_s = Some(if self.placeholder { 1.0 } else { self.unit_s });
        }
        // Python's `self.rtt_unit_s or self.header.unit_s`: a unit of 0 counts as none.
        let unit = self.rtt_unit_s.filter(|&u| u != 0.0).unwrap_or(self.unit_s);
        for (key, col) in RTT_FIELDS {
            if let Some(v) = num(d.get(key))? {
                let v = v * unit;
                // The initial RTT logged before any sample is not a measurement (RFC 9002 §5.3).
                self.placeholder &= (v - INITIAL_RTT_S).abs() < 1e-6;
                self.current[col] = if self.placeholder { f64::NAN } else { v };
                changed = true;
            }
        }
        // quinn logs no PTO event, but counts PTOs in its metrics: each increase is an expiry.
        if let Some(pto) = num(d.get("pto_count"))? {
            if pto > self.pto_count {
                self.t.pto_expired_s.push(time_s);
            }
            self.pto_count = pto;
        }
        for (key, col) in SIZE_FIELDS {
            if let Some(v) = num(d.get(key))? {
                self.current[col] = v;
                changed = true;
            }
        }
        if changed {
            let c = self.current;
            self.t.metrics.push(&[time_s, c[0], c[1], c[2], c[3], c[4], c[5], c[6]]);
        }
        Ok(())
    }
}

/// Appends a 1-RTT packet's row to `table` and returns its frames (objects only); `None` for packets of
/// other number spaces (Initial and Handshake number their packets apart, RFC 9000 §12.3).
fn packet_row<'a, 'b>(table: &mut Table, time_s: f64, d: &'a Obj<'b>) -> Result<Option<Vec<&'a Obj<'b>>>, Unsupported> {
    let hdr = object(d.get("header"));
    if !application_space(d, hdr) {
        return Ok(None);
    }
    let raw = object(d.get("raw"));
    let frames: Vec<&Obj<'b>> = iterate(d.get("frames"))?.iter().filter_map(Json::as_object).collect();
    let pn = num(hdr.get("packet_number"))?;
    // raw.length (qlog 0.3, IETF), header.packet_size (picoquic), header.length (quinn).
    let size = or_num(
        num(raw.get("length"))?,
        or_num(num(hdr.get("packet_size"))?, or_num(num(hdr.get("length"))?, 0.0)),
    );
    let mut stream = 0.0;
    let mut eliciting = false;
    let mut ack_only_kinds = true;
    let mut has_ack = false;
    for fr in &frames {
        let kind = fr.get("frame_type");
        if matches!(kind, Some(Json::Arr(_) | Json::Obj(_))) {
            return Err(Unsupported("an unhashable frame_type"));
        }
        let kind = as_str(kind);
        if kind == Some("stream") {
            let fraw = object(fr.get("raw"));
            stream += or_num(num(fr.get("length"))?, or_num(num(fraw.get("payload_length"))?, 0.0));
        }
        eliciting |= !kind.is_some_and(|k| NON_ELICITING.contains(&k));
        has_ack |= kind == Some("ack");
        ack_only_kinds &= kind.is_some_and(|k| ACK_ONLY_KINDS.contains(&k));
    }
    let ack_only = has_ack && ack_only_kinds;
    table.push(&[
        time_s,
        pn.unwrap_or(-1.0),
        size,
        stream,
        f64::from(u8::from(eliciting)),
        f64::from(u8::from(ack_only)),
    ]);
    Ok(Some(frames))
}

/// A 1-RTT (or untyped) packet: the number space that carries the data.
fn application_space(d: &Obj<'_>, hdr: &Obj<'_>) -> bool {
    let kind = if hdr.contains_key("packet_type") {
        hdr.get("packet_type")
    } else if d.contains_key("packet_type") {
        d.get("packet_type")
    } else {
        return true;
    };
    matches!(as_str(kind), Some("1RTT" | "1rtt" | "0RTT"))
}

/// `(low, high)` of each well-formed ACK range (`[n]` or `[lo, hi]`); anything else is skipped.
fn range_bounds(ranges: Option<&Json<'_>>) -> Result<Vec<(f64, f64)>, Unsupported> {
    let mut out = Vec::new();
    for r in iterate(ranges)? {
        let Json::Arr(r) = r else { continue };
        let (Some(first), Some(last)) = (r.first(), r.last()) else {
            continue;
        };
        if let (Some(lo), Some(hi)) = (num(Some(first))?, num(Some(last))?) {
            out.push((lo, hi));
        }
    }
    Ok(out)
}

/// The elements Python's `for x in (v or [])` visits that can be objects or lists: a string or an object
/// iterates over strings, so none; a number or `true` cannot be iterated (a TypeError in Python).
fn iterate<'v, 'a>(v: Option<&'v Json<'a>>) -> Result<&'v [Json<'a>], Unsupported> {
    match v {
        Some(Json::Arr(a)) => Ok(a),
        Some(Json::Num(_) | Json::Bool(_)) if truthy(v) => Err(Unsupported("a number where a list belongs")),
        _ => Ok(&[]),
    }
}

/// Python's `v == x` for a small integer `x` (exact as a float): true for a number of that value, false for
/// booleans and the rest.
fn is_number(v: Option<&Json<'_>>, x: f64) -> bool {
    match v {
        Some(Json::Num(Num::U(u))) => *u as f64 == x,
        Some(Json::Num(Num::I(i))) => *i as f64 == x,
        Some(Json::Num(Num::F(f))) => *f == x,
        _ => false,
    }
}

/// Python's `a or b` for `_num` results: `None`, 0.0 and -0.0 fall through.
fn or_num(a: Option<f64>, b: f64) -> f64 {
    match a {
        Some(x) if x != 0.0 => x,
        _ => b,
    }
}

/// Python's `int(x)` of a finite float, as a float (exact: a truncated double is an integer); + 0.0 turns -0.0
/// into the 0.0 that `float(int(-0.5))` gives.
fn int(x: f64) -> f64 {
    x.trunc() + 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_counts_keep_first_appearance_order_past_the_scan_limit() {
        let header = Header {
            vantage: String::new(),
            protocol: String::new(),
            schema: String::new(),
            unit_s: 1e-3,
            time_format: super::super::header::TimeFormat::Relative,
        };
        let mut b = Builder::new(&header, None);
        let names: Vec<String> = (0..100).map(|i| format!("e{i}")).collect();
        for round in 0..3 {
            for (i, n) in names.iter().enumerate().skip(round) {
                b.add(n, i as f64, &Obj::EMPTY, b"").unwrap();
            }
        }
        let t = b.finish().unwrap();
        assert_eq!(t.event_counts.len(), 100);
        assert_eq!(t.event_counts[0], ("e0".to_string(), 1));
        assert_eq!(t.event_counts[50], ("e50".to_string(), 3));
        assert_eq!(t.event_counts[99], ("e99".to_string(), 3));
    }
}
