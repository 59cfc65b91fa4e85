//! A host hands each datagram to its route's first link as it sends it (`Network::act_host`); one
//! whose route has no link arrives at a host (maybe the sender's own) only once the sending host is
//! done, so it and every datagram sent after it wait, in order. Every datagram must still arrive,
//! once, in the order sent, at the time its route gives.
//!
//! ```text
//!  [host S: source A, sink A, source B] ──unlimited, 50 µs──▶ [host D: sink B]
//!   (A's route has no link: S to S)
//! ```
//! Both sources send all their datagrams at time zero, so host S's one event alternates A and B.
//!
//! A host with one endpoint polls it without the round-robin search over its endpoints
//! (`Host::poll_send_one`); it must send exactly as a host whose second endpoint never starts.

mod common;

use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::FlowId;
use cclab_sim::endpoint::AnyEndpoint;
use cclab_sim::host::{BatchConfig, CpuConfig, HostConfig};
use cclab_sim::network::{FlowSpec, Network, Stop};
use common::{link, log, Cbr, Log, Sink};

const COUNT: u64 = 40;
const DELAY: Dur = Dur(50_000);

/// (arrival time, packet number) of each datagram a sink got.
type Arrivals = Vec<(Time, u64)>;

fn arrivals(l: &Log) -> Arrivals {
    l.lock().unwrap().iter().map(|(t, d)| (*t, d.packet.pn)).collect()
}

/// Runs sources A (no link) and B (one link) from host S, the linkless flow added first or second.
fn run(linkless_first: bool) -> (Arrivals, Arrivals) {
    let mut net = Network::new();
    let l = net.add_link(&link(0, DELAY), 1);
    let back = net.add_link(&link(0, DELAY), 1);
    let s = net.add_host(&HostConfig::default(), 1);
    let d = net.add_host(&HostConfig::default(), 1);
    let (log_a, log_b) = (log(), log());
    let spec = |flow: u32, linkless: bool, sink: &Log| FlowSpec {
        sender: AnyEndpoint::Custom(Box::new(Cbr::new(FlowId(flow), 1250, Dur::ZERO, COUNT, Time::ZERO))),
        receiver: AnyEndpoint::Custom(Box::new(Sink::new(sink.clone()))),
        sender_host: s,
        receiver_host: if linkless { s } else { d },
        forward: if linkless { vec![] } else { vec![l] },
        reverse: if linkless { vec![] } else { vec![back] },
        start: Time::ZERO,
        trace: false,
    };
    for k in 0..2u32 {
        let linkless = (k == 0) == linkless_first;
        net.add_flow(spec(k, linkless, if linkless { &log_a } else { &log_b }));
    }
    assert_eq!(net.run(Time(1_000_000_000), None, &mut ()), Stop::AllDone);
    (arrivals(&log_a), arrivals(&log_b))
}

#[test]
fn host_send_order_keeps_every_datagram_after_a_linkless_one() {
    let linked: Arrivals = (0..COUNT).map(|pn| (Time::ZERO + DELAY, pn)).collect();
    let linkless: Arrivals = (0..COUNT).map(|pn| (Time::ZERO, pn)).collect();
    for first in [true, false] {
        let (a, b) = run(first);
        assert_eq!(a, linkless, "linkless flow added first: {first}");
        assert_eq!(b, linked, "linkless flow added first: {first}");
    }
}

/// Source → sink over a 100 Mbit/s, 1 ms link from a sender host `cpu`; with `idle_flow`, both hosts
/// also hold a flow that starts after the run. Returns what the first sink got.
fn one_flow(cpu: &CpuConfig, idle_flow: bool) -> Arrivals {
    let mut net = Network::new();
    let l = net.add_link(&link(100_000_000, Dur::from_millis(1)), 1);
    let back = net.add_link(&link(100_000_000, Dur::from_millis(1)), 1);
    let sender = HostConfig {
        cpu: cpu.clone(),
        socket_buffer: None,
    };
    let s = net.add_host(&sender, 1);
    let d = net.add_host(&HostConfig::default(), 1);
    let sinks = [log(), log()];
    for k in 0..1 + idle_flow as u32 {
        let start = if k == 0 { Time::ZERO } else { Time(10_000_000_000) };
        // 1250 B every 10 µs for 2 ms: faster than the link and than a host with a send cost, which
        // then sends in batches.
        let source = Cbr::new(FlowId(k), 1250, Dur::from_micros(10), 200, start);
        net.add_flow(FlowSpec {
            sender: AnyEndpoint::Custom(Box::new(source)),
            receiver: AnyEndpoint::Custom(Box::new(Sink::new(sinks[k as usize].clone()))),
            sender_host: s,
            receiver_host: d,
            forward: vec![l],
            reverse: vec![back],
            start,
            trace: false,
        });
    }
    net.run(Time(1_000_000_000), None, &mut ());
    arrivals(&sinks[0])
}

