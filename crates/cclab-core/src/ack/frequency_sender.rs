//! Sender-side ACK-frequency policy: which ACK_FREQUENCY frames to send
//! (draft-ietf-quic-ack-frequency-14 §8–9, picoquic `picoquic_compute_ack_gap_and_delay`).
//!
//! The policy asks the peer for one ACK per `gap` ack-eliciting packets, `gap` = packets in the
//! congestion window / `gap_divisor`, and for a max ACK delay of `smoothed_rtt / delay_divisor`
//! floored at the peer's `min_ack_delay`. On a path whose RTT is below the receiver's timer
//! granularity this starves the sender of ACKs (seed 000, picoquic PR #1764); the optional
//! `gap_cap` is picoquic's fix: cap the gap when `min_rtt < 4 × ack_delay`.
//!
//! Two further options configure long-RTT paths as the stacks that run them: `max_gap`, a
//! ceiling that holds on every path (without it a 600 ms satellite window of thousands of
//! packets asks for one ACK per several hundred, and a lost ACK stalls the window), and
//! `slow_start_gap_divisor`, a separate rule while the controller is in its initial slow start
//! (picoquic halves the packets in the window before dividing while `is_ssthresh_initialized`
//! is unset, frames.c `picoquic_compute_ack_gap_and_delay`: the window doubles each round, so
//! ACKs must come more often to clock it and to give the slow-start exits their samples).
//!
//! Wire semantics: a draft receiver ACKs after receiving *more than* Ack-Eliciting Threshold
//! packets (§4, §6), so one ACK per `gap` packets is threshold `gap − 1`. picoquic writes its
//! gap into the field directly but its own receiver ACKs once `gap` packets are pending, so
//! `gap − 1` reproduces its effective ACK rate against a draft-conforming receiver.

use core::num::NonZeroU64;
use std::collections::VecDeque;

use serde::Deserialize;

use crate::recovery::rtt::RttEstimator;
use crate::time::{Dur, Time};
use crate::wire::packet::AckFrequencyFrame;

/// Requested Max Ack Delay must stay below 2^14 ms (§4).
const MAX_REQUESTED_DELAY: Dur = Dur::from_millis((1 << 14) - 1);
/// Unacknowledged frames remembered individually; older ones merge conservatively.
const MAX_OUTSTANDING: usize = 8;

/// Parameters of the sender-side ACK-frequency policy.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AckFrequencySenderConfig {
    /// The peer's `min_ack_delay` transport parameter (§3): no request goes below it. Default 1 ms
    /// (picoquic's `PICOQUIC_ACK_DELAY_MIN`, the value in seed 000).
    pub min_ack_delay: Dur,
    /// The peer's `max_ack_delay` transport parameter, in force until a frame is acknowledged
    /// (RFC 9000 §18.2 default 25 ms); used only by [`AckFrequencySender::max_ack_delay`].
    pub peer_max_ack_delay: Dur,
    /// Packets per ACK = full-sized packets in the congestion window / this (picoquic: 4).
    pub gap_divisor: NonZeroU64,
    /// Cap on the gap applied when `min_rtt < 4 × requested delay` (picoquic's fix: 32);
    /// `None` = no cap (picoquic before PR #1764).
    pub gap_cap: Option<NonZeroU64>,
    /// Ceiling on the gap on every path, whatever the RTT (`None`: none). §8 only bounds the
    /// threshold by the window; real stacks bound it further (picoquic: 32 on short paths).
    pub max_gap: Option<u64>,
    /// Packets per ACK = packets in the window / this while the controller is in its initial
    /// slow start (`None`: `gap_divisor` throughout; picoquic's rule is 8, half the window / 4).
    pub slow_start_gap_divisor: Option<NonZeroU64>,
    /// Requested max ACK delay = smoothed RTT / this (§8: at most one RTT; picoquic: 4).
    pub delay_divisor: NonZeroU64,
    /// Reordering Threshold sent in every frame. Default 1 (immediate ACK on any reordering, the
    /// RFC 9000 behaviour); §9 suggests the sender's loss-detection packet threshold (3, RFC 9002
    /// §6.1.1), and 0 turns reordering-triggered ACKs off — what picoquic sends when its
    /// `ack_ignore_order_local` is set (frames.c `picoquic_format_ack_frequency_frame`).
    pub reordering_threshold: u64,
    /// Smallest gap ever requested, packets per ACK (default 2: RFC 9000's one ACK per two
    /// packets, picoquic's initial and minimum gap). A gap of 0 would be an Ack-Eliciting
    /// Threshold of −1 (§4).
    pub min_gap: NonZeroU64,
    /// The requested gap never decreases: a smaller target gap with a similar delay sends no
    /// frame, and a frame sent for a new delay keeps the larger old gap (picoquic frames.c
    /// `picoquic_format_ack_frequency_frame`: `if (ack_gap < cnx->ack_gap_local) ack_gap =
    /// cnx->ack_gap_local`). Default false (the draft lets the gap follow the window).
    pub monotonic_gap: bool,
}

