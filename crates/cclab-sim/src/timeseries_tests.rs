use super::*;
use std::sync::{Arc, Mutex};

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

fn counters(delivered: u64) -> SampleCounters {
    SampleCounters {
        bytes_sent: 3_000,
        bytes_acked: 1_500,
        bytes_delivered: delivered,
    }
}

/// A `Write` whose bytes the test can read while the sampler owns it.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn sampler_rounds_are_interval_apart() {
    let mut s = Sampler::new(Dur::from_millis(10));
    assert_eq!(s.due(), Time::ZERO);
    s.sample(Time::ZERO, FlowId(0), &metrics(), &counters(0));
    s.sample(Time::ZERO, FlowId(1), &metrics(), &counters(0));
    assert_eq!(s.due(), Time(10_000_000));
    let ts = s.into_series();
    assert_eq!(ts.len(), 2);
    let cols = ts.columns();
    assert_eq!(cols.iter().map(|c| c.0).collect::<Vec<_>>(), COLUMNS);
    assert_eq!(cols[1].1, &[0.0, 1.0]);
    assert_eq!(cols[4].1[0], 0.0205);
    assert_eq!(cols[9].1[1], 1_500.0);
    assert!(cols[11].1[0].is_nan(), "flow rows have no link");
}

#[test]
fn timeseries_has_no_rtt_or_pacing_value_before_the_first_rtt_sample() {
    let mut s = Sampler::new(Dur::from_millis(10));
    let unsampled = Metrics {
        smoothed_rtt: Dur::ZERO,
        min_rtt: Dur::ZERO,
        pacing_rate_bps: 340_000_000,
        ..metrics()
    };
    s.sample(Time::ZERO, FlowId(0), &unsampled, &counters(0));
    s.sample(Time(10_000_000), FlowId(0), &metrics(), &counters(0));
    let ts = s.into_series();
    let col = |name: &str| ts.columns().into_iter().find(|c| c.0 == name).unwrap().1.to_vec();
    assert!(col("srtt_s")[0].is_nan() && col("min_rtt_s")[0].is_nan() && col("pacing_rate_bps")[0].is_nan());
    assert_eq!(col("srtt_s")[1], 0.0205);
    assert_eq!(col("pacing_rate_bps")[1], 7_180_487.0);
    let mut csv = Vec::new();
    ts.to_csv(&mut csv).unwrap();
    let text = String::from_utf8(csv).unwrap();
    assert_eq!(
        text.lines().nth(1).unwrap(),
        "0,0,14720,2944,,,,5000000,3000,1500,,,,,,,,"
    );
}

#[test]
fn timeseries_goodput_is_delivery_since_the_previous_sample() {
    let mut s = Sampler::new(Dur::from_millis(100));
    s.sample(Time::ZERO, FlowId(0), &metrics(), &counters(0));
    // 125,000 bytes in 100 ms = 10 Mbit/s.
    s.sample(Time(100_000_000), FlowId(0), &metrics(), &counters(125_000));
    let ts = s.into_series();
    let goodput = ts.columns()[10].1.to_vec();
    assert!(goodput[0].is_nan());
    assert!((goodput[1] - 10e6).abs() < 1e-6, "{goodput:?}");
}

#[test]
fn timeseries_link_rows_give_queue_sojourn_and_utilisation_per_interval() {
    let mut s = Sampler::new(Dur::from_millis(10));
    let first = LinkSample {
        dequeued: (10, Dur::from_millis(5)),
        used_of: (0.004, 0.010),
        ..Default::default()
    };
    s.sample_link(Time(10_000_000), 1, &first);
    // 4 more packets waited 8 ms in all (2 ms each); busy 7.5 of the next 10 ms.
    let second = LinkSample {
        queue_bytes: 3_000,
        queue_packets: 2,
        drops: 1,
        ecn_marks: 3,
        dequeued: (14, Dur::from_millis(13)),
        used_of: (0.0115, 0.020),
    };
    s.sample_link(Time(20_000_000), 1, &second);
    let ts = s.into_series();
    let cols = ts.columns();
    let at = |name: &str, r: usize| cols.iter().find(|c| c.0 == name).unwrap().1[r];
    assert!(at("flow", 1).is_nan());
    assert_eq!(at("link", 1), 1.0);
    assert!(at("sojourn_s", 0).is_nan() && at("utilisation", 0).is_nan());
    assert!((at("sojourn_s", 1) - 0.002).abs() < 1e-15);
    assert!((at("utilisation", 1) - 0.75).abs() < 1e-12);
    assert_eq!((at("queue_bytes", 1), at("queue_packets", 1)), (3_000.0, 2.0));
    assert_eq!((at("drops", 1), at("ecn_marks", 1)), (1.0, 3.0));
}

