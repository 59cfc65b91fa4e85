//! Linux's TSO/GSO sending (`net/ipv4/tcp_output.c`): data leaves in aggregates of up to
//! `tcp_tso_autosize` segments, back to back, and a send waits for the next ACK while the window's
//! room is too small for a worthwhile aggregate (`tcp_tso_should_defer`, "a kind of TSO Nagle
//! test"). Linux TCP does this on every device, offload or not: `sk_setup_caps` gives every TCP
//! socket GSO, and a device without TSO (a tun device, as in kernel mode) segments the aggregate
//! in software and still hands its segments on back to back. With fq's pacing the aggregates
//! would be spread out; without it (Linux CUBIC or Reno on the default qdisc) they reach the
//! bottleneck as bursts of up to 45 full segments (64 KiB) at a few hundred Mbit/s and more.
//!
//! Per aggregate (what `tcp_write_xmit` does per skb):
//! - **Size** (`tcp_tso_autosize`, `tcp_tso_segs`): the bytes Linux's pacing rate carries in
//!   2^-`pacing_shift` s (`sk_pacing_rate >> 10`, about 1 ms), plus `gso_max_size >> (min_rtt_us >>
//!   rtt_log)` (close peers get bigger aggregates), at most the socket's GSO size, in full segments,
//!   at least `min_segs`. The pacing rate is the one Linux computes whether or not it paces
//!   (`tcp_update_pacing_rate`): `max(cwnd, in flight) / srtt`, × 2 while `cwnd < ssthresh / 2`,
//!   else × 1.2. An aggregate takes at most `min(cwnd / 2, room)` segments (`tcp_cwnd_test`).
//! - **Deferral** (`tcp_tso_should_defer`): send now in recovery, after 1 ms without a send, when
//!   the room holds a whole aggregate, when it holds `1 / win_divisor` of the window (with
//!   `win_divisor` 0: more than 3 segments), when the oldest packet in flight was sent less than
//!   srtt/2 ago (its ACK is not due yet), and when all the data left fits (the FIN's aggregate);
//!   otherwise wait for the next ACK. Retransmissions are never deferred (Linux sends them from
//!   `tcp_xmit_retransmit_queue`, which does not ask).
//!
//! Not modelled: TCP small queues (the tun device and the simulated host release an aggregate at
//! once), `gso_max_segs` (65,535) and the write queue's skb boundaries (a bulk sender's skbs are
//! full aggregates, so "the room holds this skb" is "the room holds an aggregate").

use crate::time::{Dur, Time};
use core::num::NonZeroU64;
use serde::Deserialize;

/// `MAX_TCP_HEADER + 1`, which `sk_setup_caps` takes off the device's GSO size: `MAX_TCP_HEADER`
/// is `L1_CACHE_ALIGN(128 + MAX_HEADER)`, 192 to 320 bytes by kernel configuration; any of them
/// gives 45 segments of 1448 B or 44 of 1460 B in 64 KiB.
const TCP_HEADER_RESERVE: u64 = 321;
/// Deferral stops once the last send is this old (`NSEC_PER_MSEC` in `tcp_tso_should_defer`).
const DEFER_LIMIT: Dur = Dur::from_millis(1);
/// `tcp_max_tso_deferred_mss`: with `win_divisor` 0, more room than this many segments sends.
const MAX_DEFERRED_SEGMENTS: u64 = 3;
/// `sk_pacing_shift` (10): an aggregate carries about 2^-10 s at the pacing rate.
const PACING_SHIFT: u32 = 10;
/// `tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio`, percent.
const PACING_SS_RATIO: u128 = 200;
const PACING_CA_RATIO: u128 = 120;

/// Linux's TSO autosizing and deferral (`[flow.sender] tso`): the Linux sysctls of the same names
/// and the device's `gso_max_size`, at their defaults. `min_segs` cannot be 0:
///
/// ```compile_fail
/// let t = cclab_core::endpoint::sender::TsoConfig { min_segs: 0, ..Default::default() };
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TsoConfig {
    /// Send in aggregates and defer as Linux does. Default false: one packet per send attempt,
    /// as soon as the window allows.
    pub enabled: bool,
    /// The device's GSO limit in bytes (`ip -d link`'s `gso_max_size`: 65,536).
    pub gso_max_size: u64,
    /// Fewest segments of an aggregate (`tcp_min_tso_segs`: 2; Linux's sysctl takes 1 or more, and a
    /// 0 here was raised to 1 per aggregate).
    pub min_segs: NonZeroU64,
    /// Room of this fraction of the window sends at once (`tcp_tso_win_divisor`: 3); 0: more
    /// than 3 segments of room sends.
    pub win_divisor: u64,
    /// Close peers' extra aggregate halves per 2^`rtt_log` µs of minimum RTT (`tcp_tso_rtt_log`: 9).
    pub rtt_log: u32,
}

