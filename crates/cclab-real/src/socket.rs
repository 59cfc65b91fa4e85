//! One UDP socket of a real run on quinn-udp: GSO send batches, GRO and `recvmmsg` receive,
//! ECN read and written. Batches are split into datagrams here, before they meet an endpoint or
//! a link model (style: "batches at the socket, not in the model").

use crate::clock::WallClock;
use cclab_core::time::Time;
use cclab_core::wire::packet::Ecn;
use quinn_udp::{EcnCodepoint, RecvMeta, Transmit, UdpSocketState, BATCH_SIZE};
use std::io::{self, IoSliceMut};
use std::net::{SocketAddr, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};

/// Bytes of one receive buffer: a whole GRO batch of up to 64 KiB.
const RX_BUF: usize = 65536;
/// Receive batches read per [`UdpIo::recv`] call, so a flooded socket cannot starve its loop.
const RX_BATCHES_PER_CALL: usize = 8;

/// A nonblocking UDP socket with its quinn-udp state and receive buffers.
pub struct UdpIo {
    socket: UdpSocket,
    state: UdpSocketState,
    rx: Vec<u8>,
    metas: Vec<RecvMeta>,
}

impl UdpIo {
    /// Binds `addr` (port 0: any); `buffer` sets both socket buffers (the kernel may cap it at
    /// `net.core.rmem_max`/`wmem_max`; what it granted is in [`UdpIo::buffer_sizes`]).
    pub fn bind(addr: SocketAddr, buffer: Option<u64>) -> io::Result<UdpIo> {
        let socket = UdpSocket::bind(addr)?;
        socket.set_nonblocking(true)?;
        let state = UdpSocketState::new((&socket).into())?;
        if let Some(b) = buffer {
            let b = usize::try_from(b).unwrap_or(usize::MAX).min(i32::MAX as usize / 2);
            state.set_recv_buffer_size((&socket).into(), b)?;
            state.set_send_buffer_size((&socket).into(), b)?;
        }
        Ok(UdpIo {
            socket,
            state,
            rx: vec![0; RX_BUF * BATCH_SIZE],
            metas: vec![RecvMeta::default(); BATCH_SIZE],
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }

    /// The file descriptor, to wait on.
    pub fn fd(&self) -> RawFd {
        self.socket.as_raw_fd()
    }

    /// Largest number of datagrams one [`UdpIo::send`] may carry (1 without GSO).
    pub fn max_segments(&self) -> usize {
        self.state.max_gso_segments()
    }

    /// Receive and send buffer sizes the kernel granted, bytes.
    pub fn buffer_sizes(&self) -> (usize, usize) {
        let r = self.state.recv_buffer_size((&self.socket).into()).unwrap_or(0);
        let s = self.state.send_buffer_size((&self.socket).into()).unwrap_or(0);
        (r, s)
    }

    /// Sends `contents` to `dest` as datagrams of `segment` bytes each (the last may be shorter;
    /// `None`: one datagram). `Ok(false)` when the send buffer is full (nothing was sent).
    pub fn send(&self, dest: SocketAddr, contents: &[u8], segment: Option<usize>, ecn: Ecn) -> io::Result<bool> {
        let t = Transmit {
            destination: dest,
            ecn: to_codepoint(ecn),
            contents,
            segment_size: segment.filter(|&s| s < contents.len()),
            src_ip: None,
        };
        match self.state.send((&self.socket).into(), &t) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Hands every datagram waiting (up to a bounded number of batches) to `f` with the time it
    /// was received, its source address and ECN codepoint; returns how many there were.
    ///
    /// The time is read from `clock` after the batch's syscall returned, so it is never before the
    /// datagram reached the socket. A reading taken before the call could be: a thread preempted
    /// between the two (milliseconds on a loaded machine) stamped datagrams that arrived meanwhile
    /// too early, and a relay then released them early and an endpoint sampled an RTT shorter than
    /// the path's propagation delay.
    pub fn recv(&mut self, clock: &WallClock, mut f: impl FnMut(Time, SocketAddr, &[u8], Ecn)) -> io::Result<usize> {
        let mut n = 0;
        for _ in 0..RX_BATCHES_PER_CALL {
            let mut chunks = self.rx.chunks_mut(RX_BUF);
            let mut bufs: [IoSliceMut<'_>; BATCH_SIZE] =
                std::array::from_fn(|_| IoSliceMut::new(chunks.next().expect("BATCH_SIZE buffers")));
            let got = match self.state.recv((&self.socket).into(), &mut bufs, &mut self.metas) {
                Ok(got) => got,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                // A previous send to a closed port reports ECONNREFUSED here on Linux: not ours to fail on.
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => continue,
                Err(e) => return Err(e),
            };
            let at = clock.now();
            for (meta, buf) in self.metas.iter().zip(self.rx.chunks(RX_BUF)).take(got) {
                let ecn = from_codepoint(meta.ecn);
                // A GRO batch: `len` bytes of `stride`-sized datagrams, the last possibly shorter.
                for d in buf[..meta.len].chunks(meta.stride.max(1)) {
                    f(at, meta.addr, d, ecn);
                    n += 1;
                }
            }
        }
        Ok(n)
    }
}

fn to_codepoint(e: Ecn) -> Option<EcnCodepoint> {
    match e {
        Ecn::NotEct => None,
        Ecn::Ect0 => Some(EcnCodepoint::Ect0),
        Ecn::Ect1 => Some(EcnCodepoint::Ect1),
        Ecn::Ce => Some(EcnCodepoint::Ce),
    }
}

fn from_codepoint(e: Option<EcnCodepoint>) -> Ecn {
    match e {
        None => Ecn::NotEct,
        Some(EcnCodepoint::Ect0) => Ecn::Ect0,
        Some(EcnCodepoint::Ect1) => Ecn::Ect1,
        Some(EcnCodepoint::Ce) => Ecn::Ce,
    }
}

/// Datagrams the kernel dropped because this socket's receive buffer was full: the `drops`
/// column of `/proc/net/udp` (or `udp6`) for the socket bound to `addr`.
pub fn kernel_drops(addr: SocketAddr) -> Option<u64> {
    let file = if addr.is_ipv6() {
        "/proc/net/udp6"
    } else {
        "/proc/net/udp"
    };
    let text = std::fs::read_to_string(file).ok()?;
    let port = format!(":{:04X}", addr.port());
    text.lines().skip(1).find_map(|line| {
        let cols: Vec<&str> = line.split_whitespace().collect();
        // sl local_address rem_address st tx:rx tr:tm retrnsmt uid timeout inode ref pointer drops
        (cols.get(1)?.ends_with(&port)).then(|| cols.get(12)?.parse().ok())?
    })
}
