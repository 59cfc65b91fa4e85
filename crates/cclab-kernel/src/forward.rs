//! The forwarding loop of kernel mode: IP packets read from the sender namespace's tun device
//! enter the flow's forward route of the emulated path, packets from the receiver's tun the
//! reverse route, and each leaves through the other tun device at the time the link model
//! releases it. The same `Fabric` the UDP relay drives; only the packet source differs.

use cclab_core::time::Dur;
use cclab_core::wire::packet::{Datagram, Ecn, FlowId};
use cclab_real::clock::{request_realtime_priority, thread_cpu_time, tighten_timer_slack, wait_fds, WallClock};
use cclab_real::emulator::{Fabric, ReleaseStats};
use cclab_sim::packet::InFlight;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::tun::Tun;

/// Wake-ups from `ppoll` come some µs late on a loaded machine; releases due this soon are
/// kept by polling instead of sleeping (as the UDP relay does).
const SPIN_MARGIN: Dur = Dur(30_000);
/// Longest sleep, so the stop flag is seen promptly.
const MAX_SLEEP: Dur = Dur(5_000_000);
/// Largest IP packet a tun device hands over (its MTU is at most this).
const MAX_PACKET: usize = 65_536;

/// What the loop saw, per direction (0: sender → receiver, 1: receiver → sender).
#[derive(Clone, Debug, Default)]
pub struct ForwardReport {
    /// Packets read from each side's tun device.
    pub packets_in: [u64; 2],
    /// IP bytes read from each side's tun device.
    pub bytes_in: [u64; 2],
    /// Packets written out after the model released them.
    pub packets_out: [u64; 2],
    /// Packets the receiving tun device refused (its queue was full).
    pub tun_drops: [u64; 2],
    /// How late the loop released packets against the model's times.
    pub release: ReleaseStats,
    /// The loop ran with real-time scheduling (`SCHED_FIFO`, as the UDP relay asks for).
    pub realtime: bool,
    /// CPU time the loop's thread used, including the kernel's TCP processing of the packets it
    /// wrote into the tun devices (a tun write runs the receiving stack in the writer's context).
    pub cpu: Dur,
    /// The first I/O error, if the loop stopped on one.
    pub error: Option<String>,
}

/// The ECN field of an IPv4 or IPv6 header.
fn ecn_of(packet: &[u8]) -> Ecn {
    let bits = match packet.first().map(|b| b >> 4) {
        Some(4) => packet.get(1).map_or(0, |tos| tos & 0b11),
        Some(6) => packet.get(1).map_or(0, |b| (b >> 4) & 0b11),
        _ => 0,
    };
    match bits {
        0b10 => Ecn::Ect0,
        0b01 => Ecn::Ect1,
        0b11 => Ecn::Ce,
        _ => Ecn::NotEct,
    }
}

/// Marks an ECN-capable packet CE (RFC 3168 §5) as the model's queue decided; for IPv4 the
/// header checksum is recomputed (RFC 791 §3.1).
fn mark_ce(packet: &mut [u8]) {
    match packet.first().map(|b| b >> 4) {
        Some(4) if packet.len() >= 20 => {
            packet[1] |= 0b11;
            let ihl = ((packet[0] & 0x0f) as usize * 4).min(packet.len());
            packet[10] = 0;
            packet[11] = 0;
            let mut sum: u32 = packet[..ihl]
                .chunks(2)
                .map(|w| u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)]) as u32)
                .sum();
            while sum > 0xffff {
                sum = (sum & 0xffff) + (sum >> 16);
            }
            packet[10..12].copy_from_slice(&(!(sum as u16)).to_be_bytes());
        }
        Some(6) if packet.len() >= 40 => packet[1] |= 0b0011_0000,
        _ => {}
    }
}