impl Default for TsoConfig {
    fn default() -> Self {
        TsoConfig {
            enabled: false,
            gso_max_size: 65_536,
            min_segs: NonZeroU64::new(2).expect("2 is not 0"),
            win_divisor: 3,
            rtt_log: 9,
        }
    }
}

impl TsoConfig {
    /// Smallest `gso_max_size` that leaves room for a segment after `MAX_TCP_HEADER`.
    pub const MIN_GSO_MAX_SIZE: u64 = TCP_HEADER_RESERVE + 1;
    /// Largest `gso_max_size` (`GSO_MAX_SIZE`, BIG TCP's 512 KiB).
    pub const MAX_GSO_MAX_SIZE: u64 = 512 << 10;
}

/// What the sender knows when it asks whether the next data packet may leave.
#[derive(Clone, Copy, Debug)]
pub(super) struct TsoView {
    /// Clock reading.
    pub(super) now: Time,
    /// Congestion window, bytes.
    pub(super) cwnd: u64,
    /// Slow-start threshold, bytes (`u64::MAX` while unset).
    pub(super) ssthresh: u64,
    /// Bytes in flight.
    pub(super) in_flight: u64,
    /// Full segment's payload, bytes.
    pub(super) mss: u64,
    /// Smoothed RTT, once sampled.
    pub(super) srtt: Option<Dur>,
    /// Minimum RTT, once sampled.
    pub(super) min_rtt: Option<Dur>,
    /// When the oldest packet in flight was sent.
    pub(super) oldest_sent: Option<Time>,
    /// The controller is in recovery (Linux `TCP_CA_Recovery` and `TCP_CA_Loss`).
    pub(super) in_recovery: bool,
    /// The packet resends lost data.
    pub(super) retransmission: bool,
    /// Room the peer's receive window leaves from the packet's offset, bytes (`None`: unlimited).
    pub(super) send_window: Option<u64>,
    /// The peer's whole receive window, bytes (`None`: unlimited).
    pub(super) peer_window: Option<u64>,
    /// Bytes still to send, if the application has written its last byte (the FIN is known).
    pub(super) final_rest: Option<u64>,
}

/// Linux TSO state of one sender.
#[derive(Clone, Debug)]
pub(super) struct Tso {
    cfg: TsoConfig,
    /// `sk_gso_max_size`: the device's limit less the header reserve.
    gso_size: u64,
    /// Packets of the aggregate being sent that have not left yet.
    burst_left: u64,
    /// `tcp_wstamp_ns`: the last packet's departure.
    last_send: Option<Time>,
}

impl Tso {
    /// TSO for `cfg` (its `gso_max_size` at least [`TsoConfig::MIN_GSO_MAX_SIZE`]).
    pub(super) fn new(cfg: &TsoConfig) -> Tso {
        Tso {
            cfg: cfg.clone(),
            gso_size: cfg.gso_max_size.saturating_sub(TCP_HEADER_RESERVE).max(1),
            burst_left: 0,
            last_send: None,
        }
    }

    /// Whether the next data packet, which the window admits, may leave now; false: wait for the
    /// next ACK. A true starts an aggregate when none is under way.
    pub(super) fn admits(&mut self, v: &TsoView) -> bool {
        if self.burst_left > 0 || v.retransmission {
            return true;
        }
        let mss = v.mss.max(1);
        let max_segs = self.autosize(v);
        if self.should_defer(v, max_segs) {
            return false;
        }
        // tcp_cwnd_test: at most half the window per aggregate, and no more than the room.
        let room = v.cwnd.saturating_sub(v.in_flight) / mss;
        let quota = (v.cwnd / mss / 2).max(1).min(room.max(1));
        // Both are at least 1: the quota by its own floor, `max_segs` by `min_segs`.
        self.burst_left = quota.min(max_segs);
        true
    }

