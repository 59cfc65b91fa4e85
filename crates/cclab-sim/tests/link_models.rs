//! Link models against closed forms.
//!
//! ```text
//!  sender host ──forward link (rate, delay, queue, loss, jitter…)──▶ receiver host
//!              ◀──────────────return link──────────────────────────
//! ```
//! Endpoints are the test doubles of `common`: a constant-rate source and a logging sink.

mod common;

use cclab_core::time::{Dur, Time};
use cclab_core::units::{Bytes, Rate};
use cclab_core::wire::packet::{Ecn, FlowId};
use cclab_sim::host::HostConfig;
use cclab_sim::link::{CrossTrafficConfig, LinkConfig, LinkStats, ReorderConfig};
use cclab_sim::loss::{BernoulliConfig, LossConfig, Probability};
use cclab_sim::network::Network;
use cclab_sim::queue::{CodelConfig, DropTailConfig, QueueConfig, QueueLimit, RedConfig};
use common::{flow, link, log, pair, Cbr, Sink};

/// Runs a CBR source into a sink over `fwd` until `end`; returns the network and the log.
fn cbr_run(fwd: &LinkConfig, src: Cbr, end: Time) -> (Network, common::Log) {
    let h = HostConfig::default();
    let (mut net, s, d, f, r) = pair(fwd, &link(0, Dur::ZERO), &h, &h);
    let arrivals = log();
    flow(&mut net, (s, d, f, r), src, Sink::new(arrivals.clone()));
    net.run(end, None, &mut ());
    (net, arrivals)
}

#[test]
fn link_single_packet_arrives_after_serialisation_plus_propagation() {
    // 1250 B at 10 Mbps = 1 ms on the wire, + 5 ms propagation: arrives at exactly 6 ms.
    let src = Cbr::new(FlowId(0), 1250, Dur::ZERO, 1, Time::ZERO);
    let (_, arrivals) = cbr_run(&link(10_000_000, Dur::from_millis(5)), src, Time(Dur::from_secs(1).0));
    let a = arrivals.lock().unwrap();
    assert_eq!(a.len(), 1);
    assert_eq!(a[0].0, Time(6_000_000));
}

#[test]
fn link_saturated_for_50ms_sends_50_packets_at_link_rate() {
    // quiche simulator_test DirectLinkSaturation: offered at twice the rate, 1 ms per packet.
    let src = Cbr::new(FlowId(0), 1250, Dur::from_micros(500), 1000, Time::ZERO);
    let (net, arrivals) = cbr_run(&link(10_000_000, Dur::ZERO), src, Time(50_000_000));
    let n = arrivals.lock().unwrap().len() as u64;
    assert!((50..=51).contains(&n), "{n} packets");
    let bps = net.links()[0].stats().delivered_bytes as f64 * 8.0 / 0.050;
    assert!((bps / 10e6 - 1.0).abs() <= 0.01 * 51.0 / 50.0, "{bps} bit/s");
    assert!((net.links()[0].utilisation(Dur::from_millis(50)) - 1.0).abs() < 1e-9);
}

fn conserved(s: &LinkStats, in_transit: u64) {
    let dropped = s.lost_packets + s.queue.dropped_packets + s.thinned_packets;
    assert_eq!(s.offered_packets, s.delivered_packets + in_transit + dropped, "{s:?}");
    assert!(
        dropped > 0 && in_transit > 0,
        "test must exercise drops and packets in flight: {s:?}"
    );
}

#[test]
fn link_conserves_packets_with_every_impairment() {
    for queue in [
        QueueConfig::Red(RedConfig {
            min_th: Bytes(5_000),
            max_th: Bytes(20_000),
            ..Default::default()
        }),
        QueueConfig::Codel(CodelConfig {
            target: Dur::from_millis(1),
            interval: Dur::from_millis(10),
            ..Default::default()
        }),
        QueueConfig::Droptail(DropTailConfig {
            limit_packets: Some(20),
            ..Default::default()
        }),
    ] {
        let mut fwd = link(10_000_000, Dur::from_millis(7));
        fwd.queue = queue;
        fwd.loss = LossConfig::Bernoulli(BernoulliConfig { p: Probability(0.02) });
        fwd.jitter = Dur::from_millis(2);
        fwd.reorder = Some(ReorderConfig {
            p: Probability(0.05),
            delay: Dur::from_millis(3),
        });
        fwd.cross_traffic = Some(CrossTrafficConfig::Cbr {
            rate: Rate(3_000_000),
            size: Bytes(700),
            start: Dur::ZERO,
        });
        // 12 Mbit/s offered plus 3 Mbit/s of cross traffic into 10 Mbit/s; stop mid-stream.
        let src = Cbr::new(FlowId(0), 1000, Dur::from_nanos(666_667), 100_000, Time::ZERO);
        let (net, _) = cbr_run(&fwd, src, Time(123_456_789));
        let l = &net.links()[0];
        conserved(&l.stats(), l.in_transit_packets());
    }
}

