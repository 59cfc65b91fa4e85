//! The lazy serialiser: a link performs its queue departures when it is next touched, each at its
//! own instant, so what it does must not depend on when (or how often) its driver touches it.
//!
//! ```text
//!  pushes (random times on a 0.1 ms grid) ──▶ [loss → queue/AQM → serialiser → propagation] ──▶ far end
//!  lazy driver:  touches the link only at pushes and at Link::next_wake
//!  dense driver: also touches it at every 0.1 ms step, which holds every departure instant
//!                (sizes are multiples of 125 B: 0.1 ms at 10 Mbit/s), as a wake-up per departure would
//! ```

use cclab_core::time::{Dur, Time};
use cclab_core::units::{Bytes, Rate};
use cclab_core::wire::packet::{Datagram, Ecn, FlowId, Packet};
use cclab_sim::link::{CrossTrafficConfig, Link, LinkConfig, LinkRate, LinkStats, MahimahiTrace, ReorderConfig};
use cclab_sim::loss::{BernoulliConfig, LossConfig, Probability};
use cclab_sim::packet::InFlight;
use cclab_sim::queue::{CodelConfig, DropTailConfig, DualPi2Config, FqCodelConfig, PieConfig, QueueConfig, RedConfig};

const STEP: Dur = Dur(100_000);

fn packet(pn: u64, size: u32, flow: u32, ecn: Ecn) -> InFlight {
    InFlight::new(
        Datagram {
            flow: FlowId(flow),
            size,
            ecn,
            packet: Packet {
                pn,
                ..Default::default()
            },
        },
        // The flow rides in its route (`InFlight::flow`): flow f's data take route 2f.
        (2 * flow) as u16,
        0,
        Time::ZERO,
    )
}

fn rate_link(queue: QueueConfig) -> LinkConfig {
    let mut c = LinkConfig::new(LinkRate::Limited(Rate(10_000_000)), Dur::from_micros(700));
    c.queue = queue;
    c
}

/// Links whose departures fall on the 0.1 ms grid, with every queue and the impairments that
/// take a packet out of the propagation FIFO's order.
fn configs() -> Vec<(&'static str, LinkConfig)> {
    let small = Some(12);
    let mut v = vec![
        (
            "droptail",
            rate_link(QueueConfig::Droptail(DropTailConfig {
                limit_packets: small,
                ..Default::default()
            })),
        ),
        (
            "codel",
            rate_link(QueueConfig::Codel(CodelConfig {
                target: Dur::from_micros(500),
                interval: Dur::from_millis(5),
                ..Default::default()
            })),
        ),
        ("pie", rate_link(QueueConfig::Pie(PieConfig::default()))),
        ("fq-codel", rate_link(QueueConfig::FqCodel(FqCodelConfig::default()))),
        ("dualpi2", rate_link(QueueConfig::DualPi2(DualPi2Config::default()))),
        (
            "red",
            rate_link(QueueConfig::Red(RedConfig {
                min_th: Bytes(3_000),
                max_th: Bytes(12_000),
                ..Default::default()
            })),
        ),
    ];
    let mut reorder = rate_link(QueueConfig::default());
    reorder.reorder = Some(ReorderConfig {
        p: Probability(0.3),
        delay: Dur::from_micros(150),
    });
    reorder.jitter = Dur::from_micros(300);
    v.push(("reorder+jitter", reorder));
    let mut lossy = rate_link(QueueConfig::default());
    lossy.loss = LossConfig::Bernoulli(BernoulliConfig { p: Probability(0.1) });
    lossy.duplicate = Some(Probability(0.1));
    lossy.cross_traffic = Some(CrossTrafficConfig::Cbr {
        rate: Rate(2_500_000),
        size: Bytes(1250),
        start: Dur::from_micros(300),
    });
    v.push(("loss+duplicate+cross", lossy));
    let mut traced = LinkConfig::new(LinkRate::Unlimited, Dur::from_micros(200));
    traced.rate = None;
    traced.loaded_trace = Some(MahimahiTrace::parse("1\n1\n2\n4\n").unwrap());
    traced.reorder = Some(ReorderConfig {
        p: Probability(0.2),
        delay: Dur::from_micros(100),
    });
    v.push(("trace+reorder", traced));
    v
}

