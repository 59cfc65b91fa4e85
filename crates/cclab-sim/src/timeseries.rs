//! Time series sampled at a fixed resolution: one row per (sample time, flow) and one per
//! (sample time, link), in one long table of f64 columns so the Python binding hands them to
//! numpy/polars without copying row by row.
//!
//! Rows go to a CSV sink as they are produced (a buffered writer flushes them in chunks), so a
//! long run's series never has to fit in memory; keeping them in memory as well is optional.
//! A value that does not exist (a link column on a flow row, an RTT before the first sample) is
//! NaN in memory and an empty cell in the CSV.

use cclab_core::endpoint::Metrics;
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::FlowId;
use std::io::{self, Write};

/// Column names, in order, with their units in the names. `flow` is the flow id, `link` the
/// link index (as in `summary.json`'s `links`); each row has exactly one of them.
pub const COLUMNS: [&str; 18] = [
    "time_s",
    "flow",
    "cwnd_bytes",
    "bytes_in_flight",
    "srtt_s",
    "min_rtt_s",
    "pacing_rate_bps",
    "delivery_rate_bps",
    "bytes_sent",
    "bytes_acked",
    "goodput_bps",
    "link",
    "queue_bytes",
    "queue_packets",
    "sojourn_s",
    "drops",
    "ecn_marks",
    "utilisation",
];

/// One row, in [`COLUMNS`] order.
type Row = [f64; COLUMNS.len()];

/// CSV bytes a row takes at most (18 values of at most 24 characters and their separators).
pub const MAX_CSV_ROW_BYTES: u64 = 18 * 25;

/// Most rows [`Sampler::reserve_rows`] reserves ahead (at 8 bytes a column, 576 MB): beyond, the columns grow
/// as rows come, so a long run that ends early holds little address space it never uses.
pub const MAX_RESERVED_ROWS: u64 = 1 << 22;

/// `ns` nanoseconds in seconds, correctly rounded (one division of exact values; multiplying by
/// 1e-9 would be off by an ulp for values like 20.5 ms).
pub(crate) fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// Cumulative counters of a flow sampled with its sender's metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SampleCounters {
    /// IP-layer bytes the sender has sent so far.
    pub bytes_sent: u64,
    /// Bytes acknowledged so far.
    pub bytes_acked: u64,
    /// Application bytes the receiver has delivered in order so far.
    pub bytes_delivered: u64,
}

/// One link's state at a sample time: instantaneous queue, cumulative counters.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkSample {
    /// Bytes waiting in the queue.
    pub queue_bytes: u64,
    /// Packets waiting in the queue.
    pub queue_packets: u64,
    /// Packets dropped so far (queue and loss model).
    pub drops: u64,
    /// Packets the queue marked CE so far.
    pub ecn_marks: u64,
    /// Packets that left the queue so far, and their total time in it (a sum that wraps at 2^64 ns:
    /// read as a difference, `LinkStats::sojourn`).
    pub dequeued: (u64, Dur),
    /// Capacity used so far and capacity offered so far, in any one unit (busy time over elapsed
    /// time, or trace bytes used over trace bytes offered).
    pub used_of: (f64, f64),
}

/// Columns of equal length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeSeries {
    cols: [Vec<f64>; COLUMNS.len()],
}

impl TimeSeries {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.cols[0].len()
    }

    /// No rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends `rows`, one column at a time.
    fn push_rows(&mut self, rows: &[Row]) {
        for (c, col) in self.cols.iter_mut().enumerate() {
            col.extend(rows.iter().map(|r| r[c]));
        }
    }

    /// `(name, values)` for every column, in [`COLUMNS`] order.
    pub fn columns(&self) -> Vec<(&'static str, &[f64])> {
        COLUMNS
            .iter()
            .zip(&self.cols)
            .map(|(&n, c)| (n, c.as_slice()))
            .collect()
    }

    /// Writes CSV: a header line of column names, then one line per row (see `write_row`).
    pub fn to_csv<W: Write>(&self, w: &mut W) -> io::Result<()> {
        write_header(w)?;
        let mut row = [0.0; COLUMNS.len()];
        for r in 0..self.len() {
            for (v, col) in row.iter_mut().zip(&self.cols) {
                *v = col[r];
            }
            write_row(w, &row)?;
        }
        Ok(())
    }
}

