//! The relay: a front socket the client sends to, a back socket facing the server, and the
//! scenario's path between them on a thread driven by the wall clock.

use crate::series::{DirectionSample, QueueSeries};
use cclab_core::time::{transmission_time, Dur, Time};
use cclab_core::wire::packet::{Datagram, FlowId};
use cclab_real::clock::{tighten_timer_slack, wait_fds, WallClock};
use cclab_real::emulator::{Fabric, ReleaseStats};
use cclab_real::socket::UdpIo;
use cclab_sim::link::LinkRate;
use cclab_sim::packet::InFlight;
use cclab_sim::run::{plan, PathPlan};
use cclab_sim::Scenario;
use serde_json::json;
use std::io;
use std::net::{IpAddr, SocketAddr, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Releases due this soon are kept by polling rather than sleeping (as cclab-real's relay does).
const SPIN_MARGIN: Dur = Dur(30_000);
/// Longest sleep, so the stop flag and the sampling interval are seen promptly.
const MAX_SLEEP: Dur = Dur(2_000_000);
/// The arrival time rides in front of each packet's bytes (the model reads only `size`).
const STAMP: usize = 8;

/// A running emulation; [`Emulation::stop`] ends it and returns what it measured.
pub struct Emulation {
    front: SocketAddr,
    listen: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<EmulationReport>>,
}

/// What the relay measured.
#[derive(Clone, Debug)]
pub struct EmulationReport {
    /// The client's address, once it sent something.
    pub client: Option<SocketAddr>,
    /// Final counters per direction (0: client → server, 1: server → client).
    pub directions: [DirectionSample; 2],
    /// Datagrams from addresses that are neither the client nor the server (dropped).
    pub unexpected_packets: u64,
    /// The emulator's own timing errors.
    pub release: ReleaseStats,
    /// The per-interval series.
    pub series: QueueSeries,
    /// The first socket error, if the relay stopped on one.
    pub error: Option<String>,
}

impl EmulationReport {
    /// `emulate.json`'s `emulator` section.
    pub fn to_json(&self) -> serde_json::Value {
        let dir = |d: &DirectionSample| {
            json!({"packets_in": d.packets_in, "bytes_in": d.bytes_in, "packets_out": d.packets_out,
                   "drops": d.drops, "ecn_marks": d.ecn_marks})
        };
        let release = self.release.summary();
        json!({
            "client": self.client.map(|a| a.to_string()),
            "forward": dir(&self.directions[0]),
            "return": dir(&self.directions[1]),
            "unexpected_packets": self.unexpected_packets,
            "release_error_p50_s": release.release_error_p50_s,
            "release_error_p99_s": release.release_error_p99_s,
            "release_error_max_s": release.release_error_max_s,
            "late_packets": release.late_packets,
            "error": self.error,
        })
    }
}

impl Emulation {
    /// Binds the relay on `ip`, picks the server's listen address, and starts the path of
    /// `scenario` (its first flow's routes; `seed` seeds loss, jitter and reordering).
    pub fn start(scenario: &Scenario, seed: Option<u64>, interval: Option<Dur>, ip: IpAddr) -> io::Result<Emulation> {
        let file = scenario.config();
        let plan = plan(file);
        let seed = seed.unwrap_or(file.scenario.seed);
        let interval = interval
            .unwrap_or(file.output.timeseries_interval)
            .max(Dur::from_millis(1));
        let front_io = UdpIo::bind(SocketAddr::new(ip, 0), Some(16 << 20))?;
        let back_io = UdpIo::bind(SocketAddr::new(ip, 0), Some(16 << 20))?;
        let front = front_io.local_addr()?;
        // A free port for the server: bound and released at once (another process could take it
        // in between; the server then fails to bind and says so).
        let listen = UdpSocket::bind(SocketAddr::new(ip, 0))?.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("cclab-emulate".into())
            .spawn(move || relay(front_io, back_io, listen, &plan, seed, interval, &flag))?;
        Ok(Emulation {
            front,
            listen,
            stop,
            thread: Some(thread),
        })
    }

    /// Where the client sends (the emulated server's address).
    pub fn server_addr(&self) -> SocketAddr {
        self.front
    }

    /// Where the server must listen.
    pub fn listen_addr(&self) -> SocketAddr {
        self.listen
    }

    /// Stops the relay and returns its report.
    pub fn stop(mut self) -> EmulationReport {
        self.stop.store(true, Ordering::Relaxed);
        self.thread
            .take()
            .expect("stop is called once")
            .join()
            .unwrap_or_else(|_| EmulationReport {
                client: None,
                directions: Default::default(),
                unexpected_packets: 0,
                release: ReleaseStats::default(),
                series: QueueSeries::default(),
                error: Some("emulator thread panicked".into()),
            })
    }
}

impl Drop for Emulation {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Per route: links, their summed propagation delay, and their rates (for the queueing delay).
struct Route {
    links: Vec<usize>,
    propagation: Dur,
    rates: Vec<Option<u64>>,
}

fn routes(plan: &PathPlan) -> [Route; 2] {
    let route = |links: &Vec<usize>| Route {
        links: links.clone(),
        propagation: Dur(links.iter().map(|&l| plan.links[l].config.delay.0).sum()),
        rates: links
            .iter()
            .map(|&l| match plan.links[l].config.rate {
                Some(LinkRate::Limited(r)) => Some(r.bps()),
                _ => None,
            })
            .collect(),
    };
    [route(&plan.routes[0].forward), route(&plan.routes[0].reverse)]
}

fn relay(
    mut front: UdpIo,
    mut back: UdpIo,
    listen: SocketAddr,
    plan: &PathPlan,
    seed: u64,
    interval: Dur,
    stop: &AtomicBool,
) -> EmulationReport {
    tighten_timer_slack();
    let clock = WallClock::start();
    let mut fabric = Fabric::new(plan, seed);
    let routes = routes(plan);
    let mut report = EmulationReport {
        client: None,
        directions: Default::default(),
        unexpected_packets: 0,
        release: ReleaseStats::default(),
        series: QueueSeries::default(),
        error: None,
    };
    let mut pool: Vec<Vec<u8>> = Vec::new();
    let mut out = Vec::new();
    let mut next_sample = Time::ZERO + interval;
    let fds = [front.fd(), back.fd()];
    let counters = |fabric: &Fabric, report: &EmulationReport| {
        let mut c = report.directions;
        for (d, r) in routes.iter().enumerate() {
            let (drops, marks) = r.links.iter().fold((0, 0), |(dr, mk), &l| {
                let st = fabric.links()[l].stats();
                (
                    dr + st.queue.dropped_packets + st.lost_packets,
                    mk + st.queue.ecn_marked,
                )
            });
            c[d].drops = drops;
            c[d].ecn_marks = marks;
        }
        c
    };
    while !stop.load(Ordering::Relaxed) {
        for (side, io) in [(0usize, &mut front), (1, &mut back)] {
            let r = io.recv(&clock, |now, addr, bytes, ecn| {
                let from_peer = if side == 0 {
                    *report.client.get_or_insert(addr) == addr
                } else {
                    addr == listen
                };
                if !from_peer {
                    report.unexpected_packets += 1;
                    return;
                }
                let d = &mut report.directions[side];
                d.packets_in += 1;
                let size = bytes.len() as u32 + if addr.is_ipv6() { 48 } else { 28 };
                d.bytes_in += size as u64;
                let mut b = pool.pop().unwrap_or_default();
                b.clear();
                b.extend_from_slice(&now.as_nanos().to_be_bytes());
                b.extend_from_slice(bytes);
                let mut p = InFlight::new(
                    Datagram {
                        flow: FlowId(0),
                        size,
                        ecn,
                        packet: Default::default(),
                    },
                    side as u16,
                    0,
                    now,
                );
                p.attach_bytes(b);
                fabric.push(now, p, &mut out);
            });
            if let Err(e) = r {
                report.error.get_or_insert_with(|| format!("emulator receive: {e}"));
            }
        }
        fabric.advance(clock.now(), &mut out);
        for mut p in out.drain(..) {
            let bytes = p.take_bytes();
            let side = p.route as usize;
            let arrival = Time::ZERO + Dur(u64::from_be_bytes(bytes[..STAMP].try_into().expect("stamped")));
            let r = &routes[side];
            let service: u64 = r
                .rates
                .iter()
                .flatten()
                .map(|&bps| transmission_time(p.size(), bps).0)
                .sum();
            let queued = p
                .enqueued
                .saturating_since(arrival)
                .0
                .saturating_sub(r.propagation.0 + service);
            let (io, dest) = match side {
                0 => (&back, listen),
                _ => match report.client {
                    Some(c) => (&front, c),
                    None => continue,
                },
            };
            match io.send(dest, &bytes[STAMP..], None, p.ecn) {
                Ok(true) => {
                    report.directions[side].packets_out += 1;
                    report.release.record(p.enqueued, clock.now());
                    report.series.record(side, Dur(queued));
                }
                Ok(false) => {}
                Err(e) => {
                    // The server is not listening (yet or any more): the datagram is lost there.
                    if e.kind() != io::ErrorKind::ConnectionRefused {
                        report.error.get_or_insert_with(|| format!("emulator send: {e}"));
                    }
                }
            }
            pool.push(bytes);
        }
        let now = clock.now();
        if now >= next_sample {
            let c = counters(&fabric, &report);
            report.series.sample(next_sample, c);
            next_sample += interval;
        }
        let wake = fabric.next_wake().map_or(next_sample, |t| t.min(next_sample));
        if wake > now + SPIN_MARGIN {
            let sleep = (wake.saturating_since(now) - SPIN_MARGIN).min(MAX_SLEEP);
            if let Err(e) = wait_fds(&fds, libc::POLLIN, sleep) {
                report.error.get_or_insert_with(|| format!("emulator wait: {e}"));
                break;
            }
        }
    }
    report.directions = counters(&fabric, &report);
    report
}
