//! Congestion controllers: one trait, one file per algorithm, one registry line each.
//!
//! The sender calls the controller once per ACK frame (or loss-detection pass) with everything
//! that changed (`CongestionEvent`), once per sent packet, and reads `window()` and
//! `pacing_rate()` before sending. Time arrives already read through the endpoint's clock model.

use crate::recovery::rtt::RttEstimator;
use crate::time::{Dur, NonZeroDur, Time};
use crate::units::Bytes;
use crate::wire::packet::Ecn;

/// One newly acknowledged packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckedPacket {
    /// Packet number.
    pub pn: u64,
    /// Bytes that counted toward bytes in flight.
    pub bytes: u64,
    /// When it was sent (clock reading).
    pub time_sent: Time,
}

/// One packet declared lost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LostPacket {
    /// Packet number.
    pub pn: u64,
    /// Bytes that counted toward bytes in flight.
    pub bytes: u64,
    /// When it was sent (clock reading).
    pub time_sent: Time,
    /// Bytes in flight when it was sent, including it (draft-ietf-ccwg-bbr `P.tx_in_flight`).
    pub tx_in_flight: u64,
    /// Bytes declared lost since it was sent, including it (`C.lost − P.lost`).
    pub lost_since_sent: u64,
    /// It was sent while the sender was application limited (`P.is_app_limited`).
    pub is_app_limited: bool,
}

/// A delivery-rate sample (draft-cheng-iccrg-delivery-rate-estimation §3.3), taken on each ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RateSample {
    /// Delivery rate in bytes/s (0 if the sample is invalid).
    pub delivery_rate: f64,
    /// Bytes delivered over the sample interval.
    pub delivered: u64,
    /// Length of the sample interval.
    pub interval: Dur,
    /// `C.delivered` when the packet that produced the sample was sent (round counting).
    pub prior_delivered: u64,
    /// The packet that produced the sample was sent while the sender was application limited.
    pub is_app_limited: bool,
    /// RTT of the packet that produced the sample.
    pub rtt: Dur,
    /// Bytes lost since that packet was sent.
    pub lost: u64,
    /// Bytes in flight when that packet was sent, including it (draft-ietf-ccwg-bbr
    /// `P.tx_in_flight`): the inflight level whose loss rate `lost` measures.
    pub tx_in_flight: u64,
}

/// Everything a controller learns from one ACK frame (or one loss-detection timeout).
#[derive(Clone, Copy, Debug)]
pub struct CongestionEvent<'a> {
    /// Clock reading of the endpoint.
    pub now: Time,
    /// True time of the event, from which [`CongestionEvent::ticks`] counts the endpoint clock's ticks:
    /// a division that only CUBIC's FreeBSD time source reads, so not worked out for every ACK.
    pub true_now: Time,
    /// Length of one tick.
    pub tick: NonZeroDur,
    /// Newly acknowledged packets, in packet-number order.
    pub acked: &'a [AckedPacket],
    /// Packets newly declared lost, in packet-number order.
    pub lost: &'a [LostPacket],
    /// Number of packets newly reported as CE-marked by this ACK (ECN counts increase).
    pub ecn_ce: u64,
    /// RTT estimator after this ACK's sample.
    pub rtt: &'a RttEstimator,
    /// Bytes in flight before the newly acked and lost packets were removed.
    pub prior_in_flight: u64,
    /// Bytes in flight after they were removed.
    pub bytes_in_flight: u64,
    /// The sender had less to send than the window allowed (RFC 9002 §7.8, RFC 9438 §5.8).
    pub app_limited: bool,
    /// Delivery-rate sample for this ACK, if one could be taken.
    pub rate_sample: Option<RateSample>,
    /// Total bytes delivered (acked) so far, including this event.
    pub delivered: u64,
    /// The window may grow on this ACK. False only when the sender grows on cumulative ACKs alone
    /// (`[flow.sender] cumulative_ack_growth`) and this one advanced no cumulative point: NewReno
    /// and CUBIC then grow nothing for the packets it newly acknowledges.
    pub may_raise_window: bool,
    /// The packet number the sender's next packet gets (SND.NXT): HyStart++ and Linux's HyStart start
    /// a round at it, so that a send need not tell them (`CongestionController::reads_sends`).
    pub next_pn: u64,
}

