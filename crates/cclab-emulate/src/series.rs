//! The emulator's time series per direction: counters and the queueing delay the model gave
//! the packets released in each interval.

use cclab_core::time::{Dur, Time};
use std::fmt::Write;

/// One direction over one interval (counters cumulative, delays over the interval).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DirectionSample {
    /// Packets that entered the path so far.
    pub packets_in: u64,
    /// IP bytes that entered the path so far.
    pub bytes_in: u64,
    /// Packets the path delivered so far.
    pub packets_out: u64,
    /// Packets dropped by queues and loss models so far.
    pub drops: u64,
    /// Packets marked CE so far.
    pub ecn_marks: u64,
    /// Mean queueing delay of the packets released in the interval (0 if none).
    pub queue_delay_mean: Dur,
    /// Largest queueing delay in the interval.
    pub queue_delay_max: Dur,
}

/// Rows `(time, direction, sample)`; direction 0 is client → server.
#[derive(Clone, Debug, Default)]
pub struct QueueSeries {
    rows: Vec<(Time, usize, DirectionSample)>,
    sum: [u64; 2],
    count: [u64; 2],
    max: [Dur; 2],
}

impl QueueSeries {
    /// A packet of `direction` left with `delay` of queueing.
    pub fn record(&mut self, direction: usize, delay: Dur) {
        self.sum[direction] += delay.0;
        self.count[direction] += 1;
        self.max[direction] = self.max[direction].max(delay);
    }

    /// Closes the interval ending at `now` with the cumulative counters of both directions.
    pub fn sample(&mut self, now: Time, counters: [DirectionSample; 2]) {
        for (d, mut c) in counters.into_iter().enumerate() {
            c.queue_delay_mean = Dur(self.sum[d].checked_div(self.count[d]).unwrap_or(0));
            c.queue_delay_max = self.max[d];
            self.rows.push((now, d, c));
        }
        self.sum = [0; 2];
        self.count = [0; 2];
        self.max = [Dur::ZERO; 2];
    }

    /// The rows.
    pub fn rows(&self) -> &[(Time, usize, DirectionSample)] {
        &self.rows
    }

    /// CSV with a header: `time_s,direction,packets_in,bytes_in,packets_out,drops,ecn_marks,
    /// queue_delay_mean_s,queue_delay_max_s`; direction is `forward` (client → server) or `return`.
    pub fn to_csv(&self) -> String {
        let mut s = String::from(
            "time_s,direction,packets_in,bytes_in,packets_out,drops,ecn_marks,queue_delay_mean_s,queue_delay_max_s\n",
        );
        for (t, d, c) in &self.rows {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{}",
                t.as_nanos() as f64 / 1e9,
                ["forward", "return"][*d],
                c.packets_in,
                c.bytes_in,
                c.packets_out,
                c.drops,
                c.ecn_marks,
                c.queue_delay_mean.as_secs_f64(),
                c.queue_delay_max.as_secs_f64()
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_averages_the_interval_then_resets() {
        let mut q = QueueSeries::default();
        q.record(0, Dur::from_millis(2));
        q.record(0, Dur::from_millis(4));
        q.sample(
            Time::ZERO + Dur::from_millis(10),
            [
                DirectionSample {
                    packets_in: 2,
                    ..Default::default()
                },
                Default::default(),
            ],
        );
        q.sample(Time::ZERO + Dur::from_millis(20), Default::default());
        let r = q.rows();
        assert_eq!(r.len(), 4);
        assert_eq!(
            (r[0].2.queue_delay_mean, r[0].2.queue_delay_max),
            (Dur::from_millis(3), Dur::from_millis(4))
        );
        assert_eq!(r[0].2.packets_in, 2);
        assert_eq!(r[2].2.queue_delay_max, Dur::ZERO);
        assert!(q.to_csv().lines().nth(1).unwrap().starts_with("0.01,forward,2,"));
    }
}
