//! Per-flow time series sampled at a fixed resolution, kept as f64 columns so the Python
//! binding hands them to numpy/polars without copying row by row (polars writes the parquet).

use cclab_core::endpoint::Metrics;
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::FlowId;
use std::io::{self, Write};

/// Column names, in order, with their units in the names. `flow` is the flow id.
pub const COLUMNS: [&str; 10] = [
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
];

/// `ns` nanoseconds in seconds, correctly rounded (one division of exact values; multiplying by
/// 1e-9 would be off by an ulp for values like 20.5 ms).
pub(crate) fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// Cumulative counters sampled with the metrics.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SampleCounters {
    /// IP-layer bytes the sender has sent so far.
    pub bytes_sent: u64,
    /// Bytes acknowledged so far.
    pub bytes_acked: u64,
}

/// Columns of equal length, one row per (sample time, flow).
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

    /// Appends one row; see [`COLUMNS`] for units.
    pub fn push(&mut self, now: Time, flow: FlowId, m: &Metrics, c: &SampleCounters) {
        let row = [
            secs(now.as_nanos()),
            flow.0 as f64,
            m.cwnd as f64,
            m.bytes_in_flight as f64,
            secs(m.smoothed_rtt.as_nanos()),
            secs(m.min_rtt.as_nanos()),
            m.pacing_rate_bps as f64,
            m.delivery_rate_bps as f64,
            c.bytes_sent as f64,
            c.bytes_acked as f64,
        ];
        for (col, v) in self.cols.iter_mut().zip(row) {
            col.push(v);
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

    /// Writes CSV: a header line of column names, then one line per row. Numbers use Rust's
    /// shortest round-trip form, so values read back exactly and output is deterministic.
    pub fn to_csv<W: Write>(&self, w: &mut W) -> io::Result<()> {
        writeln!(w, "{}", COLUMNS.join(","))?;
        for r in 0..self.len() {
            for (i, col) in self.cols.iter().enumerate() {
                let sep = if i + 1 == COLUMNS.len() { '\n' } else { ',' };
                write!(w, "{}{sep}", col[r])?;
            }
        }
        Ok(())
    }
}

/// Records samples every `interval` (the engine schedules the sampling; `due` says when).
#[derive(Clone, Debug)]
pub struct Sampler {
    interval: Dur,
    next: Time,
    series: TimeSeries,
}

impl Sampler {
    /// A sampler with resolution `interval`; the first round is due at time zero.
    pub fn new(interval: Dur) -> Self {
        Sampler {
            interval,
            next: Time::ZERO,
            series: TimeSeries::default(),
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

    /// Records one flow's state at `now`; call it for every flow in a round.
    pub fn sample(&mut self, now: Time, flow: FlowId, m: &Metrics, c: &SampleCounters) {
        self.series.push(now, flow, m, c);
        self.next = now + self.interval;
    }

    /// The samples so far.
    pub fn series(&self) -> &TimeSeries {
        &self.series
    }

    /// The samples, consuming the sampler.
    pub fn into_series(self) -> TimeSeries {
        self.series
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics() -> Metrics {
        Metrics {
            cwnd: 14_720,
            bytes_in_flight: 2_944,
            smoothed_rtt: Dur::from_micros(20_500),
            min_rtt: Dur::from_millis(20),
            pacing_rate_bps: 7_180_487,
            delivery_rate_bps: 5_000_000,
            ..Default::default()
        }
    }

    #[test]
    fn sampler_rounds_are_interval_apart() {
        let mut s = Sampler::new(Dur::from_millis(10));
        assert_eq!(s.due(), Time::ZERO);
        let c = SampleCounters {
            bytes_sent: 3_000,
            bytes_acked: 1_500,
        };
        s.sample(Time::ZERO, FlowId(0), &metrics(), &c);
        s.sample(Time::ZERO, FlowId(1), &metrics(), &c);
        assert_eq!(s.due(), Time(10_000_000));
        let ts = s.into_series();
        assert_eq!(ts.len(), 2);
        let cols = ts.columns();
        assert_eq!(cols.iter().map(|c| c.0).collect::<Vec<_>>(), COLUMNS);
        assert_eq!(cols[1].1, &[0.0, 1.0]);
        assert_eq!(cols[4].1[0], 0.0205);
        assert_eq!(cols[9].1[1], 1_500.0);
    }

    #[test]
    fn timeseries_csv_has_header_and_exact_values() {
        let mut ts = TimeSeries::default();
        ts.push(
            Time(1_500_000),
            FlowId(2),
            &metrics(),
            &SampleCounters {
                bytes_sent: 9,
                bytes_acked: 4,
            },
        );
        let mut out = Vec::new();
        ts.to_csv(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next().unwrap(), COLUMNS.join(","));
        assert_eq!(
            lines.next().unwrap(),
            "0.0015,2,14720,2944,0.0205,0.02,7180487,5000000,9,4"
        );
        assert_eq!(lines.next(), None);
    }
}