#[test]
fn timeseries_link_sojourn_survives_its_sum_wrapping() {
    // The link's sojourn sum wraps at 2^64 ns in a long run with a deep queue: an interval across the
    // wrap still reads its own mean (4 packets, 8 ms in all), not 0.
    let mut s = Sampler::new(Dur::from_millis(10));
    let before = LinkSample {
        dequeued: (10, Dur(u64::MAX - 3_000_000)),
        ..Default::default()
    };
    s.sample_link(Time(10_000_000), 0, &before);
    let after = LinkSample {
        dequeued: (14, Dur(4_999_999)),
        ..Default::default()
    };
    s.sample_link(Time(20_000_000), 0, &after);
    let ts = s.into_series();
    let sojourn = &ts.columns().into_iter().find(|c| c.0 == "sojourn_s").unwrap().1;
    assert!((sojourn[1] - 0.002).abs() < 1e-15, "{}", sojourn[1]);
}

#[test]
fn sampler_streams_rows_to_its_sink_and_may_keep_none() {
    let sink = Shared::default();
    let out = SamplerOutput {
        csv: Some(Box::new(sink.clone())),
        keep: false,
    };
    let mut s = Sampler::with_output(Dur::from_millis(10), out).unwrap();
    s.sample(Time(1_500_000), FlowId(2), &metrics(), &counters(0));
    // Written before the run ends.
    let text = String::from_utf8(sink.0.lock().unwrap().clone()).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next().unwrap(), COLUMNS.join(","));
    assert_eq!(
        lines.next().unwrap(),
        "0.0015,2,14720,2944,0.0205,0.02,7180487,5000000,3000,1500,,,,,,,,"
    );
    assert!(s.finish().unwrap().is_empty());
}

#[test]
fn sampler_reserve_rows_fills_without_regrowth_and_keeps_rows() {
    let mut reserved = Sampler::new(Dur::from_millis(10));
    reserved.reserve_rows(100);
    let base = reserved.series().cols.each_ref().map(|c| (c.as_ptr(), c.capacity()));
    assert!(base.iter().all(|&(_, cap)| cap >= 100));
    let mut plain = Sampler::new(Dur::from_millis(10));
    for i in 0..100u64 {
        for s in [&mut reserved, &mut plain] {
            s.sample(Time(i * 10_000_000), FlowId(0), &metrics(), &counters(i * 1_500));
        }
    }
    // No column moved: the 100 rows went into the reserved space.
    let after = reserved.series().cols.each_ref().map(|c| (c.as_ptr(), c.capacity()));
    assert_eq!(base, after);
    let csv = |s: &mut Sampler| {
        let mut v = Vec::new();
        s.series().to_csv(&mut v).unwrap();
        v
    };
    assert_eq!(csv(&mut reserved), csv(&mut plain));
}

#[test]
fn sampler_kept_rows_match_the_streamed_csv_across_staged_blocks() {
    // 3 flows and 1 link for 70 rounds: 280 rows, several staged blocks and a partial one at the end,
    // interleaving flow and link rows; the kept columns must give the streamed CSV line for line.
    let sink = Shared::default();
    let out = SamplerOutput {
        csv: Some(Box::new(sink.clone())),
        keep: true,
    };
    let mut s = Sampler::with_output(Dur::from_millis(10), out).unwrap();
    for round in 0..70u64 {
        let now = Time(round * 10_000_000);
        for f in 0..3u32 {
            s.sample(now, FlowId(f), &metrics(), &counters(round * 1_000 + f as u64));
        }
        let link = LinkSample {
            queue_bytes: round * 7,
            dequeued: (round, Dur(round * 1_000)),
            used_of: (round as f64, 2.0 * round as f64),
            ..LinkSample::default()
        };
        s.sample_link(now, 0, &link);
    }
    let mut partial = Vec::new();
    s.series().to_csv(&mut partial).unwrap();
    let ts = s.finish().unwrap();
    assert_eq!(ts.len(), 280);
    let mut kept = Vec::new();
    ts.to_csv(&mut kept).unwrap();
    assert_eq!(kept, partial);
    assert_eq!(
        String::from_utf8(kept).unwrap(),
        String::from_utf8(sink.0.lock().unwrap().clone()).unwrap()
    );
}

#[test]
fn sampler_reserve_rows_is_capped_and_ignored_when_rows_are_discarded() {
    let mut s = Sampler::new(Dur::from_millis(10));
    s.reserve_rows(u64::MAX);
    assert!(s
        .series()
        .cols
        .iter()
        .all(|c| c.capacity() == MAX_RESERVED_ROWS as usize));
    let out = SamplerOutput { csv: None, keep: false };
    let mut d = Sampler::with_output(Dur::from_millis(10), out).unwrap();
    d.reserve_rows(1_000);
    assert!(d.series().cols.iter().all(|c| c.capacity() == 0));
}