    /// A packet left at clock reading `now`; `data` if it went through [`Tso::admits`].
    pub(super) fn on_sent(&mut self, now: Time, data: bool) {
        self.last_send = Some(now);
        if data {
            self.burst_left = self.burst_left.saturating_sub(1);
        }
    }

    /// Segments per aggregate (`tcp_tso_autosize`,
    /// <https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/tree/net/ipv4/tcp_output.c>).
    pub(super) fn autosize(&self, v: &TsoView) -> u64 {
        let mss = v.mss.max(1);
        let mut bytes = match v.srtt.filter(|s| s.0 > 0) {
            // tcp_update_pacing_rate: mss·cwnd/srtt at 200 % in early slow start, else 120 %.
            Some(srtt) => {
                let ratio = if v.cwnd < v.ssthresh / 2 {
                    PACING_SS_RATIO
                } else {
                    PACING_CA_RATIO
                };
                let rate = v.cwnd.max(v.in_flight) as u128 * ratio * 10_000_000 / srtt.0 as u128;
                u64::try_from(rate >> PACING_SHIFT).unwrap_or(u64::MAX)
            }
            // No sample yet: Linux leaves the rate at its maximum.
            None => u64::MAX,
        };
        let min_rtt_us = v.min_rtt.map_or(0, |d| d.0 / 1000);
        let r = min_rtt_us.checked_shr(self.cfg.rtt_log).unwrap_or(0);
        if r < 32 {
            bytes = bytes.saturating_add(self.gso_size >> r);
        }
        (bytes.min(self.gso_size) / mss).max(self.cfg.min_segs.get())
    }