/// Runs until `stop` is set. `tuns[0]` faces the sender, `tuns[1]` the receiver.
pub fn forward(
    mut fabric: Fabric,
    tuns: &mut [Tun; 2],
    clock: WallClock,
    stop: &AtomicBool,
) -> (Fabric, ForwardReport) {
    tighten_timer_slack();
    // A late wake-up delays every packet due meanwhile and releases them together: the same
    // priority the UDP relay asks for (Linux's RT throttling keeps a core for the TCP threads).
    let mut report = ForwardReport {
        realtime: request_realtime_priority(),
        ..ForwardReport::default()
    };
    let cpu0 = thread_cpu_time();
    let mut buf = vec![0u8; MAX_PACKET];
    let mut pool: Vec<Vec<u8>> = Vec::new();
    let mut out = Vec::new();
    let fds = [tuns[0].fd(), tuns[1].fd()];
    while !stop.load(Ordering::Relaxed) {
        for (side, tun) in tuns.iter_mut().enumerate() {
            loop {
                let n = match tun.recv(&mut buf) {
                    Ok(Some(n)) => n,
                    Ok(None) => break,
                    Err(e) => {
                        report.error.get_or_insert_with(|| format!("tun read: {e}"));
                        break;
                    }
                };
                let now = clock.now();
                report.packets_in[side] += 1;
                report.bytes_in[side] += n as u64;
                let mut bytes = pool.pop().unwrap_or_default();
                bytes.clear();
                bytes.extend_from_slice(&buf[..n]);
                let mut p = InFlight::new(
                    Datagram {
                        flow: FlowId(0),
                        size: n as u32,
                        ecn: ecn_of(&buf[..n]),
                        packet: Default::default(),
                    },
                    side as u16,
                    0,
                    now,
                );
                p.attach_bytes(bytes);
                fabric.push(now, p, &mut out);
            }
        }
        fabric.advance(clock.now(), &mut out);
        for mut p in out.drain(..) {
            let mut bytes = p.take_bytes();
            let side = p.route as usize;
            if p.ecn == Ecn::Ce && ecn_of(&bytes) != Ecn::Ce {
                mark_ce(&mut bytes);
            }
            match tuns[1 - side].send(&bytes) {
                Ok(true) => {
                    report.packets_out[side] += 1;
                    report.release.record(p.enqueued, clock.now());
                }
                Ok(false) => report.tun_drops[side] += 1,
                Err(e) => {
                    report.error.get_or_insert_with(|| format!("tun write: {e}"));
                }
            }
            pool.push(bytes);
        }
        let now = clock.now();
        match fabric.next_wake() {
            Some(t) if t <= now + SPIN_MARGIN => continue,
            next => {
                let sleep = next.map_or(MAX_SLEEP, |t| t.saturating_since(now) - SPIN_MARGIN);
                if let Err(e) = wait_fds(&fds, libc::POLLIN, sleep.min(MAX_SLEEP)) {
                    report.error.get_or_insert_with(|| format!("forward wait: {e}"));
                    break;
                }
            }
        }
    }
    report.cpu = thread_cpu_time() - cpu0;
    (fabric, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ce_mark_sets_the_codepoint_and_keeps_the_ipv4_checksum_valid() {
        // A 20-byte IPv4 header, ECT(0), checksum filled in.
        let mut h = [
            0x45, 0x02, 0, 40, 0, 1, 0x40, 0, 64, 6, 0, 0, 198, 18, 0, 1, 198, 19, 0, 1,
        ];
        let sum = |h: &[u8]| {
            let mut s: u32 = h.chunks(2).map(|w| u16::from_be_bytes([w[0], w[1]]) as u32).sum();
            while s > 0xffff {
                s = (s & 0xffff) + (s >> 16);
            }
            s as u16
        };
        let c = !sum(&h);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        assert_eq!(ecn_of(&h), Ecn::Ect0);
        mark_ce(&mut h);
        assert_eq!(ecn_of(&h), Ecn::Ce);
        assert_eq!(sum(&h), 0xffff, "a valid header sums to all ones");
    }
}