impl CongestionEvent<'_> {
    /// Tick counter of the endpoint clock (FreeBSD `ticks`): whole ticks since the start.
    pub fn ticks(&self) -> u64 {
        crate::clock::ticks(self.true_now, self.tick)
    }

    /// Sum of newly acked bytes.
    pub fn acked_bytes(&self) -> u64 {
        self.acked.iter().map(|p| p.bytes).sum()
    }
    /// Send time of the newest lost packet, if any were lost.
    pub fn largest_lost_sent(&self) -> Option<Time> {
        self.lost.iter().map(|p| p.time_sent).max()
    }
}

/// Congestion-control state reported for traces (qlog `congestion_state_updated`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CcState {
    /// Slow start (including HyStart++'s conservative slow start).
    SlowStart,
    /// Congestion avoidance.
    CongestionAvoidance,
    /// Recovery period after a congestion event.
    Recovery,
    /// Application limited.
    ApplicationLimited,
    /// A controller-specific state (BBR phases), by name.
    Other(&'static str),
}

impl CcState {
    /// The state of a loss-based window controller: recovery first, then application limited, then
    /// slow start or congestion avoidance.
    pub fn of_window(in_recovery: bool, app_limited: bool, in_slow_start: bool) -> CcState {
        if in_recovery {
            CcState::Recovery
        } else if app_limited {
            CcState::ApplicationLimited
        } else if in_slow_start {
            CcState::SlowStart
        } else {
            CcState::CongestionAvoidance
        }
    }

    /// Name used in traces.
    pub fn name(&self) -> &'static str {
        match self {
            CcState::SlowStart => "slow_start",
            CcState::CongestionAvoidance => "congestion_avoidance",
            CcState::Recovery => "recovery",
            CcState::ApplicationLimited => "application_limited",
            CcState::Other(s) => s,
        }
    }
}

/// The controller's answers a sender needs before each data packet, read in one call
/// ([`CongestionController::send_gate`]): the fields mean what the getters of the same name say, the
/// rarely set ones with the value that means "none" in place of `None` (a pacer-bound sender reads the
/// gate on every send attempt, about two per packet, and each `Option` was a tag to write and test).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SendGate {
    /// Congestion window in bytes.
    pub window: u64,
    /// Pacing rate in bytes/s, if the controller sets it.
    pub pacing_rate: Option<f64>,
    /// Until this instant the sender must not send; `Time::ZERO` (no instant is before it): no pause.
    pub pause_until: Time,
    /// Bytes the pacer's bucket may hold for a train after the pause; 0: none.
    pub burst_allowance: u64,
    /// Most bytes of one back-to-back aggregate; 0: one packet at a time.
    pub send_quantum: u64,
    /// Most bytes the pacer's bucket may hold; `u64::MAX`: the controller does not bound its bursts.
    pub max_burst: u64,
}

impl SendGate {
    /// The gate of a controller that sets nothing but its `window` ([`CongestionController::gate_is_window`]).
    pub fn of_window(window: u64) -> SendGate {
        SendGate {
            window,
            pacing_rate: None,
            pause_until: Time::ZERO,
            burst_allowance: 0,
            send_quantum: 0,
            max_burst: u64::MAX,
        }
    }
}

/// The initial window in bytes: `configured`, else RFC 9002 §7.2's
/// `min(10·max_datagram_size, max(14720, 2·max_datagram_size))` for packets of `mss` bytes.
pub fn initial_window(configured: Option<Bytes>, mss: u64) -> u64 {
    configured.map_or((10 * mss).min(14_720.max(2 * mss)), |b| b.0)
}

