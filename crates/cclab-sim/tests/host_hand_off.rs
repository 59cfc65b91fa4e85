//! A datagram that finds its host idle is handled within the link's arrival event (`Host::hand_off`)
//! instead of in a wake-up event of the host's own at the same instant. For hosts whose model the
//! order of same-instant arrivals cannot change (no receive batches, no socket-buffer limit), every
//! datagram must be processed at the same time as with the wake-up path, with fewer events; other
//! hosts must keep the wake-up path (same event count).
//!
//! ```text
//!  [source A] ──unlimited, 50 µs──▶ ┐
//!                                   ├─▶ [receiver host: sink A, sink B]
//!  [source B] ──unlimited, 50 µs──▶ ┘
//! ```
//! Both sources send 1250 B every 10 µs from time zero: each instant has one arrival from each
//! link, so the receiver's two arrivals of an instant come from two link events.

mod common;

use cclab_core::endpoint::Endpoint;
use cclab_core::time::{Dur, Time};
use cclab_core::units::Bytes;
use cclab_core::wire::packet::FlowId;
use cclab_sim::host::{BatchConfig, CpuConfig, HostConfig};
use cclab_sim::network::Network;
use common::{flow, link, log, pair, AckEvery, Cbr, Sink, WindowSender};

const END: Time = Time(1_000_000_000);
const COUNT: u64 = 300;

/// (processing time, packet number) of every datagram each sink got, and the events the run took.
type Processed = (Vec<Vec<(Time, u64)>>, u64);

fn two_sources_one_receiver(receiver: &HostConfig, hand_off: bool) -> Processed {
    let mut net = Network::new();
    net.set_hand_off(hand_off);
    let l = link(0, Dur::from_micros(50));
    let ret = net.add_link(&l, 1);
    let d = net.add_host(receiver, 1);
    let mut logs = Vec::new();
    for k in 0..2u32 {
        let fwd = net.add_link(&l, 1);
        let s = net.add_host(&HostConfig::default(), 1);
        let arrivals = log();
        let id = flow(
            &mut net,
            (s, d, fwd, ret),
            Cbr::new(FlowId(k), 1250, Dur::from_micros(10), COUNT, Time::ZERO),
            Sink::new(arrivals.clone()),
        );
        assert_eq!(id, FlowId(k));
        logs.push(arrivals);
    }
    net.run(END, None, &mut ());
    let processed = logs
        .iter()
        .map(|l| l.lock().unwrap().iter().map(|(t, d)| (*t, d.packet.pn)).collect())
        .collect();
    (processed, net.events())
}

fn cpu(recv_us: u64) -> CpuConfig {
    CpuConfig {
        recv_cost: Dur::from_micros(recv_us),
        ..Default::default()
    }
}

#[test]
fn host_hand_off_processes_each_datagram_when_the_wake_up_path_does() {
    let hosts = [
        ("free", HostConfig::default()),
        // Two arrivals per 10 µs at 4 µs each: the second of an instant waits for the first.
        (
            "receive cost",
            HostConfig {
                cpu: cpu(4),
                socket_buffer: None,
            },
        ),
    ];
    for (name, host) in hosts {
        let (woken, woken_events) = two_sources_one_receiver(&host, false);
        let (handed, handed_events) = two_sources_one_receiver(&host, true);
        for sink in &woken {
            assert_eq!(sink.len() as u64, COUNT, "{name}: every datagram arrives");
        }
        assert_eq!(handed, woken, "{name}: per-datagram processing times");
        // One host wake-up fewer per instant with arrivals (at most: a busy host is not handed anything).
        assert!(
            handed_events < woken_events,
            "{name}: {handed_events} vs {woken_events} events"
        );
        if name == "free" {
            assert_eq!(
                woken_events - handed_events,
                COUNT,
                "{name}: one wake-up per arrival instant"
            );
        }
    }
}

#[test]
fn host_hand_off_keeps_the_wake_up_for_batching_and_bounded_hosts() {
    // A receive batch takes the arrivals of an instant together, and a socket buffer counts them
    // together: these hosts are woken as before, with the same event count.
    let hosts = [
        (
            "gro",
            HostConfig {
                cpu: CpuConfig {
                    gro: Some(BatchConfig {
                        max_segments: std::num::NonZeroU32::new(4).unwrap(),
                        fixed: Dur::from_micros(2),
                    }),
                    ..cpu(1)
                },
                socket_buffer: None,
            },
        ),
        (
            "socket buffer",
            HostConfig {
                cpu: cpu(4),
                socket_buffer: Some(Bytes(2_500)),
            },
        ),
    ];
    for (name, host) in hosts {
        let woken = two_sources_one_receiver(&host, false);
        let handed = two_sources_one_receiver(&host, true);
        assert_eq!(handed, woken, "{name}: processing times and events");
    }
}

#[test]
fn host_hand_off_keeps_a_cpu_bound_senders_ack_processing() {
    // ACKs reach a sender whose CPU charges per data packet and per ACK: handed off when it is
    // idle, they must be processed when its wake-up would have processed them, so the transfer
    // takes as long and the CPU is busy as long.
    let run = |hand_off: bool| {
        let sender_host = HostConfig {
            cpu: CpuConfig {
                send_cost: Dur::from_micros(2),
                ack_recv_cost: Dur::from_micros(3),
                ..Default::default()
            },
            socket_buffer: None,
        };
        let l = link(1_000_000_000, Dur::from_micros(200));
        let (mut net, s, d, f, r) = pair(&l, &l, &sender_host, &HostConfig::default());
        net.set_hand_off(hand_off);
        let id = flow(
            &mut net,
            (s, d, f, r),
            WindowSender::new(FlowId(0), 1250, 20, 2_000),
            AckEvery::new(FlowId(0), 2, 64, 2_000),
        );
        net.run(END, None, &mut ());
        let st = net.endpoints(id).0.stats();
        (
            st.completion_time,
            st.bytes_delivered,
            net.hosts()[s.0 as usize].stats().busy,
            net.events(),
        )
    };
    let (woken, handed) = (run(false), run(true));
    assert!(woken.0.is_some(), "the transfer completes");
    assert_eq!((handed.0, handed.1, handed.2), (woken.0, woken.1, woken.2));
    assert!(handed.3 < woken.3, "{} vs {} events", handed.3, woken.3);
}
