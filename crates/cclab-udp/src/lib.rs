//! cclab-udp: the same sans-IO endpoints the simulator drives, over a real UDP socket.
//!
//! The driver owns the socket and the wall clock; the endpoint only ever sees `now` (nanoseconds
//! since the driver started) and decoded packets. Undecodable datagrams are counted and dropped,
//! never fatal. This is the sans-IO proof and the seed of the real mode (quinn-udp with GSO/GRO
//! and a userspace link emulator come next).
#![warn(missing_docs)]

use cclab_core::endpoint::Endpoint;
use cclab_core::wire::packet::{Datagram, Ecn, FlowId};
use cclab_core::wire::quic::{decode, encode};
use cclab_core::wire::size::{QuicProfile, IPV4_HEADER, IPV6_HEADER, UDP_HEADER};
use cclab_core::Time;
use std::io;
use std::net::{SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

/// What a driver saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DriverStats {
    /// Datagrams sent.
    pub sent: u64,
    /// Datagrams received and decoded.
    pub received: u64,
    /// Datagrams received that did not decode (dropped).
    pub decode_errors: u64,
    /// The first decode error, for the report.
    pub first_error: Option<String>,
}

/// One endpoint on one UDP socket, talking to one peer.
pub struct UdpDriver<E: Endpoint> {
    socket: UdpSocket,
    peer: SocketAddr,
    endpoint: E,
    profile: QuicProfile,
    flow: FlowId,
    epoch: Instant,
    largest_pn: Option<u64>,
    stats: DriverStats,
    buf: Vec<u8>,
}

impl<E: Endpoint> UdpDriver<E> {
    /// Wraps `endpoint` on `socket`, sending to `peer`. `epoch` is time zero for the endpoint.
    pub fn new(
        socket: UdpSocket,
        peer: SocketAddr,
        endpoint: E,
        profile: QuicProfile,
        flow: FlowId,
        epoch: Instant,
    ) -> Self {
        UdpDriver {
            socket,
            peer,
            endpoint,
            profile,
            flow,
            epoch,
            largest_pn: None,
            stats: DriverStats::default(),
            buf: Vec::with_capacity(65536),
        }
    }

    fn now(&self) -> Time {
        Time(self.epoch.elapsed().as_nanos() as u64)
    }

    fn ip_overhead(&self) -> u32 {
        UDP_HEADER + if self.profile.ipv6 { IPV6_HEADER } else { IPV4_HEADER }
    }

    /// Runs until `stop(&endpoint)` is true or `deadline` passes; returns the endpoint and what
    /// happened. A receiver usually stops when its peer is done, not itself: the peer may still
    /// need an ACK.
    pub fn run(mut self, deadline: Instant, mut stop: impl FnMut(&E) -> bool) -> io::Result<(E, DriverStats)> {
        let mut rx = vec![0u8; 65536];
        while !stop(&self.endpoint) && Instant::now() < deadline {
            let now = self.now();
            self.endpoint.handle_timeout(now);
            while let Some(d) = self.endpoint.poll_transmit(now) {
                self.buf.clear();
                encode(&d.packet, &self.profile, &mut self.buf);
                self.socket.send_to(&self.buf, self.peer)?;
                self.stats.sent += 1;
            }
            let wait = match self.endpoint.poll_timeout() {
                Some(t) => Duration::from_nanos(t.0.saturating_sub(self.now().0)),
                None => Duration::from_millis(10),
            };
            // A zero read timeout means "block forever" to std; wait at least 1 µs.
            self.socket
                .set_read_timeout(Some(wait.clamp(Duration::from_micros(1), Duration::from_millis(10))))?;
            match self.socket.recv_from(&mut rx) {
                Ok((n, _)) => self.handle(&rx[..n]),
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {}
                Err(e) => return Err(e),
            }
        }
        Ok((self.endpoint, self.stats))
    }

    fn handle(&mut self, bytes: &[u8]) {
        match decode(bytes, &self.profile, self.largest_pn) {
            Ok(packet) => {
                self.largest_pn = Some(self.largest_pn.map_or(packet.pn, |l| l.max(packet.pn)));
                self.stats.received += 1;
                let size = bytes.len() as u32 + self.ip_overhead();
                let now = self.now();
                self.endpoint.handle_datagram(
                    now,
                    Datagram {
                        flow: self.flow,
                        size,
                        ecn: Ecn::NotEct,
                        packet,
                    },
                );
            }
            Err(e) => {
                self.stats.decode_errors += 1;
                self.stats.first_error.get_or_insert_with(|| e.to_string());
            }
        }
    }
}