/// What a driver saw: every packet that reached the far end (when it was taken, its stamped
/// arrival, flow, number) and the link's counters at the end; plus the number of touches.
struct Outcome {
    arrivals: Vec<(Time, Time, u32, u64)>,
    stats: LinkStats,
    queue_bytes: u64,
    touches: u64,
    /// (grid step, packets in transit, bytes queued) at every grid step of a dense driver.
    grid: Vec<(Time, u64, u64)>,
}

/// Pushes a random schedule (pseudo-random, fixed) into a fresh link (about 0.9 s, near the link rate on average); `dense` also
/// touches the link at every grid step before that step's pushes.
fn drive(cfg: &LinkConfig, dense: bool) -> Outcome {
    let mut link = Link::new(3, cfg, 11);
    let mut x: u64 = 0x5eed;
    let mut pushes = Vec::new();
    let mut t = Time::ZERO;
    for pn in 0..1_500u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        // Bursts and gaps: the backlog grows and drains, so the serialiser idles and restarts.
        t += STEP * [0, 0, 1, 2, 3, 4, 8, 30][(x >> 40) as usize % 8];
        let size = 125 * (1 + (x >> 20) as u32 % 12);
        let ecn = if x & 16 == 0 { Ecn::Ect1 } else { Ecn::NotEct };
        pushes.push((t, packet(pn, size, (x >> 8) as u32 % 4, ecn)));
    }
    let end = t + Dur::from_millis(20);
    let mut out = Outcome {
        arrivals: Vec::new(),
        stats: LinkStats::default(),
        queue_bytes: 0,
        touches: 0,
        grid: Vec::new(),
    };
    let mut pending = pushes.into_iter().peekable();
    let mut grid = Time::ZERO;
    loop {
        // The next moment the driver touches the link: a wake-up, a push, or (dense) a grid step.
        let wake = link.next_wake().unwrap_or(Time(u64::MAX));
        let push = pending.peek().map_or(Time(u64::MAX), |(t, _)| *t);
        let step = if dense { grid } else { Time(u64::MAX) };
        let now = wake.min(push).min(step);
        if now > end {
            break;
        }
        if now == step {
            grid += STEP;
        }
        out.touches += 1;
        link.advance(now);
        while let Some(p) = link.pop_arrived() {
            out.arrivals.push((now, p.enqueued, p.flow().0, p.packet.pn));
        }
        while pending.peek().is_some_and(|(t, _)| *t == now) {
            let (_, p) = pending.next().unwrap();
            link.push(now, p);
        }
        if now == step {
            out.grid.push((now, link.in_transit_packets(), link.queue_bytes()));
        }
    }
    link.catch_up(end);
    out.stats = link.stats();
    out.queue_bytes = link.queue_bytes();
    out
}

#[test]
fn link_lazy_serialiser_does_what_a_wakeup_per_departure_does() {
    for (name, cfg) in configs() {
        let lazy = drive(&cfg, false);
        let dense = drive(&cfg, true);
        let first_difference = lazy.arrivals.iter().zip(&dense.arrivals).position(|(a, b)| a != b);
        assert_eq!(
            (first_difference, lazy.arrivals.len()),
            (None, dense.arrivals.len()),
            "{name}: arrivals (first differing index, count)"
        );
        assert_eq!(
            lazy.stats, dense.stats,
            "{name}: counters (queue drops, marks, sojourn, busy)"
        );
        assert_eq!(lazy.queue_bytes, dense.queue_bytes, "{name}");
        let s = &lazy.stats;
        assert!(
            s.delivered_packets > 700,
            "{name}: only {} delivered",
            s.delivered_packets
        );
        assert!(s.sojourn > Dur::ZERO, "{name}: the test must build a backlog");
        // Every packet is handed out at exactly its arrival time: the wake-ups the lazy link asks
        // for are never late, reordered and trace-delayed packets included.
        for &(taken, arrived, flow, pn) in &lazy.arrivals {
            assert_eq!(taken, arrived, "{name}: flow {flow} packet {pn} taken late");
        }
        assert!(
            lazy.touches < dense.touches,
            "{name}: {} touches vs {}",
            lazy.touches,
            dense.touches
        );
    }
}