impl Default for AckFrequencySenderConfig {
    fn default() -> Self {
        AckFrequencySenderConfig {
            min_ack_delay: Dur::from_millis(1),
            peer_max_ack_delay: Dur::from_millis(25),
            gap_divisor: NonZeroU64::new(4).expect("4 is not 0"),
            gap_cap: None,
            max_gap: None,
            slow_start_gap_divisor: None,
            delay_divisor: NonZeroU64::new(4).expect("4 is not 0"),
            reordering_threshold: 1,
            min_gap: NonZeroU64::new(2).expect("2 is not 0"),
            monotonic_gap: false,
        }
    }
}

/// Decides when to send ACK_FREQUENCY frames and which max ACK delay the peer may be using.
#[derive(Clone, Debug)]
pub struct AckFrequencySender {
    cfg: AckFrequencySenderConfig,
    /// Sequence number of the next frame.
    next_sequence: u64,
    /// Gap (packets per ACK) and delay of the last frame sent.
    last: Option<(u64, Dur)>,
    /// When the last frame was produced.
    last_time: Time,
    /// Delay of the newest acknowledged frame (the peer uses it or a newer one).
    acked_delay: Option<Dur>,
    /// The controller is in its initial slow start (ssthresh unset).
    in_slow_start: bool,
    /// Unacknowledged frames as (sequence, requested delay), oldest first. Beyond
    /// `MAX_OUTSTANDING` the two oldest merge into (newer sequence, larger delay), which only
    /// overestimates the delay in force.
    outstanding: VecDeque<(u64, Dur)>,
}

impl AckFrequencySender {
    /// A policy that has sent nothing yet. Its divisors, `min_gap` and `gap_cap` are nonzero types, where a 0
    /// used to be raised to 1 without a word:
    ///
    /// ```compile_fail
    /// use cclab_core::ack::frequency_sender::AckFrequencySenderConfig;
    /// let cfg = AckFrequencySenderConfig { delay_divisor: 0, ..Default::default() };
    /// ```
    pub fn new(cfg: &AckFrequencySenderConfig) -> Self {
        AckFrequencySender {
            cfg: cfg.clone(),
            next_sequence: 0,
            last: None,
            last_time: Time::ZERO,
            acked_delay: None,
            in_slow_start: false,
            outstanding: VecDeque::new(),
        }
    }

    /// Tells the policy whether the controller is in its initial slow start, which selects
    /// `slow_start_gap_divisor`; the sender calls it before [`Self::poll_frame`].
    pub fn set_in_slow_start(&mut self, in_slow_start: bool) {
        self.in_slow_start = in_slow_start;
    }

