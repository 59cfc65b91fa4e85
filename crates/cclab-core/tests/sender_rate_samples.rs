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

/// Per event, what a full sample reads of the packets' state at their send: the newest acknowledged
/// packet's number with the sample's `tx_in_flight` and `lost`, and each lost packet's number, bytes,
/// `tx_in_flight` and `lost_since_sent`.
#[derive(Clone, Debug, Default)]
struct AtSend {
    newest: Option<(u64, u64, u64)>,
    lost: Vec<(u64, u64, u64, u64)>,
}

/// A window of 10 packets that records, per event, the rate sample it was handed.
struct Recorder {
    reads: bool,
    log: Log,
    at_send: Arc<Mutex<Vec<AtSend>>>,
}

impl CongestionController for Recorder {
    fn on_congestion_event(&mut self, ev: &CongestionEvent<'_>) {
        self.log.lock().unwrap().push(ev.rate_sample.map(|s| s.delivery_rate));
        let newest = ev
            .acked
            .last()
            .zip(ev.rate_sample)
            .map(|(a, s)| (a.pn, s.tx_in_flight, s.lost));
        let lost = ev
            .lost
            .iter()
            .map(|p| (p.pn, p.bytes, p.tx_in_flight, p.lost_since_sent));
        self.at_send.lock().unwrap().push(AtSend {
            newest,
            lost: lost.collect(),
        });
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
            at_send: Default::default(),
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

/// A sender driven by a `Recorder` that reads rate samples and logs into `at_send`, with pacing off.
fn recorded_sender(at_send: &Arc<Mutex<Vec<AtSend>>>) -> Sender {
    let mut cfg = SenderConfig::default();
    cfg.pacing.enabled = false;
    let cc = Recorder {
        reads: true,
        log: Log::default(),
        at_send: at_send.clone(),
    };
    let source = SourceConfig::Bulk { size: Bytes(1 << 20) };
    Sender::with_controller(
        FlowId(0),
        Profile::Quic(QuicProfile::default()),
        &cfg,
        Box::new(cc),
        &source,
        Time::ZERO,
    )
}

#[test]
fn full_samples_and_lost_packets_carry_the_bytes_in_flight_and_lost_at_their_send() {
    // Packets 0-9 leave at 0 ms; at 20 ms an ACK of 0-1; at 30 ms one of 2 and 6 declares 3 lost (three
    // packets above it acknowledged) and the window sends more; at 40 ms one of 2, 6 and 12 declares more
    // lost. Each packet's bytes in flight before it and bytes lost before it are read from the sender as
    // it leaves: a full sample of the newest packet and each lost packet must carry them (the sent record's
    // `lost` and `in_flight_before`), where a record without them would give 0 in flight before and count
    // every loss since the start.
    let at_send = Arc::new(Mutex::new(Vec::new()));
    let mut s = recorded_sender(&at_send);
    // Per packet number: bytes in flight before it, its bytes, bytes lost before it.
    let mut sends: Vec<(u64, u64, u64)> = Vec::new();
    let mut lost_so_far = 0;
    fn send_all(s: &mut Sender, now: Time, lost_so_far: u64, sends: &mut Vec<(u64, u64, u64)>) {
        loop {
            let before = s.metrics().bytes_in_flight;
            let Some(d) = s.poll_transmit(now) else { break };
            assert_eq!(d.packet.pn, sends.len() as u64);
            sends.push((before, s.metrics().bytes_in_flight - before, lost_so_far));
        }
    }
    send_all(&mut s, ms(0), 0, &mut sends);
    let script: [(u64, &[(u64, u64)]); 3] = [
        (20, &[(0, 1)]),
        (30, &[(6, 6), (2, 2)]),
        (40, &[(12, 12), (6, 6), (0, 2)]),
    ];
    let mut lost_pns = Vec::new();
    for (at, ranges) in script {
        let seen = at_send.lock().unwrap().len();
        s.handle_datagram(ms(at), ack_of(ranges));
        for ev in at_send.lock().unwrap()[seen..].iter() {
            for &(pn, bytes, tx_in_flight, lost_since_sent) in &ev.lost {
                lost_so_far += bytes;
                let (before, own, lost_before) = sends[pn as usize];
                assert_eq!(
                    (tx_in_flight, lost_since_sent),
                    (before + own, lost_so_far - lost_before),
                    "lost {pn}"
                );
                lost_pns.push(pn);
            }
            let (pn, tx_in_flight, lost) = ev.newest.expect("a sample");
            let (before, own, lost_before) = sends[pn as usize];
            assert_eq!(
                (tx_in_flight, lost),
                (before + own, lost_so_far - lost_before),
                "newest {pn}"
            );
        }
        send_all(&mut s, ms(at), lost_so_far, &mut sends);
    }
    // Packet 12 is the first to leave after 3 was lost, and more were lost after it: its sample's loss is
    // theirs alone.
    assert_eq!(lost_pns.first(), Some(&3));
    assert!(
        lost_pns.len() > 1 && sends[12].2 > 0 && sends[11].2 == 0,
        "{lost_pns:?} {sends:?}"
    );
    assert!(sends[0].0 == 0 && sends[9].0 > 0);
}