#[test]
fn droptail_limits_backlog_in_packets_and_bytes() {
    // 20 packets of 1000 B at once into 1 Mbps: one goes straight to the serialiser.
    for (cfg, delivered) in [
        (
            DropTailConfig {
                limit_packets: Some(5),
                limit: None,
            },
            1 + 5,
        ),
        (
            DropTailConfig {
                limit_packets: None,
                limit: Some(QueueLimit::Bytes(Bytes(3_000))),
            },
            1 + 3,
        ),
        (
            DropTailConfig {
                limit_packets: Some(5),
                limit: Some(QueueLimit::Bytes(Bytes(2_500))),
            },
            1 + 2,
        ),
    ] {
        let mut fwd = link(1_000_000, Dur::ZERO);
        fwd.queue = QueueConfig::Droptail(cfg.clone());
        let src = Cbr::new(FlowId(0), 1000, Dur::ZERO, 20, Time::ZERO);
        let (net, arrivals) = cbr_run(&fwd, src, Time(Dur::from_secs(1).0));
        assert_eq!(arrivals.lock().unwrap().len(), delivered, "{cfg:?}");
        assert_eq!(
            net.links()[0].stats().queue.dropped_packets,
            20 - delivered as u64,
            "{cfg:?}"
        );
    }
}

#[test]
fn droptail_time_limit_drops_what_would_wait_longer_than_the_limit() {
    // 200 packets of 1000 B at once into 8 Mbit/s: each takes 1 ms to serialise. A 50 ms limit
    // holds a backlog of ⌊8 Mbit/s · 50 ms / 8⌋ = 50 000 B = 50 packets behind the one in
    // service; the last accepted packet leaves at 51 ms, so none waits longer than 50 ms.
    for (limit_ms, rate) in [(50, 8_000_000), (20, 8_000_000), (50, 4_000_000)] {
        let mut fwd = link(rate, Dur::ZERO);
        fwd.queue = QueueConfig::Droptail(DropTailConfig {
            limit: Some(QueueLimit::Time(Dur::from_millis(limit_ms))),
            limit_packets: None,
        });
        let src = Cbr::new(FlowId(0), 1000, Dur::ZERO, 200, Time::ZERO);
        let (net, arrivals) = cbr_run(&fwd, src, Time(Dur::from_secs(2).0));
        let queued = (rate * limit_ms / 1000 / 8 / 1000) as usize;
        let a = arrivals.lock().unwrap();
        assert_eq!(a.len(), 1 + queued, "{limit_ms} ms at {rate} bit/s");
        assert_eq!(net.links()[0].stats().queue.dropped_packets, 200 - 1 - queued as u64);
        let service = Dur(8_000 * 1_000_000_000 / rate);
        let waited = a.last().unwrap().0 .0 - service.0;
        assert!(waited <= Dur::from_millis(limit_ms).0, "{waited} ns");
    }
}

#[test]
fn droptail_time_limit_needs_a_rate() {
    let mut fwd = link(0, Dur::ZERO);
    fwd.queue = QueueConfig::Droptail(DropTailConfig {
        limit: Some(QueueLimit::Time(Dur::from_millis(600))),
        limit_packets: None,
    });
    let err = fwd.resolve(std::path::Path::new(".")).unwrap_err();
    assert_eq!(err.0, "queue.limit");
    assert!(err.1.contains("fixed rate"), "{}", err.1);
}

#[test]
fn red_marks_ect_packets_instead_of_dropping_them() {
    // Offered at twice the rate, the backlog grows until RED acts. Same packets, same draws:
    // with ECT every early drop becomes a mark.
    let run = |ecn: Ecn| {
        let mut fwd = link(10_000_000, Dur::ZERO);
        fwd.queue = QueueConfig::Red(RedConfig {
            min_th: Bytes(10_000),
            max_th: Bytes(30_000),
            w_q: 0.02,
            limit: Bytes(1_000_000),
            ecn: true,
            ..Default::default()
        });
        let mut src = Cbr::new(FlowId(0), 1250, Dur::from_micros(500), 400, Time::ZERO);
        src.ecn = ecn;
        let (net, arrivals) = cbr_run(&fwd, src, Time(Dur::from_secs(1).0));
        let ce = arrivals
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, d)| d.ecn == Ecn::Ce)
            .count() as u64;
        (net.links()[0].stats().queue, ce)
    };
    let (ect, ce) = run(Ecn::Ect0);
    assert!(ect.ecn_marked > 0);
    assert_eq!((ect.dropped_packets, ce), (0, ect.ecn_marked));
    let (not_ect, _) = run(Ecn::NotEct);
    assert!(not_ect.dropped_packets > 0);
    assert_eq!(not_ect.ecn_marked, 0);
}