    /// The gap (ack-eliciting packets per ACK) and the requested max ACK delay for a window of
    /// `cwnd_bytes` with full-sized packets of `mss` bytes.
    pub fn target(&self, cwnd_bytes: u64, mss: u64, rtt: &RttEstimator) -> (u64, Dur) {
        // §8: requested delay ≤ RTT, from smoothed_rtt; never below the peer's min_ack_delay (§4).
        let delay = (rtt.smoothed() / self.cfg.delay_divisor.get())
            .max(self.cfg.min_ack_delay)
            .min(MAX_REQUESTED_DELAY);
        // §8: threshold ≤ packets in the congestion window; picoquic asks for a quarter of it,
        // an eighth in slow start.
        let divisor = match self.cfg.slow_start_gap_divisor {
            Some(d) if self.in_slow_start => d,
            _ => self.cfg.gap_divisor,
        };
        let mut gap = (cwnd_bytes / mss.max(1) / divisor.get())
            .min(self.cfg.max_gap.unwrap_or(u64::MAX))
            .max(self.cfg.min_gap.get());
        // picoquic PR #1764: `if (rtt_min < 4·ack_delay_max && ack_gap > 32) ack_gap = 32`.
        if let Some(cap) = self.cfg.gap_cap {
            if rtt.min() < delay * 4 && gap > cap.get() {
                gap = cap.get();
            }
        }
        (gap, delay)
    }

    /// A new ACK_FREQUENCY frame to send at clock reading `now`, if the target gap or delay
    /// changed. Frames go out at most once per smoothed RTT (§8) and not before the first RTT
    /// sample; a delay within ±1/8 of the one in force is not a change (picoquic's hysteresis).
    pub fn poll_frame(
        &mut self,
        now: Time,
        cwnd_bytes: u64,
        mss: u64,
        rtt: &RttEstimator,
    ) -> Option<AckFrequencyFrame> {
        if !rtt.has_sample() {
            return None;
        }
        let (mut gap, delay) = self.target(cwnd_bytes, mss, rtt);
        if let Some((last_gap, last_delay)) = self.last {
            if now < self.last_time + rtt.smoothed() {
                return None;
            }
            let delay_same = delay >= last_delay.mul_div(7, 8) && delay <= last_delay.mul_div(9, 8);
            let gap_same = if self.cfg.monotonic_gap {
                gap <= last_gap
            } else {
                gap == last_gap
            };
            if gap_same && delay_same {
                return None;
            }
            if self.cfg.monotonic_gap {
                gap = gap.max(last_gap);
            }
        }
        let frame = AckFrequencyFrame {
            sequence: self.next_sequence,
            // §4: the peer ACKs after more than `threshold` packets, so one ACK per `gap`.
            ack_eliciting_threshold: gap - 1,
            // Rounded up so the request never falls below min_ack_delay (§4).
            request_max_ack_delay_us: delay.as_nanos().div_ceil(1000),
            reordering_threshold: self.cfg.reordering_threshold,
        };
        self.next_sequence += 1;
        self.last = Some((gap, delay));
        self.last_time = now;
        if self.outstanding.len() == MAX_OUTSTANDING {
            let (_, d0) = self.outstanding.pop_front().expect("non-empty");
            let (_, d1) = self.outstanding.front_mut().expect("MAX_OUTSTANDING > 1");
            *d1 = (*d1).max(d0);
        }
        self.outstanding
            .push_back((frame.sequence, Dur::from_micros(frame.request_max_ack_delay_us)));
        Some(frame)
    }

    /// The packet carrying frame `sequence` was acknowledged: the peer now uses that frame's
    /// delay or a newer one's.
    pub fn on_frame_acked(&mut self, sequence: u64) {
        while let Some(&(s, d)) = self.outstanding.front() {
            if s > sequence {
                break;
            }
            self.outstanding.pop_front();
            self.acked_delay = Some(d);
        }
    }

    /// The largest max ACK delay the peer may be using, for the PTO (§7): the maximum of the
    /// newest acknowledged request (or the peer's transport parameter before any is
    /// acknowledged) and every unacknowledged request. `None` until a frame was sent.
    pub fn max_ack_delay(&self) -> Option<Dur> {
        self.last?;
        let in_force = self.acked_delay.unwrap_or(self.cfg.peer_max_ack_delay);
        Some(self.outstanding.iter().fold(in_force, |m, &(_, d)| m.max(d)))
    }
}
