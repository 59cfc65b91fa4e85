//! `[sender] tso`: Linux's TSO autosizing and deferral (`tcp_tso_autosize`, `tcp_tso_should_defer`).
//! An unpaced sender with a fixed window of 150 full packets on a 1 Gbit/s path:
//!
//! ```text
//!   Sender ──[1 Gbit/s FIFO, 0.5 ms]──▶ receiver (an ACK per packet, at once)
//!      ▲                                   │
//!      └──────────────[0.5 ms]─────────────┘
//! ```
//! Without TSO every ACK frees one packet and the sender sends it at once: after the initial
//! window, one packet per send instant. With TSO the sender waits while the window's room is below
//! a whole aggregate (65,536 − 321 bytes of GSO: 44 packets of 1472 B; a third of the window, 50
//! packets, is more), then sends the aggregate back to back.

mod sender_pair;

use cclab_core::cc::{CcState, CongestionController, CongestionEvent};
use cclab_core::endpoint::sender::{Sender, SenderConfig, TsoConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::time::{Dur, Time};
use cclab_core::units::Bytes;
use cclab_core::wire::packet::FlowId;
use cclab_core::wire::size::{Profile, QuicProfile};
use sender_pair::{Pair, MSS};

/// Window of the test controller, full packets.
const WINDOW: u64 = 150;
/// Packets of one aggregate: `(65_536 − 321) / 1472`.
const AGGREGATE: usize = 44;

/// A window of `WINDOW` packets that never changes.
struct FixedWindow;

impl CongestionController for FixedWindow {
    fn on_congestion_event(&mut self, _ev: &CongestionEvent<'_>) {}
    fn window(&self) -> u64 {
        WINDOW * MSS
    }
    fn state(&self) -> CcState {
        CcState::CongestionAvoidance
    }
    fn name(&self) -> &'static str {
        "fixed"
    }
}

/// Sizes of the groups of packets sent at the same instant during the first 30 ms, after the
/// first 5 ms (the start-up).
fn send_groups(tso: bool) -> Vec<usize> {
    let mut cfg = SenderConfig::default();
    cfg.pacing.enabled = false;
    cfg.tso = TsoConfig {
        enabled: tso,
        ..TsoConfig::default()
    };
    let profile = Profile::Quic(QuicProfile::default());
    let source = SourceConfig::Bulk { size: Bytes(1 << 30) };
    let sender = Sender::with_controller(FlowId(0), profile, &cfg, Box::new(FixedWindow), &source, Time::ZERO);
    let mut pair = Pair::new(sender, Dur::from_micros(500), 1_000_000_000);
    let end = Time(Dur::from_millis(30).as_nanos());
    pair.run_until(end + Dur::from_millis(10), |p| p.now >= end);
    let after = Time(Dur::from_millis(5).as_nanos());
    let times: Vec<Time> = pair.sent.iter().map(|s| s.time).filter(|&t| t >= after).collect();
    let mut groups = vec![1];
    for w in times.windows(2) {
        if w[1] == w[0] {
            *groups.last_mut().unwrap() += 1;
        } else {
            groups.push(1);
        }
    }
    groups.pop(); // the last group may be cut off at `end`
    groups
}

#[test]
fn sender_tso_sends_whole_aggregates_and_waits_between_them() {
    let groups = send_groups(true);
    // 25 ms at 1 Gbit/s carry 2,080 packets of 1500 B: 47 aggregates.
    assert!(groups.len() >= 45, "{} aggregates", groups.len());
    assert!(groups.iter().all(|&g| g == AGGREGATE), "aggregate sizes: {groups:?}");
}

#[test]
fn sender_without_tso_sends_each_freed_packet_at_once() {
    let groups = send_groups(false);
    assert!(groups.iter().all(|&g| g == 1), "group sizes: {groups:?}");
}
