//! The kernel's `struct tcp_info` (include/uapi/linux/tcp.h, as of Linux 5.x/6.x, prefix up
//! to `tcpi_snd_wnd`) read with `getsockopt(TCP_INFO)`, and its mapping to cclab's metrics.

use cclab_core::endpoint::Metrics;
use cclab_core::time::Dur;
use std::io;
use std::os::fd::RawFd;

/// `struct tcp_info` up to `tcpi_snd_wnd`. A kernel that fills less leaves the tail zero.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpInfo {
    pub state: u8,
    pub ca_state: u8,
    pub retransmits: u8,
    pub probes: u8,
    pub backoff: u8,
    pub options: u8,
    pub wscale: u8,
    pub app_limited_flags: u8,
    pub rto_us: u32,
    pub ato_us: u32,
    pub snd_mss: u32,
    pub rcv_mss: u32,
    pub unacked: u32,
    pub sacked: u32,
    /// Segments currently marked lost (not cumulative).
    pub lost: u32,
    pub retrans: u32,
    pub fackets: u32,
    pub last_data_sent_ms: u32,
    pub last_ack_sent_ms: u32,
    pub last_data_recv_ms: u32,
    pub last_ack_recv_ms: u32,
    pub pmtu: u32,
    pub rcv_ssthresh: u32,
    /// Smoothed RTT, µs.
    pub rtt_us: u32,
    /// RTT variance, µs.
    pub rttvar_us: u32,
    pub snd_ssthresh: u32,
    /// Congestion window, segments.
    pub snd_cwnd: u32,
    pub advmss: u32,
    pub reordering: u32,
    pub rcv_rtt_us: u32,
    pub rcv_space: u32,
    /// Retransmitted segments over the connection's life.
    pub total_retrans: u32,
    /// Pacing rate, bytes/s.
    pub pacing_rate: u64,
    pub max_pacing_rate: u64,
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub segs_out: u32,
    pub segs_in: u32,
    pub notsent_bytes: u32,
    /// Minimum RTT, µs.
    pub min_rtt_us: u32,
    pub data_segs_in: u32,
    pub data_segs_out: u32,
    /// Delivery rate, bytes/s.
    pub delivery_rate: u64,
    pub busy_time_us: u64,
    pub rwnd_limited_us: u64,
    pub sndbuf_limited_us: u64,
    pub delivered: u32,
    pub delivered_ce: u32,
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
    pub dsack_dups: u32,
    pub reord_seen: u32,
    pub rcv_ooopack: u32,
    pub snd_wnd: u32,
}

impl TcpInfo {
    /// `getsockopt(fd, IPPROTO_TCP, TCP_INFO)`.
    pub fn read(fd: RawFd) -> io::Result<TcpInfo> {
        let mut info = TcpInfo::default();
        let mut len = std::mem::size_of::<TcpInfo>() as libc::socklen_t;
        // SAFETY: `info` is a plain-old-data buffer of `len` bytes.
        let r = unsafe {
            libc::getsockopt(
                fd,
                libc::IPPROTO_TCP,
                libc::TCP_INFO,
                (&mut info as *mut TcpInfo).cast(),
                &mut len,
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(info)
    }

    /// In cclab's metrics: windows in bytes (segments × MSS), rates in bits/s, times in ns.
    /// Bytes in flight follow the kernel's `tcp_packets_in_flight` (RFC 6675 pipe):
    /// unacked − sacked − lost + retrans, in segments.
    pub fn metrics(&self) -> Metrics {
        let mss = self.snd_mss as u64;
        let pipe = (self.unacked as u64 + self.retrans as u64).saturating_sub(self.sacked as u64 + self.lost as u64);
        Metrics {
            cwnd: self.snd_cwnd as u64 * mss,
            bytes_in_flight: pipe * mss,
            smoothed_rtt: Dur::from_micros(self.rtt_us as u64),
            min_rtt: Dur::from_micros(if self.min_rtt_us == u32::MAX {
                0
            } else {
                self.min_rtt_us as u64
            }),
            latest_rtt: Dur::from_micros(self.rtt_us as u64),
            pacing_rate_bps: if self.pacing_rate == u64::MAX {
                0
            } else {
                self.pacing_rate.saturating_mul(8)
            },
            delivery_rate_bps: self.delivery_rate.saturating_mul(8),
            ssthresh: if self.snd_ssthresh >= 0x7fff_ffff {
                u64::MAX
            } else {
                self.snd_ssthresh as u64 * mss
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_the_kernel_offsets() {
        // Offsets from include/uapi/linux/tcp.h: tcpi_pacing_rate at 104, tcpi_delivery_rate at 160,
        // tcpi_bytes_sent at 200, tcpi_snd_wnd at 228.
        let base = TcpInfo::default();
        let at = |p: *const u8| p as usize - (&base as *const TcpInfo as usize);
        assert_eq!(at((&base.pacing_rate as *const u64).cast()), 104);
        assert_eq!(at((&base.delivery_rate as *const u64).cast()), 160);
        assert_eq!(at((&base.bytes_sent as *const u64).cast()), 200);
        assert_eq!(at((&base.snd_wnd as *const u32).cast()), 228);
    }

    #[test]
    fn metrics_convert_segments_and_units() {
        let info = TcpInfo {
            snd_mss: 1448,
            snd_cwnd: 10,
            unacked: 8,
            sacked: 2,
            lost: 1,
            retrans: 1,
            rtt_us: 20_000,
            min_rtt_us: 10_000,
            pacing_rate: 1_000_000,
            delivery_rate: 500_000,
            snd_ssthresh: 0x7fff_ffff,
            ..TcpInfo::default()
        };
        let m = info.metrics();
        assert_eq!(m.cwnd, 14_480);
        assert_eq!(m.bytes_in_flight, 6 * 1448);
        assert_eq!(m.smoothed_rtt, Dur::from_millis(20));
        assert_eq!(m.min_rtt, Dur::from_millis(10));
        assert_eq!((m.pacing_rate_bps, m.delivery_rate_bps), (8_000_000, 4_000_000));
        assert_eq!(m.ssthresh, u64::MAX);
    }
}
