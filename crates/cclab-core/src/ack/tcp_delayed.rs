//! TCP delayed ACKs: RFC 1122 §4.2.3.2 and RFC 5681 §4.2 with the Linux receiver's quick-ACK
//! mode (include/net/tcp.h, net/ipv4/tcp_input.c).
//!
//! - ACK at least every 2nd full-sized segment (RFC 5681 §4.2), counted in bytes as Linux does:
//!   ACK once more than one `rcv_mss` is unacknowledged (`__tcp_ack_snd_check`), so a full
//!   segment followed by a shorter last one is ACKed at once; otherwise within the delayed-ACK timeout (RFC 1122: MUST be < 0.5 s;
//!   Linux `TCP_DELACK_MIN` = 40 ms, modelled as fixed: the adaptive `ato` is not).
//! - ACK at once an out-of-order segment (duplicate ACK), a segment that fills all or part of a
//!   gap, and any segment while holes remain (RFC 5681 §4.2; Linux ACKs at once while the
//!   out-of-order queue is not empty — SACK compression of Linux ≥ 4.18 is not modelled).
//! - Quick-ACK mode: the first data segment grants up to `TCP_MAX_QUICKACKS` = 16 immediate
//!   ACKs (`tcp_incr_quickack`), re-granted after an idle gap longer than the RTO; each ACK
//!   sent spends one (`tcp_dec_quickack_mode`). A CE mark after an unmarked segment grants 2
//!   (`tcp_ecn_check_ce` → `tcp_enter_quickack_mode(sk, 2)`).

use core::num::NonZeroU64;

use serde::Deserialize;

use super::{AckPolicy, Arrival};
use crate::time::{Dur, Time};

/// Quick ACKs granted by a CE mark (Linux `tcp_enter_quickack_mode(sk, 2)`).
const CE_QUICKACKS: u64 = 2;

/// A delayed-ACK timeout below 500 ms: RFC 1122 §4.2.3.2
/// (<https://www.rfc-editor.org/rfc/rfc1122#page-96>) says the delay MUST be less than 0.5 s. A longer
/// one is refused, where it used to be cut to 499.999999 ms without a word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelackTimeout(Dur);

impl DelackTimeout {
    /// The first timeout RFC 1122 rules out.
    pub const LIMIT: Dur = Dur::from_millis(500);

    /// `d` if it is below [`Self::LIMIT`].
    pub const fn new(d: Dur) -> Option<DelackTimeout> {
        if d.as_nanos() < Self::LIMIT.as_nanos() {
            Some(DelackTimeout(d))
        } else {
            None
        }
    }
    /// The timeout.
    pub const fn get(self) -> Dur {
        self.0
    }
}

impl<'de> Deserialize<'de> for DelackTimeout {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<DelackTimeout, D::Error> {
        let why = "a delay below 500ms (RFC 1122 §4.2.3.2: an ACK MUST NOT be delayed 0.5 s or more)";
        crate::units::deserialize_duration_within(d, why, DelackTimeout::new)
    }
}

/// Parameters of the TCP delayed-ACK policy.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TcpDelayedConfig {
    /// Delayed-ACK timeout (Linux `TCP_DELACK_MIN` = 40 ms; below 500 ms, RFC 1122).
    pub delack: DelackTimeout,
    /// Full-sized segments per ACK (RFC 5681 §4.2: at least every 2nd).
    pub segments_per_ack: NonZeroU64,
    /// Quick ACKs granted at the start and after idle (Linux `TCP_MAX_QUICKACKS` = 16; the
    /// kernel grants `min(rcv_wnd / (2·rcv_mss), 16)`, 16 for any window ≥ 32 segments).
    pub quickacks: u64,
    /// A gap between data segments longer than this re-grants quick ACKs (Linux: the RTO,
    /// at least `TCP_RTO_MIN` = 200 ms).
    pub idle_restart: Dur,
}

impl Default for TcpDelayedConfig {
    fn default() -> Self {
        TcpDelayedConfig {
            delack: DelackTimeout::new(Dur::from_millis(40)).expect("40 ms is below 500 ms"),
            segments_per_ack: NonZeroU64::new(2).expect("2 is not 0"),
            quickacks: 16,
            idle_restart: Dur::from_millis(200),
        }
    }
}

/// The TCP delayed-ACK receiver policy.
#[derive(Clone, Debug)]
pub struct TcpDelayed {
    cfg: TcpDelayedConfig,
    /// Remaining quick ACKs (Linux `icsk_ack.quick`).
    quick: u64,
    /// Payload bytes received since the last ACK (Linux `rcv_nxt - rcv_wup`).
    pending_bytes: u64,
    /// Arrival of the previous data segment (clock reading), `None` before the first.
    last_arrival: Option<Time>,
}

impl TcpDelayed {
    /// A receiver that has seen no data yet.
    pub fn new(cfg: &TcpDelayedConfig) -> Self {
        TcpDelayed {
            cfg: cfg.clone(),
            quick: 0,
            pending_bytes: 0,
            last_arrival: None,
        }
    }
}

impl AckPolicy for TcpDelayed {
    fn on_packet(&mut self, a: &Arrival<'_>) -> bool {
        // tcp_event_data_recv: quick ACKs on the first data and after a gap longer than the RTO.
        let idle = self
            .last_arrival
            .is_none_or(|t| a.now.saturating_since(t) > self.cfg.idle_restart);
        if idle {
            self.quick = self.quick.max(self.cfg.quickacks);
        }
        self.last_arrival = Some(a.now);
        if a.ce && !a.prev_ce {
            self.quick = self.quick.max(CE_QUICKACKS);
        }
        self.pending_bytes += a.bytes();
        // `segments_per_ack` full segments' worth: more than (n − 1)·MSS bytes unacknowledged.
        let threshold = (self.cfg.segments_per_ack.get() - 1) * a.mss();
        self.quick > 0 || self.pending_bytes > threshold || a.out_of_order || a.new_gap || a.has_holes
    }
    fn on_ack_sent(&mut self) {
        self.quick = self.quick.saturating_sub(1);
        self.pending_bytes = 0;
    }
    fn max_ack_delay(&self) -> Dur {
        self.cfg.delack.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delack_of_half_a_second_or_more_is_refused_not_cut() {
        // It used to run as 499.999999 ms.
        let e = toml::from_str::<TcpDelayedConfig>("delack = \"500ms\"").unwrap_err();
        assert!(e.to_string().contains("below 500ms (RFC 1122 §4.2.3.2"), "{e}");
        let c: TcpDelayedConfig = toml::from_str("delack = \"499999999ns\"").unwrap();
        assert_eq!(TcpDelayed::new(&c).max_ack_delay(), Dur(499_999_999));
        assert_eq!(DelackTimeout::new(Dur::ZERO).map(DelackTimeout::get), Some(Dur::ZERO));
    }
}
