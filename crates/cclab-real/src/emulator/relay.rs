//! The real-time relay: two UDP sockets, one facing the senders and one the receivers, and the
//! [`Fabric`] between them, driven by the wall clock on a thread of its own.
//!
//! A datagram from a sender's address enters its flow's forward route at the time it was read;
//! when the model releases it, it leaves from the receivers' socket to the flow's receiver, with
//! the ECN codepoint the model left on it (a queue may have marked CE). ACKs travel back the same
//! way. Datagrams from any other address are dropped and counted. The bytes ride with the packet
//! (`InFlight::attach_bytes`; buffers are recycled); the model looks only at size, flow, ECN and, when a link
//! thins ACKs, whether the datagram is a pure ACK.

use super::fabric::Fabric;
use super::release::{RateMeter, ReleaseStats};
use crate::clock::{request_realtime_priority, thread_cpu_time, tighten_timer_slack, wait_fds, WallClock};
use crate::socket::UdpIo;
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::{Datagram, FlowId, Packet};
use cclab_core::wire::quic::decode;
use cclab_core::wire::size::QuicProfile;
use cclab_sim::link::LinkRate;
use cclab_sim::packet::InFlight;
use cclab_sim::run::PathPlan;
use cclab_sim::summary::EmulatorSummary;
use cclab_sim::timeseries::LinkSample;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// How close to a release the relay stops sleeping and polls instead: wake-ups from `ppoll`
/// arrive some µs late on a loaded machine, and a release due within this margin is kept by
/// spinning on nonblocking reads.
const SPIN_MARGIN: Dur = Dur(30_000);
/// Longest sleep, so the stop flag is seen promptly.
const MAX_SLEEP: Dur = Dur(5_000_000);

/// Where one flow's endpoints are.
#[derive(Clone, Copy, Debug)]
pub struct FlowAddrs {
    /// The sender's socket.
    pub sender: SocketAddr,
    /// The receiver's socket.
    pub receiver: SocketAddr,
}

/// What the relay measured, handed back when it stops.
pub struct RelayReport {
    /// The fabric, with its links' counters.
    pub fabric: Fabric,
    /// Release errors and counters.
    pub emulator: EmulatorSummary,
    /// Per link: configured and achieved rate (bits/s), where measured.
    pub rates: Vec<(Option<f64>, Option<f64>)>,
    /// Every link's state at each time-series sample: (time, link, sample).
    pub link_samples: Vec<(Time, u32, LinkSample)>,
    /// The first socket error, if the relay stopped on one.
    pub error: Option<String>,
}

/// The relay before it runs: its two sockets are bound, so endpoints can be pointed at them.
pub struct Relay {
    toward_senders: UdpIo,
    toward_receivers: UdpIo,
}

impl Relay {
    /// Binds the two sockets on `ip` (port 0).
    pub fn bind(ip: std::net::IpAddr) -> std::io::Result<Relay> {
        let bind = |ip| UdpIo::bind(SocketAddr::new(ip, 0), Some(16 << 20));
        Ok(Relay {
            toward_senders: bind(ip)?,
            toward_receivers: bind(ip)?,
        })
    }

    /// The address senders send to.
    pub fn sender_side(&self) -> SocketAddr {
        self.toward_senders.local_addr().expect("bound socket has an address")
    }

    /// The address receivers send to.
    pub fn receiver_side(&self) -> SocketAddr {
        self.toward_receivers.local_addr().expect("bound socket has an address")
    }