fn write_header<W: Write>(w: &mut W) -> io::Result<()> {
    writeln!(w, "{}", COLUMNS.join(","))
}

/// One CSV line. Numbers use Rust's shortest round-trip form, so values read back exactly and
/// output is deterministic; NaN (no value) is an empty cell.
fn write_row<W: Write>(w: &mut W, row: &Row) -> io::Result<()> {
    for (i, v) in row.iter().enumerate() {
        let sep = if i + 1 == COLUMNS.len() { '\n' } else { ',' };
        if v.is_nan() {
            write!(w, "{sep}")?;
        } else {
            write!(w, "{v}{sep}")?;
        }
    }
    Ok(())
}

/// Where the sampler's rows go.
pub struct SamplerOutput {
    /// CSV sink, header first; rows are written as they are produced.
    pub csv: Option<Box<dyn Write + Send>>,
    /// Keep every row in memory too (for `RunOutput::timeseries`).
    pub keep: bool,
}

impl Default for SamplerOutput {
    fn default() -> Self {
        SamplerOutput { csv: None, keep: true }
    }
}

/// Rows a [`Sampler`] stages before it appends them to its columns: one cache line of each column
/// a time, and a staging block of 18 lines (a larger one evicted the event loop's hot lines).
const STAGED_ROWS: usize = 8;

/// Records samples every `interval` (the engine schedules the sampling; `due` says when).
pub struct Sampler {
    interval: Dur,
    next: Time,
    series: TimeSeries,
    /// Rows not yet in `series`, appended a column at a time once `STAGED_ROWS` wait: pushing each
    /// row into 18 columns at once writes 18 streams whose large allocations all start at the same
    /// offset in a page, so they share one set of a 12-way L1 cache and evicted each other on nearly
    /// every store (with 1,000 flows, ~14 misses per row; a column at a time, ~3).
    staged: Vec<Row>,
    out: SamplerOutput,
    /// Per flow: the time and bytes delivered of its previous sample.
    prev_flow: Vec<Option<(Time, u64)>>,
    /// Per link: the time and counters of its previous sample.
    prev_link: Vec<Option<(Time, LinkSample)>>,
    /// First write error; later rows are not written.
    error: Option<io::Error>,
}

fn nan_if_zero(d: Dur) -> f64 {
    if d == Dur::ZERO {
        f64::NAN
    } else {
        secs(d.as_nanos())
    }
}

/// `a / b`, or NaN (no value) when `b` is zero.
fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        f64::NAN
    }
}

impl Sampler {
    /// A sampler with resolution `interval` that keeps its rows in memory; the first round is
    /// due at time zero.
    pub fn new(interval: Dur) -> Self {
        Self::with_output(interval, SamplerOutput::default()).expect("no sink, nothing to write")
    }

    /// A sampler whose rows go to `out` (the CSV header is written now).
    pub fn with_output(interval: Dur, mut out: SamplerOutput) -> io::Result<Self> {
        if let Some(w) = out.csv.as_mut() {
            write_header(w)?;
        }
        Ok(Sampler {
            interval,
            next: Time::ZERO,
            series: TimeSeries::default(),
            staged: Vec::with_capacity(if out.keep { STAGED_ROWS } else { 0 }),
            out,
            prev_flow: Vec::new(),
            prev_link: Vec::new(),
            error: None,
        })
    }

    /// Makes room in memory for `rows` rows (at most [`MAX_RESERVED_ROWS`]; nothing when rows are
    /// not kept): a run that knows its length fills its columns without regrowing them, each
    /// regrowth a copy of every column through the cache. Only a hint: a failed reservation
    /// leaves the columns to grow as they go.
    pub fn reserve_rows(&mut self, rows: u64) {
        if !self.out.keep {
            return;
        }
        let rows = rows.min(MAX_RESERVED_ROWS) as usize;
        for col in &mut self.series.cols {
            if col.try_reserve_exact(rows.saturating_sub(col.len())).is_err() {
                return;
            }
        }
    }

    /// Resolution.
    pub fn interval(&self) -> Dur {
        self.interval
    }

    /// When the next sampling round is due: `interval` after the latest sample.
    pub fn due(&self) -> Time {
        self.next
    }