#[test]
fn jitter_never_reorders_and_stays_within_bounds() {
    // 1 ms apart, 10 ms delay, up to 5 ms jitter: order kept, each arrival within
    // [send + 10 ms, send + 15 ms] unless held behind its predecessor.
    let mut fwd = link(0, Dur::from_millis(10));
    fwd.jitter = Dur::from_millis(5);
    let src = Cbr::new(FlowId(0), 100, Dur::from_millis(1), 2000, Time::ZERO);
    let (_, arrivals) = cbr_run(&fwd, src, Time(Dur::from_secs(3).0));
    let a = arrivals.lock().unwrap();
    assert_eq!(a.len(), 2000);
    let mut spread = 0u64;
    for (i, w) in a.windows(2).enumerate() {
        assert!(w[0].1.packet.pn < w[1].1.packet.pn && w[0].0 <= w[1].0);
        let extra = w[1].0 .0 - (i as u64 + 1) * 1_000_000 - 10_000_000;
        assert!(extra <= 5_000_000);
        spread += extra;
    }
    // The extra delay follows e_k = max(J_k, e_{k-1} - 1 ms), J uniform on [0, 5 ms]; its
    // stationary CDF is F(x) = Π_{i≥0} min((x + i)/5, 1) (x in ms), mean ∫₀⁵ (1 - F) = 3.031 ms.
    let mean = spread as f64 / 1999.0;
    assert!((mean / 3.0306e6 - 1.0).abs() < 0.05, "{mean}");
}

#[test]
fn reorder_holds_back_the_configured_share() {
    // p = 0.1: a held packet arrives 5 ms late, after the next four (1 ms apart).
    let mut fwd = link(0, Dur::from_millis(1));
    fwd.reorder = Some(ReorderConfig {
        p: Probability(0.1),
        delay: Dur::from_millis(5),
    });
    let src = Cbr::new(FlowId(0), 100, Dur::from_millis(1), 10_000, Time::ZERO);
    let (_, arrivals) = cbr_run(&fwd, src, Time(Dur::from_secs(20).0));
    let a = arrivals.lock().unwrap();
    let late = a
        .iter()
        .filter(|(t, d)| t.0 == d.packet.pn * 1_000_000 + 6_000_000)
        .count();
    // Binomial(10000, 0.1): mean 1000, sd 30.
    assert!((900..1100).contains(&late), "{late}");
    assert_eq!(a.len(), 10_000);
}

#[test]
fn max_pps_caps_small_packets_regardless_of_rate() {
    // 64 B packets on a 100 Mbps link capped at 1000 packets/s: 1 ms each.
    let mut fwd = link(100_000_000, Dur::ZERO);
    fwd.max_pps = Some(1000.0);
    let src = Cbr::new(FlowId(0), 64, Dur::ZERO, 10, Time::ZERO);
    let (_, arrivals) = cbr_run(&fwd, src, Time(Dur::from_secs(1).0));
    let times: Vec<u64> = arrivals.lock().unwrap().iter().map(|a| a.0 .0).collect();
    assert_eq!(times, (1..=10).map(|k| k * 1_000_000).collect::<Vec<_>>());
}

