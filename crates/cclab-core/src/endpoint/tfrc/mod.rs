//! TFRC (RFC 5348) as DCCP CCID-3 (RFC 4342): a rate-based sender and the receiver that feeds
//! it back the receive rate `X_recv` and the loss event rate `p`.
//!
//! - [`equation`]: the throughput equation (§3.1) and its inverse (§6.3.1).
//! - [`window_counter`]: the CCVal window counter (RFC 4342 §8.1), in integer clock units.
//! - [`loss_history`]: loss detection (§5.1) and the weighted loss-interval history (§5.4).
//! - [`x_recv_set`]: the sender's set of recent receive rates (§4.3).
//! - [`handshake`]: the DCCP-Request/Response exchange that gives the first RTT sample.
//! - [`sender`], [`receiver`]: the two endpoints.
//!
//! Feedback packets echo the greatest sequence number received (the DCCP Acknowledgement
//! Number) as a one-range [`AckFrame`](crate::wire::packet::AckFrame), with the Elapsed Time
//! option both in `TfrcFeedback::elapsed_ns` and in `AckFrame::ack_delay_ns`. Rates are in
//! payload bytes per second, and `s` is the mean payload size (RFC 4342 §5.3).

use serde::Deserialize;

use crate::clock::ClockConfig;
use crate::time::{Dur, NonZeroDur};

pub mod equation;
pub mod handshake;
pub mod loss_history;
pub mod receiver;
pub mod sender;
pub mod window_counter;
pub mod x_recv_set;

pub use receiver::TfrcReceiver;
pub use sender::TfrcSender;

/// Maximum backoff interval `t_mbi` (RFC 5348 §4.3): the rate never drops below one packet per 64 s.
pub const T_MBI: Dur = Dur::from_secs(64);
/// RTT assumed before any sample (DCCP fallback RTT, RFC 4340 §3.4).
pub const FALLBACK_RTT: Dur = Dur::from_millis(200);
/// Nofeedback timeout before the first RTT sample (RFC 5348 §4.2).
pub const INITIAL_NOFEEDBACK: Dur = Dur::from_secs(2);

/// Floor of the allowed rate while `p == 0` (the slow-start step of RFC 5348 §4.3 step 4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SlowStartFloor {
    /// RFC 5348: `X = max(min(2X, recv_limit), W_init/R)`.
    #[default]
    InitialRate,
    /// draft-ietf-dccp-rfc3448bis-00 as Linux implemented it: `X = max(min(2X, lim), s/R)`, where
    /// `lim = recv_limit`, raised to `W_init/R` when the sender sent nothing for more than 2 RTT.
    SegmentPerRtt,
}

/// TFRC parameters of one endpoint (scenario table `[flow.tfrc]`).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TfrcConfig {
    /// Rate floor while there is no loss (default: RFC 5348 `initial-rate`).
    pub slow_start_floor: SlowStartFloor,
    /// Lower bound on the nofeedback timeout `max(4R, 2s/X)` (RFC 5348: 0; Linux
    /// `CONFIG_IP_DCCP_CCID3_RTO`: 100 ms).
    pub nofeedback_min: Dur,
    /// RTT samples are raised to at least this (RFC: 0; Linux after the loopback fix:
    /// `DCCP_SANE_RTT_MIN` = 100 µs).
    pub rtt_clamp_min: Dur,
    /// Unit of the window-counter division (Linux: 1 µs); RTTs below 4 units freeze the counter.
    /// At least 1 ns: quarter RTTs counted in units of 0 have no meaning (a 0 was read as 1 ns).
    pub counter_resolution: NonZeroDur,
    /// The host's clock model (default: exact). The sender's RTT average is kept in whole units
    /// of its resolution, truncated as Linux's integer `tfrc_ewma` in µs.
    pub clock: ClockConfig,
    /// Open with a DCCP-Request/Response exchange whose RTT is the first `R` (RFC 4342 erratum 2,
    /// rfc3448bis-00 §4.2, Linux `dccps_syn_rtt`); default false: the first feedback gives `R`.
    pub handshake: bool,
    /// Server time from a DCCP-Request's arrival to its Response (connection setup work); part
    /// of the handshake RTT sample. Default 0.
    pub response_delay: Dur,
    /// Sender host time from the send decision, when the window counter and the idle test read
    /// the clock (Linux `ccid3_hc_tx_send_packet`), to the packet leaving, when its send time is
    /// stamped for RTT samples (`ccid3_hc_tx_packet_sent`); one packet at a time. Default 0.
    pub send_path: Dur,
}

impl Default for TfrcConfig {
    fn default() -> Self {
        TfrcConfig {
            slow_start_floor: SlowStartFloor::InitialRate,
            nofeedback_min: Dur::ZERO,
            rtt_clamp_min: Dur::ZERO,
            counter_resolution: NonZeroDur::from_micros(1),
            clock: ClockConfig::default(),
            handshake: false,
            response_delay: Dur::ZERO,
            send_path: Dur::ZERO,
        }
    }
}

/// `W_init = min(4s, max(2s, 4380))` bytes (RFC 5348 §4.2, after RFC 3390).
pub fn initial_window(s_bytes: f64) -> f64 {
    (4.0 * s_bytes).min((2.0 * s_bytes).max(4380.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tfrc_config_parses_with_units() {
        let c: TfrcConfig = toml::from_str(
            "slow_start_floor = \"segment-per-rtt\"\nnofeedback_min = \"100ms\"\nrtt_clamp_min = \"100us\"",
        )
        .unwrap();
        assert_eq!(c.slow_start_floor, SlowStartFloor::SegmentPerRtt);
        assert_eq!(
            (c.nofeedback_min, c.rtt_clamp_min),
            (Dur::from_millis(100), Dur::from_micros(100))
        );
        assert_eq!(c.counter_resolution, NonZeroDur::from_micros(1));
        assert!(!c.handshake && c.response_delay == Dur::ZERO && c.send_path == Dur::ZERO);
        let h: TfrcConfig = toml::from_str("handshake = true\nresponse_delay = \"7us\"\nsend_path = \"54us\"").unwrap();
        assert!(h.handshake);
        assert_eq!(
            (h.response_delay, h.send_path),
            (Dur::from_micros(7), Dur::from_micros(54))
        );
        assert!(toml::from_str::<TfrcConfig>("nofeedback_mni = \"1ms\"").is_err());
    }

    #[test]
    fn initial_window_follows_rfc3390() {
        // 22 B packets: 4s = 88 B. 1460 B: 4380 B. 3000 B: 2s = 6000 B.
        assert_eq!(initial_window(22.0), 88.0);
        assert_eq!(initial_window(1460.0), 4380.0);
        assert_eq!(initial_window(3000.0), 6000.0);
    }
}
