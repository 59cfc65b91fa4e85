//! Sans-IO proof: the very endpoints the simulator drives move 10 MB over two real UDP sockets on
//! 127.0.0.1 with the wall clock, and every stream byte arrives as sent (the codec checks the
//! byte pattern of every STREAM frame).

use cclab_core::cc::{CcConfig, NewRenoConfig};
use cclab_core::endpoint::receiver::{Receiver, ReceiverConfig};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::Endpoint;
use cclab_core::units::Bytes;
use cclab_core::wire::packet::FlowId;
use cclab_core::wire::size::{Profile, QuicProfile};
use cclab_core::{Dur, Time};
use cclab_udp::UdpDriver;
use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const SIZE: u64 = 10_000_000;

#[test]
fn udp_loopback_transfers_10mb_intact() {
    let q = QuicProfile::default();
    let profile = Profile::Quic(q);
    let a = UdpSocket::bind("127.0.0.1:0").unwrap();
    let b = UdpSocket::bind("127.0.0.1:0").unwrap();
    let (a_addr, b_addr) = (a.local_addr().unwrap(), b.local_addr().unwrap());
    let epoch = Instant::now();
    let deadline = epoch + Duration::from_secs(60);
    let flow = FlowId(0);

    let cfg = SenderConfig {
        initial_rtt: Dur::from_millis(10),
        ..Default::default()
    };
    let source = SourceConfig::Bulk { size: Bytes(SIZE) };
    let sender = Sender::new(
        flow,
        profile,
        &cfg,
        &CcConfig::NewReno(NewRenoConfig::default()),
        &source,
        Time::ZERO,
    );
    let receiver = Receiver::new(flow, profile, &ReceiverConfig::default(), Time::ZERO);

    let sender_done = Arc::new(AtomicBool::new(false));
    let flag = sender_done.clone();
    let rx = std::thread::spawn(move || {
        UdpDriver::new(b, a_addr, receiver, q, flow, epoch)
            .run(deadline, |_| flag.load(Ordering::Acquire))
            .unwrap()
    });
    let (sender, s_stats) = UdpDriver::new(a, b_addr, sender, q, flow, epoch)
        .run(deadline, |s| s.is_done())
        .unwrap();
    sender_done.store(true, Ordering::Release);
    let (receiver, r_stats) = rx.join().unwrap();

    assert!(sender.is_done(), "sender did not finish: {:?}", sender.stats());
    assert_eq!(receiver.stats().bytes_delivered, SIZE);
    assert_eq!(sender.stats().bytes_delivered, SIZE);
    assert_eq!(
        (s_stats.decode_errors, r_stats.decode_errors),
        (0, 0),
        "{:?} {:?}",
        s_stats.first_error,
        r_stats.first_error
    );
    assert!(r_stats.received >= SIZE / 1500);
}