    fn emit(&mut self, row: Row) {
        if self.out.keep {
            self.staged.push(row);
            if self.staged.len() == STAGED_ROWS {
                self.flush_staged();
            }
        }
        if let (Some(w), None) = (self.out.csv.as_mut(), &self.error) {
            if let Err(e) = write_row(w, &row) {
                self.error = Some(e);
            }
        }
    }

    /// Records one flow's state at `now`; call it for every flow in a round, then every link.
    ///
    /// RTT columns and the pacing rate have no value before the sender's first RTT sample (its
    /// metrics report zero RTTs then): the initial RTT and a rate derived from it were never
    /// measured. `goodput_bps` is the receiver's in-order delivery since the previous sample.
    pub fn sample(&mut self, now: Time, flow: FlowId, m: &Metrics, c: &SampleCounters) {
        let i = flow.0 as usize;
        if self.prev_flow.len() <= i {
            self.prev_flow.resize(i + 1, None);
        }
        let goodput = match self.prev_flow[i].replace((now, c.bytes_delivered)) {
            Some((t, bytes)) => ratio(
                c.bytes_delivered.saturating_sub(bytes) as f64 * 8.0,
                secs(now.saturating_since(t).as_nanos()),
            ),
            None => f64::NAN,
        };
        let sampled = m.smoothed_rtt > Dur::ZERO;
        let mut row = [f64::NAN; COLUMNS.len()];
        row[..11].copy_from_slice(&[
            secs(now.as_nanos()),
            flow.0 as f64,
            m.cwnd as f64,
            m.bytes_in_flight as f64,
            nan_if_zero(m.smoothed_rtt),
            nan_if_zero(m.min_rtt),
            if sampled { m.pacing_rate_bps as f64 } else { f64::NAN },
            m.delivery_rate_bps as f64,
            c.bytes_sent as f64,
            c.bytes_acked as f64,
            goodput,
        ]);
        self.emit(row);
        self.next = now + self.interval;
    }

    /// Records link number `link`'s state at `now`. `sojourn_s` is the mean time in the queue of
    /// the packets that left it since the previous sample, `utilisation` the share of capacity
    /// used since then; both have no value at the first sample or when nothing left.
    pub fn sample_link(&mut self, now: Time, link: u32, s: &LinkSample) {
        let i = link as usize;
        if self.prev_link.len() <= i {
            self.prev_link.resize(i + 1, None);
        }
        let (sojourn, utilisation) = match self.prev_link[i].replace((now, *s)) {
            Some((_, p)) => (
                ratio(
                    secs(s.dequeued.1.as_nanos().wrapping_sub(p.dequeued.1.as_nanos())),
                    s.dequeued.0.saturating_sub(p.dequeued.0) as f64,
                ),
                ratio(s.used_of.0 - p.used_of.0, s.used_of.1 - p.used_of.1).min(1.0),
            ),
            None => (f64::NAN, f64::NAN),
        };
        let mut row = [f64::NAN; COLUMNS.len()];
        row[0] = secs(now.as_nanos());
        row[11..].copy_from_slice(&[
            link as f64,
            s.queue_bytes as f64,
            s.queue_packets as f64,
            sojourn,
            s.drops as f64,
            s.ecn_marks as f64,
            utilisation,
        ]);
        self.emit(row);
        self.next = now + self.interval;
    }

    /// Moves the staged rows into the columns.
    fn flush_staged(&mut self) {
        self.series.push_rows(&self.staged);
        self.staged.clear();
    }

    /// The samples kept in memory so far.
    pub fn series(&mut self) -> &TimeSeries {
        self.flush_staged();
        &self.series
    }

    /// Flushes the CSV sink and returns the samples kept in memory.
    pub fn finish(mut self) -> io::Result<TimeSeries> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if let Some(w) = self.out.csv.as_mut() {
            w.flush()?;
        }
        Ok(self.into_series())
    }

    /// The samples kept in memory, consuming the sampler (the CSV sink is not flushed).
    pub fn into_series(mut self) -> TimeSeries {
        self.flush_staged();
        self.series
    }
}

#[cfg(test)]
#[path = "timeseries_tests.rs"]
mod tests;
