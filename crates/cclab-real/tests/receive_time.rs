//! The time a socket hands with a datagram is read after the datagram was received: a loop that
//! read the clock before its receive call, and was then held up, stamped later arrivals with that
//! earlier reading, which let the emulator release them early and an endpoint sample an RTT shorter
//! than the path allows (seen on CI under load: 6.9 ms on a 10 ms path).

use cclab_core::time::Dur;
use cclab_core::wire::packet::Ecn;
use cclab_real::clock::{wait_fds, WallClock};
use cclab_real::socket::UdpIo;
use std::time::Duration;

#[test]
fn a_datagram_is_stamped_no_earlier_than_it_was_sent() {
    let loopback = "127.0.0.1:0".parse().expect("address");
    let mut rx = UdpIo::bind(loopback, None).expect("bind");
    let tx = UdpIo::bind(loopback, None).expect("bind");
    let clock = WallClock::start();
    // Where a driver's loop used to read the clock, then a hold-up before the datagram arrives.
    let loop_top = clock.now();
    std::thread::sleep(Duration::from_millis(20));
    assert!(tx
        .send(rx.local_addr().expect("addr"), b"x", None, Ecn::NotEct)
        .expect("send"));
    let sent = clock.now();
    let mut stamps = Vec::new();
    for _ in 0..100 {
        wait_fds(&[rx.fd()], libc::POLLIN, Dur::from_millis(10)).expect("wait");
        rx.recv(&clock, |at, _, bytes, _| stamps.push((at, bytes.len())))
            .expect("receive");
        if !stamps.is_empty() {
            break;
        }
    }
    assert_eq!(stamps.len(), 1, "one datagram, received");
    let (at, len) = stamps[0];
    assert_eq!(len, 1);
    assert!(
        at >= sent,
        "stamped {at:?}, sent at {sent:?} (the loop's reading was {loop_top:?})"
    );
}