#[test]
fn link_push_at_a_serialisation_end_finds_the_packet_gone() {
    // 1250 B at 10 Mbit/s: 1 ms each. A one-packet queue holds the second of three packets pushed
    // at 0 (the first is on the wire, the third is dropped). At exactly 1 ms the first ends and
    // the second departs; a push at that instant finds the queue empty, however the simulator
    // orders the two, and is kept.
    let mut cfg = LinkConfig::new(LinkRate::Limited(Rate(10_000_000)), Dur::from_millis(5));
    cfg.queue = QueueConfig::Droptail(DropTailConfig {
        limit_packets: Some(1),
        ..Default::default()
    });
    let mut link = Link::new(0, &cfg, 1);
    for pn in 0..3 {
        link.push(Time::ZERO, packet(pn, 1250, 0, Ecn::NotEct));
    }
    assert_eq!(link.stats().queue.dropped_packets, 1);
    link.push(Time(1_000_000), packet(3, 1250, 0, Ecn::NotEct));
    assert_eq!(
        link.stats().queue.dropped_packets,
        1,
        "the push came after the departure"
    );
    let mut arrivals = Vec::new();
    while let Some(t) = link.next_wake() {
        let mut out = Vec::new();
        link.act(t, &mut out);
        arrivals.extend(out.iter().map(|p| (p.enqueued.0 / 1_000_000, p.packet.pn)));
    }
    // Departures at 0, 1 and 2 ms; each arrives 1 ms (serialisation) + 5 ms later.
    assert_eq!(arrivals, vec![(6, 0), (7, 1), (8, 3)]);
}

#[test]
fn link_backlog_costs_one_wakeup_per_packet() {
    // 100 packets at once into 1 ms per packet and 5 ms of delay: the link wakes once per
    // arrival (100), where a wake-up per serialisation end as well would make it about 200.
    let cfg = LinkConfig::new(LinkRate::Limited(Rate(10_000_000)), Dur::from_millis(5));
    let mut link = Link::new(0, &cfg, 1);
    for pn in 0..100 {
        link.push(Time::ZERO, packet(pn, 1250, 0, Ecn::NotEct));
    }
    let (mut wakes, mut delivered) = (0, 0);
    while let Some(t) = link.next_wake() {
        wakes += 1;
        let mut out = Vec::new();
        link.act(t, &mut out);
        delivered += out.len();
    }
    assert_eq!((wakes, delivered), (100, 100));
    // Each packet waited for those ahead of it: 0 + 1 + … + 99 ms in the queue.
    assert_eq!(link.stats().sojourn, Dur::from_millis(99 * 100 / 2));
}

/// A plain drop-tail link keeps departed packets in its queue's ring while they propagate; with a
/// reordering probability of 0 the same link keeps two rings (queue, then propagation FIFO). What
/// reaches the far end, when, and what the link reports at every step must be the same.
#[test]
fn link_shared_ring_does_what_a_queue_and_a_propagation_fifo_do() {
    for limit_packets in [Some(12), Some(3), None] {
        let shared = rate_link(QueueConfig::Droptail(DropTailConfig {
            limit_packets,
            ..Default::default()
        }));
        let mut separate = shared.clone();
        separate.reorder = Some(ReorderConfig {
            p: Probability(0.0),
            delay: Dur::ZERO,
        });
        let (a, b) = (drive(&shared, true), drive(&separate, true));
        assert_eq!(a.arrivals, b.arrivals, "limit {limit_packets:?}: arrivals");
        assert_eq!(a.stats, b.stats, "limit {limit_packets:?}: counters");
        assert_eq!(
            a.grid, b.grid,
            "limit {limit_packets:?}: packets in transit and bytes queued"
        );
        assert!(a.stats.sojourn > Dur::ZERO && a.grid.iter().any(|g| g.1 > 1 && g.2 > 0));
    }
}