    /// `tcp_tso_should_defer` for an aggregate of up to `max_segs` segments.
    fn should_defer(&self, v: &TsoView, max_segs: u64) -> bool {
        if v.in_recovery {
            return false;
        }
        let Some(last) = self.last_send else {
            return false;
        };
        if v.now.saturating_since(last) > DEFER_LIMIT {
            return false;
        }
        let mss = v.mss.max(1);
        let cong_win = v.cwnd.saturating_sub(v.in_flight);
        let limit = cong_win.min(v.send_window.unwrap_or(u64::MAX));
        if limit >= max_segs.saturating_mul(mss) {
            return false;
        }
        let window = v.cwnd.min(v.peer_window.unwrap_or(u64::MAX));
        match window.checked_div(self.cfg.win_divisor) {
            Some(chunk) if limit >= chunk => return false,
            None if limit > MAX_DEFERRED_SEGMENTS * mss => return false,
            _ => {}
        }
        // The oldest packet's ACK is not due within half an RTT: nothing to wait for.
        let Some(oldest) = v.oldest_sent else {
            return false;
        };
        let srtt = v.srtt.unwrap_or(Dur::ZERO);
        if v.now.saturating_since(oldest) < srtt / 2 {
            return false;
        }
        // The aggregate with the FIN gets no more data: it leaves once it fits.
        v.final_rest.is_none_or(|rest| rest > limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;

    fn on() -> TsoConfig {
        TsoConfig {
            enabled: true,
            ..TsoConfig::default()
        }
    }

    /// A sender in congestion avoidance at 1 ms srtt and min RTT, the oldest packet sent 1 ms ago,
    /// with `cwnd` and `in_flight` in segments.
    fn view(cwnd: u64, in_flight: u64) -> TsoView {
        TsoView {
            now: Time(10_000_000),
            cwnd: cwnd * MSS,
            ssthresh: cwnd * MSS,
            in_flight: in_flight * MSS,
            mss: MSS,
            srtt: Some(Dur::from_millis(1)),
            min_rtt: Some(Dur::from_millis(1)),
            oldest_sent: Some(Time(9_000_000)),
            in_recovery: false,
            retransmission: false,
            send_window: None,
            peer_window: None,
            final_rest: None,
        }
    }

    /// A TSO state that last sent at 9.9 ms (0.1 ms before `view`'s now).
    fn recent() -> Tso {
        let mut t = Tso::new(&on());
        t.on_sent(Time(9_900_000), false);
        t
    }

    #[test]
    fn tso_autosize_follows_linux_pacing_rate_and_min_rtt() {
        let t = Tso::new(&on());
        // 150 segments per 1 ms at 120 %: 260,640 kB/s >> 10 = 254,531 B, plus 65,215 >> 1: capped
        // at sk_gso_max_size 65,215 B = 45 segments of 1448 B (as Linux sends at 1 Gbit/s, 1 ms).
        assert_eq!(t.autosize(&view(150, 150)), 45);
        // 20 Mbit/s, 60 ms: 104 segments per 60 ms at 120 % = 3,012 kB/s >> 10 = 2,941 B; the
        // RTT allowance is 65,215 >> (60,000 >> 9 = 117) = 0: 2 segments.
        let v = TsoView {
            srtt: Some(Dur::from_millis(60)),
            min_rtt: Some(Dur::from_millis(60)),
            ..view(104, 104)
        };
        assert_eq!(t.autosize(&v), 2);
        // In early slow start the rate is 200 % instead: 5,019 kB/s >> 10 = 4,902 B, 3 segments.
        let v = TsoView {
            ssthresh: u64::MAX,
            ..v
        };
        assert_eq!(t.autosize(&v), 3);
        // Before an RTT sample Linux's rate is unbounded: a whole GSO aggregate.
        let v = TsoView {
            srtt: None,
            min_rtt: None,
            ..v
        };
        assert_eq!(t.autosize(&v), 45);
    }

    #[test]
    fn tso_defers_small_room_until_a_third_of_the_window() {
        // cwnd 150: an aggregate is 45 segments, a third of the window 50; room of 2 to 44
        // segments waits for ACKs, 45 sends.
        let mut t = recent();
        for room in [2, 10, 44] {
            assert!(!t.admits(&view(150, 150 - room)), "room {room}");
        }
        assert!(t.admits(&view(150, 105)));
        // The whole aggregate follows without asking again, then the next one is judged afresh.
        for _ in 0..45 {
            assert!(t.admits(&view(150, 150)));
            t.on_sent(Time(10_000_000), true);
        }
        assert!(!t.admits(&view(150, 148)));
        // With a window of 60, a third (20 segments) of room sends, in an aggregate of 20.
        let mut t = recent();
        assert!(!t.admits(&view(60, 41)));
        assert!(t.admits(&view(60, 40)));
        assert_eq!(t.burst_left, 20);
    }

    #[test]
    fn tso_sends_at_once_when_no_ack_is_due_or_the_sender_idled() {
        // The oldest packet in flight left 0.4 ms ago, less than srtt/2: its ACK is not due.
        let mut t = recent();
        let v = TsoView {
            oldest_sent: Some(Time(9_600_000)),
            ..view(150, 148)
        };
        assert!(t.admits(&v));
        assert_eq!(t.burst_left, 2);
        // The last send was more than 1 ms ago.
        let mut t = Tso::new(&on());
        t.on_sent(Time(8_900_000), false);
        assert!(t.admits(&view(150, 148)));
        // In recovery, and for a retransmission.
        let mut t = recent();
        assert!(t.admits(&TsoView {
            in_recovery: true,
            ..view(150, 148)
        }));
        let mut t = recent();
        assert!(t.admits(&TsoView {
            retransmission: true,
            ..view(150, 148)
        }));
        assert_eq!(t.burst_left, 0, "a retransmission starts no aggregate");
        // The last data fits in the room (the FIN's aggregate); more than that waits.
        let mut t = recent();
        let tail = |rest| TsoView {
            final_rest: Some(rest * MSS),
            ..view(150, 140)
        };
        assert!(!t.admits(&tail(11)));
        assert!(t.admits(&tail(10)));
    }

    #[test]
    fn tso_win_divisor_zero_sends_beyond_three_segments() {
        let mut t = Tso::new(&TsoConfig { win_divisor: 0, ..on() });
        t.on_sent(Time(9_900_000), false);
        assert!(!t.admits(&view(150, 147)));
        assert!(t.admits(&view(150, 146)));
    }

    #[test]
    fn tso_config_parses_with_linux_defaults() {
        let c: TsoConfig = toml::from_str("enabled = true").unwrap();
        assert_eq!(c, on());
        assert!(toml::from_str::<TsoConfig>("win_div = 3").is_err());
    }
}