#[test]
fn trace_link_delivers_one_mtu_per_opportunity() {
    // Opportunities at 1, 2, 3 ms (period 3 ms): 1500 B each, so 500 B packets go 3 per ms.
    let dir = std::env::temp_dir().join(format!("cclab-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("t.trace"), "1\n2\n3\n").unwrap();
    let mut fwd = link(1, Dur::ZERO);
    fwd.rate = None;
    fwd.trace = Some("t.trace".into());
    let resolved = fwd.resolve(&dir);
    // `resolve` loads the trace: the directory is not needed past it (and was left in /tmp by every run).
    std::fs::remove_dir_all(&dir).unwrap();
    resolved.unwrap();
    let src = Cbr::new(FlowId(0), 500, Dur::ZERO, 9, Time::ZERO);
    let (net, arrivals) = cbr_run(&fwd, src, Time(Dur::from_secs(1).0));
    let times: Vec<u64> = arrivals.lock().unwrap().iter().map(|a| a.0 .0 / 1_000_000).collect();
    assert_eq!(times, vec![1, 1, 1, 2, 2, 2, 3, 3, 3]);
    // 4500 B used of 4500 B offered in the first 3 ms (4 opportunities before 3 ms + 1 ns).
    assert!((net.links()[0].utilisation(Dur::from_millis(3) + Dur(1)) - 4500.0 / 4500.0).abs() < 1e-9);
}

/// A packet of `size` bytes on route 0 (a pure ACK when `ack`).
fn in_flight(size: u32, ack: bool) -> cclab_sim::packet::InFlight {
    use cclab_core::wire::packet::{Datagram, Packet};
    let mut packet = Packet::default();
    if ack {
        packet.ack = Some(Default::default());
    }
    cclab_sim::packet::InFlight::new(
        Datagram {
            flow: FlowId(0),
            size,
            ecn: Ecn::NotEct,
            packet,
        },
        0,
        0,
        Time::ZERO,
    )
}

#[test]
fn link_push_wakeup_merged_into_the_pending_one_equals_next_wake() {
    // The network merges what `push` returns into the link's pending wake-up instead of
    // requesting `next_wake()`; the two must give the same pending time after every push.
    let mut configs = Vec::new();
    for queue in [
        QueueConfig::Droptail(DropTailConfig {
            limit_packets: Some(8),
            ..Default::default()
        }),
        QueueConfig::Codel(CodelConfig::default()),
    ] {
        let mut c = link(10_000_000, Dur::from_micros(300));
        c.queue = queue;
        configs.push(c);
    }
    let mut unlimited = link(0, Dur::from_micros(100));
    unlimited.reorder = Some(ReorderConfig {
        p: Probability(0.3),
        delay: Dur::from_micros(50),
    });
    configs.push(unlimited);
    configs.push(link(0, Dur::ZERO));
    let mut impaired = link(5_000_000, Dur::from_micros(200));
    impaired.duplicate = Some(Probability(0.2));
    impaired.loss = LossConfig::Bernoulli(BernoulliConfig { p: Probability(0.1) });
    impaired.jitter = Dur::from_micros(400);
    impaired.thin_acks = 2;
    impaired.max_pps = Some(2_000.0);
    configs.push(impaired);
    let mut traced = link(0, Dur::from_micros(100));
    traced.rate = None;
    traced.loaded_trace = Some(cclab_sim::link::MahimahiTrace::parse("1\n1\n3\n4\n").unwrap());
    configs.push(traced);
    for (i, cfg) in configs.iter().enumerate() {
        let mut l = cclab_sim::link::Link::new(i as u32, cfg, 7);
        let (mut now, mut pending, mut x) = (Time::ZERO, None::<Time>, 99u64);
        let mut delivered = 0;
        for _ in 0..4000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Steps and sizes on a grid of 1,250 B at 10 Mbit/s (1 ms), so that serialisation ends
            // often fall exactly on a push.
            now += Dur::from_micros([0, 0, 250, 500, 1_000, 2_000][(x >> 40) as usize % 6]);
            // The link's own events due by now run first; one due exactly now sometimes runs
            // after the push (same-instant order), as in the network.
            let before_now = x & 1 == 0;
            while let Some(t) = pending.filter(|&t| t < now || (t == now && !before_now)) {
                l.advance(t);
                pending = l.next_wake();
                while l.pop_arrived().is_some() {
                    delivered += 1;
                }
            }
            let size = if x & 8 == 0 {
                1250
            } else {
                100 + (x >> 20) as u32 % 1400
            };
            let p = in_flight(size, x & 6 == 0);
            let merged = l.push(now, p);
            let expected = pending.into_iter().chain(l.next_wake()).min();
            pending = pending.into_iter().chain(merged).min();
            assert_eq!(pending, expected, "config {i} at {now:?}");
        }
        assert!(delivered > 100, "config {i} delivered only {delivered}");
    }
}

#[test]
fn link_impairments_each_act_alone() {
    // A link asks about ACK thinning, loss and duplication only when one of them is configured (a flag
    // settled at build): each alone must still act, and a link with none of them passes every packet.
    let base = link(10_000_000, Dur::from_micros(100));
    let mut thin = base.clone();
    thin.thin_acks = 2;
    let mut lossy = base.clone();
    lossy.loss = LossConfig::Bernoulli(BernoulliConfig { p: Probability(0.3) });
    let mut dup = base.clone();
    dup.duplicate = Some(Probability(0.3));
    let counts = |cfg: &LinkConfig| {
        let mut l = cclab_sim::link::Link::new(0, cfg, 7);
        for i in 0..1000u64 {
            l.push(Time::ZERO + Dur::from_millis(i), in_flight(100, true));
        }
        let s = l.stats();
        (s.thinned_packets, s.lost_packets, s.duplicated_packets)
    };
    assert_eq!(counts(&base), (0, 0, 0));
    assert_eq!(counts(&thin), (500, 0, 0));
    let (t, lost, d) = counts(&lossy);
    assert!((t, d) == (0, 0) && (200..400).contains(&lost), "lost {lost}");
    let (t, l, duplicated) = counts(&dup);
    assert!(
        (t, l) == (0, 0) && (200..400).contains(&duplicated),
        "duplicated {duplicated}"
    );
}
