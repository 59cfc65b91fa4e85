//! `CongestionController::reads_rate_samples`: a controller that reads no delivery-rate sample is
//! handed none, and the sender's metrics report the same delivery rate either way.
//!
//! The sender is driven by hand: its initial window of 10 packets leaves at 0 ms, and ACKs of
//! two packets each arrive 10 ms apart from 20 ms on, as a receiver acknowledging every other
//! packet sends them. Two recording controllers with the same fixed window, one answering `true`
//! and one `false`, see the same packets.

mod sender_pair;

use cclab_core::cc::{CcState, CongestionController, CongestionEvent};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::Endpoint;
use cclab_core::time::Time;
use cclab_core::units::Bytes;
use cclab_core::wire::packet::FlowId;
use cclab_core::wire::size::{Profile, QuicProfile};
use sender_pair::{ack_of, MSS};
use std::sync::{Arc, Mutex};

/// Per ACK event: whether it carried a rate sample, and that sample's rate (bytes/s).
type Log = Arc<Mutex<Vec<Option<f64>>>>;

/// A window of 10 packets that records, per event, the rate sample it was handed.
struct Recorder {
    reads: bool,
    log: Log,
}

impl CongestionController for Recorder {
    fn on_congestion_event(&mut self, ev: &CongestionEvent<'_>) {
        self.log.lock().unwrap().push(ev.rate_sample.map(|s| s.delivery_rate));
    }
    fn window(&self) -> u64 {
        10 * MSS
    }
    fn reads_rate_samples(&self) -> bool {
        self.reads
    }
    fn state(&self) -> CcState {
        CcState::CongestionAvoidance
    }
    fn name(&self) -> &'static str {
        "recorder"
    }
}

fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

/// Runs the script with a controller answering `reads`; returns each event's sample rate and the
/// metrics' delivery rate (bits/s) after each ACK.
fn run(reads: bool) -> (Vec<Option<f64>>, Vec<u64>) {
    let log = Log::default();
    let mut cfg = SenderConfig::default();
    cfg.pacing.enabled = false;
    let mut s = Sender::with_controller(
        FlowId(0),
        Profile::Quic(QuicProfile::default()),
        &cfg,
        Box::new(Recorder {
            reads,
            log: log.clone(),
        }),
        &SourceConfig::Bulk { size: Bytes(1 << 20) },
        Time::ZERO,
    );
    let sent: Vec<u64> = std::iter::from_fn(|| s.poll_transmit(ms(0)))
        .map(|d| d.packet.pn)
        .collect();
    assert_eq!(sent, (0..10).collect::<Vec<_>>());
    let mut rates = Vec::new();
    for k in 0..5 {
        s.handle_datagram(ms(20 + 10 * k), ack_of(&[(0, 2 * k + 1)]));
        rates.push(s.metrics().delivery_rate_bps);
    }
    let log = log.lock().unwrap().clone();
    (log, rates)
}

#[test]
fn rate_samples_reach_only_a_controller_that_reads_them() {
    let (with, with_rates) = run(true);
    let (without, without_rates) = run(false);
    assert_eq!(with.len(), 5);
    assert!(with.iter().all(Option::is_some), "{with:?}");
    assert_eq!(without, vec![None; 5]);
    // The sender works out the rate for its metrics either way, and the same one.
    assert_eq!(with_rates, without_rates);
    assert!(with_rates.iter().any(|&r| r > 0), "{with_rates:?}");
    let last = with.last().copied().flatten().unwrap();
    assert_eq!(*with_rates.last().unwrap(), (last * 8.0) as u64);
}
