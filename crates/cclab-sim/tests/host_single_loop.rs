//! A free host with one endpoint runs a loop of its own (`host/single.rs`); its endpoint must get
//! the calls the general loop makes, in the same order and at the same times, but for the
//! `poll_timeout` the general loop asks again before it fires a wake-up already read. An idle state with
//! no exit latency changes nothing in the model but sends a host through the general loop, so
//! every call of the two runs below must agree.
//!
//! ```text
//!  [window sender, GSO 4] ──10 Gbit/s, 20 µs──▶ [ACK every 3rd, GRO 4]   starts at 2 ms
//!  [CBR, 1 per 7 µs, timers] ──unlimited, 20 µs──▶ [sink]                starts at 2 ms
//!            ◀──────────── unlimited, 20 µs (both flows' ACKs) ────────────
//! ```
//! The window sender's bursts of four arrive together over the unlimited link of the second pair
//! and wait in the socket buffer for a receive batch; the CBR source is woken by its timer.

mod common;

use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::FlowId;
use cclab_sim::host::{BatchConfig, CpuConfig, HostConfig};
use cclab_sim::network::{FlowSpec, Network};
use common::{link, recorded, AckEvery, Call, Calls, Cbr, Sink, WindowSender};
use std::num::NonZeroU32;

/// A host whose CPU costs nothing, with GSO and GRO batches of `batch`; with `general`, an idle
/// state of no exit latency sends it through the general loop.
fn host(batch: u32, general: bool) -> HostConfig {
    let b = Some(BatchConfig {
        max_segments: NonZeroU32::new(batch).unwrap(),
        fixed: Dur::ZERO,
    });
    HostConfig {
        cpu: CpuConfig {
            gso: b.clone(),
            gro: b,
            idle_states: common::idle_states(general),
            ..Default::default()
        },
        socket_buffer: None,
    }
}

/// Every endpoint call of the two flows above.
fn calls(general: bool) -> Vec<Call> {
    const TOTAL: u64 = 300;
    let mut net = Network::new();
    let fast = net.add_link(&link(10_000_000_000, Dur::from_micros(20)), 1);
    let unlimited = net.add_link(&link(0, Dur::from_micros(20)), 1);
    let back = net.add_link(&link(0, Dur::from_micros(20)), 1);
    let calls = Calls::default();
    let start = Time::ZERO + Dur::from_millis(2);
    let window = recorded(0, WindowSender::new(FlowId(0), 1250, 16, TOTAL), &calls, true);
    let cbr = Cbr::new(FlowId(1), 1250, Dur::from_micros(7), TOTAL, start);
    let flows = [
        (
            window,
            recorded(1, AckEvery::new(FlowId(0), 3, 64, TOTAL), &calls, true),
            unlimited,
        ),
        (
            recorded(2, cbr, &calls, true),
            recorded(3, Sink::new(Default::default()), &calls, true),
            fast,
        ),
    ];
    for (sender, receiver, forward) in flows {
        let sender_host = net.add_host(&host(4, general), 1);
        let receiver_host = net.add_host(&host(4, general), 1);
        net.add_flow(FlowSpec {
            sender,
            receiver,
            sender_host,
            receiver_host,
            forward: vec![forward],
            reverse: vec![back],
            start,
            trace: false,
        });
    }
    net.run(Time(1_000_000_000), None, &mut ());
    let calls = calls.lock().unwrap().clone();
    calls
}

#[test]
fn host_single_loop_makes_the_general_loops_calls_in_its_order() {
    let general = calls(true);
    let single = calls(false);
    let count = |c: &[Call], what| c.iter().filter(|c| c.2 == what).count();
    // Both flows' packets and ACKs arrived, the CBR source woke on its timers, and polls were refused.
    assert!(
        count(&general, "datagram") > 600,
        "{} datagrams",
        count(&general, "datagram")
    );
    assert!(
        count(&general, "timeout") > 100,
        "{} timeouts",
        count(&general, "timeout")
    );
    let refused = general.iter().filter(|c| c.2 == "poll" && c.3.is_none()).count();
    assert!(refused > 100, "{refused} refused polls");
    // Each endpoint's own calls: the general loop's idle state takes an event of its own at the
    // same instant, which may move hosts' runs at one instant against each other.
    // The one-endpoint loop fires a wake-up that is the endpoint's own without asking `poll_timeout` again:
    // the general loop's question right after the one that ended the endpoint's last run (the same answer)
    // and just before the timer fires is not the single loop's.
    let mut asked_again = 0;
    for id in 0..4 {
        let of = |c: &[Call]| c.iter().filter(|c| c.1 == id).copied().collect::<Vec<_>>();
        let (mut general, single) = (of(&general), of(&single));
        let n = general.len();
        let again = |i: usize, c: &[Call]| {
            (1..c.len() - 1).contains(&i)
                && c[i].2 == "poll_timeout"
                && c[i - 1].2 == "poll_timeout"
                && c[i - 1].3 == c[i].3
                && c[i + 1].2 == "timeout"
        };
        let keep: Vec<bool> = (0..n).map(|i| !again(i, &general)).collect();
        let mut keep = keep.into_iter();
        general.retain(|_| keep.next().unwrap_or(true));
        asked_again += n - general.len();
        let first_difference = general.iter().zip(&single).position(|(a, b)| a != b);
        assert_eq!(
            first_difference.map(|i| (&general[i.saturating_sub(3)..=i], single[i])),
            None,
            "endpoint {id}'s calls differ"
        );
        assert_eq!(single.len(), general.len(), "endpoint {id}'s calls");
    }
    assert!(asked_again > 100, "{asked_again} questions before a timer");
}
