//! The TFRC sender driven by hand with feedback packets: the initial rate (RFC 5348 §4.2), the
//! equation-based rate (§4.3), pacing (§4.6) and the nofeedback timer (§4.4). Exact clocks.

use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::tfrc::equation::throughput;
use cclab_core::endpoint::tfrc::{TfrcConfig, TfrcSender};
use cclab_core::endpoint::Endpoint;
use cclab_core::units::{Bytes, Rate};
use cclab_core::wire::packet::{AckFrame, Datagram, Ecn, FlowId, Packet, TfrcFeedback};
use cclab_core::wire::size::{DccpProfile, Profile};
use cclab_core::{Dur, Time};

fn sender(source: SourceConfig) -> TfrcSender {
    let profile = Profile::Dccp(DccpProfile { ipv6: false });
    TfrcSender::new(FlowId(0), profile, &TfrcConfig::default(), &source, Time::ZERO)
}

fn feedback(echo: u64, x_recv: u64, p: f64, elapsed: Dur) -> Datagram {
    let packet = Packet {
        ack: Some(Box::new(AckFrame {
            ranges: vec![(echo, echo)].into(),
            ack_delay_ns: elapsed.as_nanos(),
            ecn: None,
            sack_blocks: None,
        })),
        ..Default::default()
    }
    .with_tfrc(TfrcFeedback {
        x_recv_bps: x_recv,
        p,
        elapsed_ns: elapsed.as_nanos(),
    });
    Datagram {
        flow: FlowId(0),
        size: 64,
        ecn: Ecn::NotEct,
        packet,
    }
}

fn at_us(us: u64) -> Time {
    Time::ZERO + Dur::from_micros(us)
}

fn rel_err(a: f64, b: f64) -> f64 {
    (a - b).abs() / b
}

#[test]
fn tfrc_sender_paces_at_the_initial_rate_then_follows_the_equation() {
    // Bulk data in 1460 B packets: X = 1460 B/s before feedback, so one packet per second.
    let mut tx = sender(SourceConfig::Bulk {
        size: Bytes(10_000_000),
    });
    assert_eq!(tx.poll_transmit(Time::ZERO).map(|d| d.packet.pn), Some(0));
    assert!(tx.poll_transmit(Time::ZERO).is_none());
    assert_eq!(tx.poll_timeout(), Some(at_us(1_000_000)));
    // Feedback at 10 ms that held packet 0 for 2 ms: R = 8 ms, X = W_init/R = 4380 B / 8 ms.
    tx.handle_datagram(at_us(10_000), feedback(0, 0, 0.0, Dur::from_millis(2)));
    assert_eq!(tx.rtt(), Some(Dur::from_millis(8)));
    assert!(rel_err(tx.x_bytes_per_sec(), 547_500.0) < 1e-12);
    assert_eq!(tx.metrics().pacing_rate_bps, 4_380_000);
    // t_ipi = 1460 / 547500 s = 2.666667 ms; the overdue packet goes now, the next one t_ipi later.
    assert_eq!(tx.t_ipi(), Dur(2_666_667));
    assert_eq!(tx.poll_transmit(at_us(10_000)).map(|d| d.packet.pn), Some(1));
    assert!(tx.poll_transmit(at_us(10_000)).is_none());
    assert_eq!(tx.poll_timeout(), Some(at_us(10_000) + Dur(2_666_667)));
    // Feedback for packet 1 at 20 ms with p = 0.02: R = 0.9·8 + 0.1·10 = 8.2 ms, and X follows
    // the equation: f(0.02) = 0.115470 + 0.021051 = 0.136521, X = 1460/(0.0082·0.136521) B/s.
    tx.handle_datagram(at_us(20_000), feedback(1, 1_000_000, 0.02, Dur::ZERO));
    assert_eq!(tx.rtt(), Some(Dur::from_micros(8200)));
    let x_bps = throughput(1460.0, Dur::from_micros(8200), 0.02);
    assert!(rel_err(x_bps, 1_304_190.0) < 1e-4, "{x_bps}");
    assert!(rel_err(tx.x_bytes_per_sec(), x_bps) < 1e-12);
    // Nofeedback after max(4R, 2s/X) = 32.8 ms: X_Bps < 2·X_recv, so Update_Limits(X_Bps/2).
    tx.handle_timeout(at_us(52_799));
    assert!(rel_err(tx.x_bytes_per_sec(), x_bps) < 1e-12);
    tx.handle_timeout(at_us(52_800));
    assert!(rel_err(tx.x_bytes_per_sec(), x_bps / 2.0) < 1e-12);
}

#[test]
fn tfrc_sender_idle_sender_keeps_the_recover_rate() {
    // One 1000 B write every 10 s versus one every 20 ms; feedback at 10 ms gives R = 10 ms and
    // X = W_init/R = 4000 B / 10 ms = 400 kB/s; the nofeedback timer expires 4R = 40 ms later.
    for (rate_bps, expect) in [(800, 400_000.0), (400_000, 200_000.0)] {
        let source = SourceConfig::Cbr {
            packet_size: Bytes(1000),
            rate: Rate(rate_bps),
            duration: None,
        };
        let mut tx = sender(source);
        tx.poll_transmit(Time::ZERO).unwrap();
        tx.handle_datagram(at_us(10_000), feedback(0, 0, 0.0, Dur::ZERO));
        assert!(rel_err(tx.x_bytes_per_sec(), 400_000.0) < 1e-12);
        for us in [20_000, 40_000] {
            while tx.poll_transmit(at_us(us)).is_some() {}
        }
        tx.handle_timeout(at_us(50_000));
        // Idle since the timer was set and X < 2·recover_rate: unchanged (RFC 5348 §4.4). A
        // sender that kept writing has p = 0 and no feedback: X halves.
        assert!(rel_err(tx.x_bytes_per_sec(), expect) < 1e-12, "{rate_bps} bit/s source");
    }
}

#[test]
fn tfrc_sender_send_path_delays_departure_and_the_rtt_stamp() {
    // 50 µs from the send decision to departure: the packet leaves at 50 µs, one at a time, and
    // feedback at 60 µs gives R = 60 - 50 = 10 µs (the sample starts at departure).
    let cfg = TfrcConfig {
        send_path: Dur::from_micros(50),
        ..TfrcConfig::default()
    };
    let profile = Profile::Dccp(DccpProfile { ipv6: false });
    let source = SourceConfig::Bulk { size: Bytes(10_000) };
    let mut tx = TfrcSender::new(FlowId(0), profile, &cfg, &source, Time::ZERO);
    assert!(tx.poll_transmit(Time::ZERO).is_none());
    assert_eq!(tx.poll_timeout(), Some(at_us(50)));
    assert!(tx.poll_transmit(at_us(49)).is_none());
    assert_eq!(tx.poll_transmit(at_us(50)).map(|d| d.packet.pn), Some(0));
    assert_eq!(tx.stats().data_packets_sent, 1);
    tx.handle_datagram(at_us(60), feedback(0, 0, 0.0, Dur::ZERO));
    assert_eq!(tx.rtt(), Some(Dur::from_micros(10)));
}
