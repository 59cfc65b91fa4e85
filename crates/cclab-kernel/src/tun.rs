//! A point-to-point tun device inside a network namespace: IP packets the namespace routes to
//! its peer address come out of the file descriptor, and packets written to it enter the
//! namespace's stack. Configured by ioctl (no `ip` command needed); gone when the fd closes.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;

// <linux/if_tun.h>
const TUNSETIFF: libc::c_ulong = 0x4004_54ca;
const IFF_TUN: i16 = 0x0001;
const IFF_NO_PI: i16 = 0x1000;

/// `struct ifreq` (40 bytes on Linux): the name, then a union used here as raw bytes.
#[repr(C)]
struct IfReq {
    name: [u8; libc::IFNAMSIZ],
    data: [u8; 24],
}

impl IfReq {
    fn new(name: &str) -> io::Result<IfReq> {
        let mut r = IfReq {
            name: [0; libc::IFNAMSIZ],
            data: [0; 24],
        };
        if name.len() >= libc::IFNAMSIZ {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("interface name {name:?} is too long"),
            ));
        }
        r.name[..name.len()].copy_from_slice(name.as_bytes());
        Ok(r)
    }

    fn with_addr(name: &str, addr: Ipv4Addr) -> io::Result<IfReq> {
        let mut r = IfReq::new(name)?;
        // struct sockaddr_in: family (host order), port, address (network order).
        r.data[..2].copy_from_slice(&(libc::AF_INET as u16).to_ne_bytes());
        r.data[4..8].copy_from_slice(&addr.octets());
        Ok(r)
    }
}

fn ioctl(fd: RawFd, request: libc::c_ulong, req: &mut IfReq, what: &str) -> io::Result<()> {
    // SAFETY: `req` is a valid, writable `struct ifreq` for every request used here.
    if unsafe { libc::ioctl(fd, request as _, req as *mut IfReq) } < 0 {
        let e = io::Error::last_os_error();
        return Err(io::Error::new(e.kind(), format!("{what}: {e}")));
    }
    Ok(())
}

/// A tun device: read whole IP packets, write whole IP packets (non-blocking).
pub struct Tun {
    file: File,
    name: String,
}

impl Tun {
    /// Creates tun device `name` in the calling thread's namespace with address `local`, peer
    /// `peer` (a /32 host route through the device, nothing else) and `mtu`, and brings it up.
    pub fn create(name: &str, local: Ipv4Addr, peer: Ipv4Addr, mtu: u32) -> io::Result<Tun> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open("/dev/net/tun")
            .map_err(|e| io::Error::new(e.kind(), format!("/dev/net/tun: {e}")))?;
        let mut req = IfReq::new(name)?;
        req.data[..2].copy_from_slice(&(IFF_TUN | IFF_NO_PI).to_ne_bytes());
        ioctl(file.as_raw_fd(), TUNSETIFF, &mut req, "TUNSETIFF")?;

        // Address ioctls go through any AF_INET socket of this namespace.
        // SAFETY: plain socket(2); the fd is owned right away.
        let raw = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a fresh descriptor nobody else owns.
        let sock: OwnedFd = unsafe { std::os::fd::FromRawFd::from_raw_fd(raw) };
        let s = sock.as_raw_fd();
        ioctl(s, libc::SIOCSIFADDR, &mut IfReq::with_addr(name, local)?, "SIOCSIFADDR")?;
        ioctl(
            s,
            libc::SIOCSIFDSTADDR,
            &mut IfReq::with_addr(name, peer)?,
            "SIOCSIFDSTADDR",
        )?;
        ioctl(
            s,
            libc::SIOCSIFNETMASK,
            &mut IfReq::with_addr(name, Ipv4Addr::BROADCAST)?,
            "SIOCSIFNETMASK",
        )?;
        let mut req = IfReq::new(name)?;
        req.data[..4].copy_from_slice(&(mtu as i32).to_ne_bytes());
        ioctl(s, libc::SIOCSIFMTU, &mut req, "SIOCSIFMTU")?;
        let mut req = IfReq::new(name)?;
        ioctl(s, libc::SIOCGIFFLAGS, &mut req, "SIOCGIFFLAGS")?;
        let flags = i16::from_ne_bytes([req.data[0], req.data[1]]) | (libc::IFF_UP | libc::IFF_RUNNING) as i16;
        req.data[..2].copy_from_slice(&flags.to_ne_bytes());
        ioctl(s, libc::SIOCSIFFLAGS, &mut req, "SIOCSIFFLAGS")?;
        Ok(Tun {
            file,
            name: name.to_string(),
        })
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The descriptor, for `poll`.
    pub fn fd(&self) -> RawFd {
        self.file.as_raw_fd()
    }

    /// One IP packet into `buf`; `Ok(None)` when none is waiting.
    pub fn recv(&mut self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        match self.file.read(buf) {
            Ok(n) => Ok(Some(n)),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Writes one IP packet into the namespace; `Ok(false)` if the device queue is full (the
    /// packet is lost, as on a full NIC ring).
    pub fn send(&mut self, packet: &[u8]) -> io::Result<bool> {
        match self.file.write(packet) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(e) => Err(e),
        }
    }
}