    /// Runs until `stop` is set: `flows[f]` are flow `f`'s endpoints, `fabric` the path.
    /// `classify` decodes datagrams to tell pure ACKs (needed only when a link thins ACKs);
    /// every `sample_every` each link's state is recorded for the time series.
    pub fn run(
        mut self,
        mut fabric: Fabric,
        plan: &PathPlan,
        flows: &[FlowAddrs],
        classify: Option<QuicProfile>,
        sample_every: Option<Dur>,
        clock: WallClock,
        stop: Arc<AtomicBool>,
    ) -> RelayReport {
        tighten_timer_slack();
        let realtime = request_realtime_priority();
        let (cpu0, wall0) = (thread_cpu_time(), Instant::now());
        let from_sender: HashMap<SocketAddr, u16> = flows
            .iter()
            .enumerate()
            .map(|(f, a)| (a.sender, 2 * f as u16))
            .collect();
        let from_receiver: HashMap<SocketAddr, u16> = flows
            .iter()
            .enumerate()
            .map(|(f, a)| (a.receiver, 2 * f as u16 + 1))
            .collect();
        let last_link: Vec<Option<usize>> = plan
            .routes
            .iter()
            .flat_map(|r| [r.forward.last().copied(), r.reverse.last().copied()])
            .collect();
        let mut meters: Vec<RateMeter> = plan
            .links
            .iter()
            .map(|l| {
                RateMeter::new(match l.config.rate {
                    Some(LinkRate::Limited(r)) => Some(r.bps()),
                    _ => None,
                })
            })
            .collect();
        let mut pool: Vec<Vec<u8>> = Vec::new();
        let mut stats = ReleaseStats::default();
        let (mut unexpected, mut error) = (0u64, None);
        let mut out = Vec::new();
        let mut link_samples = Vec::new();
        let mut next_sample = sample_every.map(|_| Time::ZERO);
        let fds = [self.toward_senders.fd(), self.toward_receivers.fd()];
        while !stop.load(Ordering::Relaxed) {
            for (io, table) in [
                (&mut self.toward_senders, &from_sender),
                (&mut self.toward_receivers, &from_receiver),
            ] {
                let r = io.recv(&clock, |now, addr, bytes, ecn| {
                    let Some(&route) = table.get(&addr) else {
                        unexpected += 1;
                        return;
                    };
                    let packet = match classify {
                        Some(q) => decode(bytes, &q, None).unwrap_or_default(),
                        None => Packet::default(),
                    };
                    let mut p = InFlight::new(
                        Datagram {
                            flow: FlowId(route as u32 / 2),
                            size: bytes.len() as u32 + overhead(addr),
                            ecn,
                            packet,
                        },
                        route,
                        0,
                        now,
                    );
                    let mut b = pool.pop().unwrap_or_default();
                    b.clear();
                    b.extend_from_slice(bytes);
                    p.attach_bytes(b);
                    fabric.push(now, p, &mut out);
                });
                if let Err(e) = r {
                    error.get_or_insert_with(|| format!("relay receive: {e}"));
                }
            }
            fabric.advance(clock.now(), &mut out);
            for mut p in out.drain(..) {
                let bytes = p.take_bytes();
                let f = (p.route / 2) as usize;
                let (io, dest) = if p.route % 2 == 0 {
                    (&self.toward_receivers, flows[f].receiver)
                } else {
                    (&self.toward_senders, flows[f].sender)
                };
                let sent = io.send(dest, &bytes, None, p.ecn);
                let actual = clock.now();
                match sent {
                    Ok(true) => {
                        stats.record(p.enqueued, actual);
                        if let Some(l) = last_link[p.route as usize] {
                            meters[l].record(p.size(), p.enqueued, actual);
                        }
                    }
                    // A full socket buffer at the far end of the path: the datagram is lost there.
                    Ok(false) => {}
                    Err(e) => {
                        error.get_or_insert_with(|| format!("relay send: {e}"));
                    }
                }
                pool.push(bytes);
            }
            let now = clock.now();
            if let (Some(t), Some(every)) = (next_sample, sample_every) {
                if now >= t {
                    for (l, link) in fabric.links().iter().enumerate() {
                        link_samples.push((t, l as u32, link.sample(now)));
                    }
                    next_sample = Some(t + Dur(((now.0 - t.0) / every.0 + 1) * every.0));
                }
            }
            let next = match (fabric.next_wake(), next_sample) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            match next {
                Some(t) if t <= now + SPIN_MARGIN => continue,
                next => {
                    let sleep = next.map_or(MAX_SLEEP, |t| t.saturating_since(now) - SPIN_MARGIN);
                    if let Err(e) = wait_fds(&fds, libc::POLLIN, sleep.min(MAX_SLEEP)) {
                        error.get_or_insert_with(|| format!("relay wait: {e}"));
                        break;
                    }
                }
            }
        }
        let wall = wall0.elapsed().as_secs_f64();
        let cpu_s = (thread_cpu_time() - cpu0).as_secs_f64();
        let emulator = EmulatorSummary {
            unexpected_packets: unexpected,
            realtime_scheduling: realtime,
            cpu_s,
            cpu_utilisation: if wall > 0.0 { cpu_s / wall } else { 0.0 },
            ..stats.summary()
        };
        RelayReport {
            fabric,
            emulator,
            rates: meters.iter().map(|m| (m.configured_bps(), m.achieved_bps())).collect(),
            link_samples,
            error,
        }
    }
}

/// IP + UDP header bytes of a datagram from `addr`.
fn overhead(addr: SocketAddr) -> u32 {
    use cclab_core::wire::size::{IPV4_HEADER, IPV6_HEADER, UDP_HEADER};
    UDP_HEADER + if addr.is_ipv6() { IPV6_HEADER } else { IPV4_HEADER }
}