/// A window-based (optionally paced) congestion controller.
///
/// Required: `on_congestion_event`, `window`, `state`. All times are endpoint clock readings.
pub trait CongestionController: Send {
    /// A packet of `bytes` (counted in flight) was sent; `bytes_in_flight` includes it. Called only on a
    /// controller whose [`CongestionController::reads_sends`] is `true`.
    fn on_packet_sent(&mut self, _now: Time, _pn: u64, _bytes: u64, _bytes_in_flight: u64) {}
    /// Newly acked and/or lost packets from one ACK frame or loss timeout.
    fn on_congestion_event(&mut self, ev: &CongestionEvent<'_>);
    /// Persistent congestion was established (RFC 9002 §7.6).
    fn on_persistent_congestion(&mut self, _now: Time) {}
    /// A PTO fired (RFC 9002 §6.2); most controllers ignore it.
    fn on_pto(&mut self, _now: Time) {}
    /// Congestion window in bytes.
    fn window(&self) -> u64;
    /// Slow-start threshold in bytes (`u64::MAX` while unset).
    fn ssthresh(&self) -> u64 {
        u64::MAX
    }
    /// Pacing rate in bytes/s if the controller sets it; `None` lets the sender apply RFC 9002
    /// §7.7: `1.25 · cwnd / smoothed_rtt`.
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
    /// Until this instant the sender must not send (a forced pacing pause), if any.
    fn pause_until(&self) -> Option<Time> {
        None
    }
    /// Bytes the sender should release back-to-back as one train once `pause_until` has passed
    /// (picoquic's `bandwidth_pause`, seed 002): the pacer's bucket may hold at least this much.
    /// `None` (default) leaves the pacer's usual burst.
    fn burst_allowance(&self) -> Option<u64> {
        None
    }
    /// Most bytes the sender may release back-to-back as one aggregate (draft-ietf-ccwg-bbr
    /// `C.send_quantum`); `None` (default): one packet at a time.
    fn send_quantum(&self) -> Option<u64> {
        None
    }
    /// Most bytes the pacer's bucket may hold (never less than the next packet), for a controller
    /// that bounds its own bursts (Prague: 250 µs at its pacing rate); `None` (default) leaves the
    /// sender's `burst_packets`. A pause's `burst_allowance` still wins.
    fn max_burst(&self) -> Option<u64> {
        None
    }
    /// The ECN codepoint this controller needs on its packets: `Some(Ect1)` for an L4S sender
    /// (RFC 9331 §4.1), `Some(Ect0)` for one that needs classic ECN. A controller that answers
    /// `Some` turns ECN on whatever the sender's `ecn` option says; `None` (default) leaves it there.
    fn ecn_codepoint(&self) -> Option<Ecn> {
        None
    }
    /// `window`, `pause_until`, `burst_allowance`, `send_quantum`, `max_burst` and `pacing_rate` together. The
    /// sender asks them on every send attempt: through a `dyn` controller, one call instead of six, and the
    /// default body, compiled for each controller, inlines its getters. Override only to compute them together.
    fn send_gate(&self) -> SendGate {
        SendGate {
            window: self.window(),
            pacing_rate: self.pacing_rate(),
            pause_until: self.pause_until().unwrap_or(Time::ZERO),
            burst_allowance: self.burst_allowance().unwrap_or(0),
            send_quantum: self.send_quantum().unwrap_or(0),
            max_burst: self.max_burst().unwrap_or(u64::MAX),
        }
    }
    /// Whether `send_gate` is [`SendGate::of_window`] of the window for as long as this controller lives:
    /// no pacing rate, pause, train, send quantum or burst bound, ever. Asked when the sender is built
    /// (and when it builds the controller again); a controller that answers `true` is asked `window` alone
    /// on each send attempt, whose answer comes back in a register where the gate's six are written to
    /// memory and read back. `false` by default, so that a controller that does not say is asked them all.
    fn gate_is_window(&self) -> bool {
        false
    }
    /// Whether `on_congestion_event` reads [`CongestionEvent::rate_sample`]. Asked when the sender is
    /// built (and when it builds the controller again); a controller that answers `false` is handed
    /// `None` there, and the sender works out only the sample's rate, for its metrics. `true` by
    /// default, so that a controller that does not say still gets its samples.
    fn reads_rate_samples(&self) -> bool {
        true
    }
    /// Whether `on_packet_sent` does anything for as long as this controller lives. Asked when the sender
    /// is built (and when it builds the controller again); a controller that answers `false` is not
    /// called on a send (a call through `dyn` on every packet). `true` by default, so that a controller
    /// that does not say still sees its sends.
    fn reads_sends(&self) -> bool {
        true
    }
    /// Current state, for traces.
    fn state(&self) -> CcState;
    /// Short algorithm name (`newreno`, `cubic`, ...).
    fn name(&self) -> &'static str;
}

pub mod bbr;
pub mod bbr3;
pub mod cubic;
pub mod delay_exit;
#[cfg(test)]
mod gate_tests;
pub mod hystart;
pub mod linux_hystart;
pub mod new_reno;
pub mod registry;
pub mod scalable;
#[cfg(test)]
mod sends_tests;
pub mod slow_start;
#[cfg(test)]
pub(crate) mod test_util;
pub mod train_ss;
pub use bbr::{Bbr, BbrConfig};
pub use bbr3::{Bbr3, Bbr3Config};
pub use cubic::{Cubic, CubicConfig};
pub use new_reno::{NewReno, NewRenoConfig};
pub use registry::CcConfig;
pub use scalable::{Dctcp, DctcpConfig, Prague, PragueConfig};
