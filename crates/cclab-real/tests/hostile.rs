//! A live transfer keeps going while hostile datagrams arrive from its peer's own address: the
//! ACK that claims packets 0 to 2^62 − 1 (issue #14's hang), ACKs of packets never sent,
//! garbage and truncated packets. Each is dropped or rejected and counted; every byte still
//! arrives intact, within a deadline.

use cclab_core::endpoint::Endpoint;
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::FlowId;
use cclab_real::clock::WallClock;
use cclab_real::driver::{drive, DriverConfig, Role, Shared};
use cclab_real::socket::UdpIo;
use cclab_real::wire::RealCodec;
use cclab_sim::run::flow_endpoints;
use cclab_sim::Scenario;
use std::net::{SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

const SIZE: u64 = 4_000_000;

/// The 48-byte ACK of issue #14 (QUIC profile, 8-byte connection ID): packets 0 to 2^62 − 1.
const HANG: &str = "4300000000000000000000000102ffffffffffffffff0000ffffffffffffffffa5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5";

fn hostile_datagrams() -> Vec<Vec<u8>> {
    let hex = |s: &str| {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    };
    let mut v: Vec<Vec<u8>> = vec![hex(HANG), vec![], vec![0x40], vec![0xff; 1200], vec![0x43; 30]];
    // ACKs of far-future packet numbers with many ranges, and random bytes.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for len in [17usize, 64, 300, 1400] {
        v.push(
            (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect(),
        );
    }
    v
}

#[test]
fn hostile_datagrams_from_the_peer_address_neither_hang_nor_corrupt_a_transfer() {
    let text = format!(
        r#"
[scenario]
name = "hostile"
duration = "20s"
[path.forward]
rate = "unlimited"
delay = "0s"
[path.return]
rate = "unlimited"
delay = "0s"
[[flow]]
source = {{ kind = "bulk", size = "{SIZE}B" }}
cc = {{ algorithm = "cubic" }}
"#
    );
    let sc = Scenario::from_toml_str(&text, "hostile.toml", &[]).unwrap();
    let f = &sc.config().flow[0];
    let (sender, receiver, _) = flow_endpoints(f, FlowId(0), 1, 0, Time::ZERO);
    let lo: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let (s_io, r_io) = (UdpIo::bind(lo, None).unwrap(), UdpIo::bind(lo, None).unwrap());
    let (s_addr, r_addr) = (s_io.local_addr().unwrap(), r_io.local_addr().unwrap());
    // The proxy both endpoints talk to: it forwards each way and slips hostile datagrams in.
    let proxy = UdpSocket::bind(lo).unwrap();
    proxy.set_read_timeout(Some(Duration::from_millis(5))).unwrap();
    let p_addr = proxy.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let shared = Shared {
        stop: Arc::clone(&stop),
        sender_done: Arc::new(AtomicBool::new(false)),
        receiver_done: Arc::new(AtomicBool::new(false)),
        acked: Arc::new(AtomicU64::new(0)),
        delivered: Arc::new(AtomicU64::new(0)),
    };
    let deadline = Time::ZERO + Dur::from_secs(20);
    let cfg = |role, start| DriverConfig {
        role,
        peer: p_addr,
        start,
        deadline,
        sample_every: None,
        qlog: None,
        qlog_window: None,
    };
    let clock = WallClock::start();
    let codec = RealCodec::new(FlowId(0), f.wire_profile());
    let (done_tx, done_rx) = mpsc::channel();
    let (c1, c2, sh1, sh2) = (codec.clone(), codec, shared.clone(), shared.clone());
    let (cfg_s, cfg_r) = (cfg(Role::Sender, Time::ZERO), cfg(Role::Receiver, Time::ZERO));
    let tx1 = done_tx.clone();
    std::thread::spawn(move || {
        let _ = tx1.send(("sender", Box::new(drive(s_io, sender, c1, cfg_s, clock, sh1).0)));
    });
    std::thread::spawn(move || {
        let _ = done_tx.send(("receiver", Box::new(drive(r_io, receiver, c2, cfg_r, clock, sh2).0)));
    });
    let proxy_stop = Arc::clone(&stop);
    let forwarder = std::thread::spawn(move || {
        let (hostile, mut buf, mut n) = (hostile_datagrams(), vec![0u8; 65536], 0usize);
        let mut injected = 0u64;
        while !proxy_stop.load(Ordering::Relaxed) {
            let Ok((len, from)) = proxy.recv_from(&mut buf) else {
                continue;
            };
            let to = if from == s_addr { r_addr } else { s_addr };
            let _ = proxy.send_to(&buf[..len], to);
            n += 1;
            if n % 50 == 0 {
                // Toward both endpoints: the sender gets the ACK-shaped ones, the receiver the rest too.
                for target in [s_addr, r_addr] {
                    let _ = proxy.send_to(&hostile[(n / 50) % hostile.len()], target);
                    injected += 1;
                }
            }
        }
        injected
    });
    let mut reports = Vec::new();
    for _ in 0..2 {
        match done_rx.recv_timeout(Duration::from_secs(30)) {
            Ok(r) => reports.push(r),
            Err(_) => panic!("a hostile datagram hung an endpoint: no driver returned within 30 s"),
        }
    }
    stop.store(true, Ordering::Relaxed);
    let injected = forwarder.join().unwrap();
    let get = |name| &reports.iter().find(|r| r.0 == name).unwrap().1;
    let (s, r) = (get("sender"), get("receiver"));
    assert!(injected > 10, "the transfer was too short to inject into ({injected})");
    assert_eq!(r.endpoint.stats().bytes_delivered, SIZE, "receiver {:?}", r.counters);
    assert!(s.endpoint.is_done(), "sender {:?}", s.counters);
    assert!(
        s.counters.decode_errors + r.counters.decode_errors > 0,
        "garbage must be counted, not accepted"
    );
}