#[test]
fn host_send_order_of_one_endpoint_matches_a_host_with_an_idle_second() {
    let gso = CpuConfig {
        send_cost: Dur::from_micros(30),
        gso: Some(BatchConfig {
            max_segments: std::num::NonZeroU32::new(4).unwrap(),
            fixed: Dur::from_micros(20),
        }),
        ..Default::default()
    };
    for cpu in [CpuConfig::default(), gso] {
        let alone = one_flow(&cpu, false);
        assert_eq!(alone.len(), 200, "{cpu:?}");
        assert_eq!(alone, one_flow(&cpu, true), "{cpu:?}");
    }
}

/// Two flows from host S to host D on routes that start at other links than their index or each
/// other's: flow 0 over links 2 then 0, flow 1 over link 1 (each slot keeps its route's first link,
/// `Host::add`). Returns the sinks' arrivals and the packets each link was offered.
fn two_routes(cpu: &CpuConfig) -> ([Arrivals; 2], Vec<u64>) {
    let mut net = Network::new();
    let delays = [
        Dur::from_micros(10),
        Dur::from_micros(20),
        Dur::from_micros(40),
        Dur::from_micros(5),
    ];
    let links: Vec<_> = delays.iter().map(|&d| net.add_link(&link(0, d), 1)).collect();
    let sender = HostConfig {
        cpu: cpu.clone(),
        socket_buffer: None,
    };
    let s = net.add_host(&sender, 1);
    let d = net.add_host(&HostConfig::default(), 1);
    let sinks = [log(), log()];
    let forward = [vec![links[2], links[0]], vec![links[1]]];
    for (k, fwd) in forward.into_iter().enumerate() {
        net.add_flow(FlowSpec {
            sender: AnyEndpoint::Custom(Box::new(Cbr::new(FlowId(k as u32), 1250, Dur::ZERO, COUNT, Time::ZERO))),
            receiver: AnyEndpoint::Custom(Box::new(Sink::new(sinks[k].clone()))),
            sender_host: s,
            receiver_host: d,
            forward: fwd,
            reverse: vec![links[3]],
            start: Time::ZERO,
            trace: false,
        });
    }
    assert_eq!(net.run(Time(1_000_000_000), None, &mut ()), Stop::AllDone);
    let offered = net.links().iter().map(|l| l.stats().offered_packets).collect();
    ([arrivals(&sinks[0]), arrivals(&sinks[1])], offered)
}

#[test]
fn host_send_order_puts_each_datagram_on_its_routes_first_link() {
    let ([a, b], offered) = two_routes(&CpuConfig::default());
    assert_eq!(a, (0..COUNT).map(|pn| (Time(50_000), pn)).collect::<Arrivals>());
    assert_eq!(b, (0..COUNT).map(|pn| (Time(20_000), pn)).collect::<Arrivals>());
    assert_eq!(offered, [COUNT, COUNT, COUNT, 0]);
    // A send job (a send cost, GSO batches) hands its datagrams to the same links when it ends.
    let gso = CpuConfig {
        send_cost: Dur::from_micros(3),
        gso: Some(BatchConfig {
            max_segments: std::num::NonZeroU32::new(4).unwrap(),
            fixed: Dur::from_micros(2),
        }),
        ..Default::default()
    };
    let ([a, b], offered) = two_routes(&gso);
    assert_eq!((a.len(), b.len()), (COUNT as usize, COUNT as usize));
    assert_eq!(offered, [COUNT, COUNT, COUNT, 0]);
}
