//! Loss detection and the probe timeout, RFC 9002 §6 (<https://www.rfc-editor.org/rfc/rfc9002#section-6>),
//! plus persistent-congestion detection (§7.6). One packet-number space (1-RTT).
//!
//! All times are endpoint clock readings; the caller turns the returned deadlines into true
//! times with `Clock::fire_time`.

use crate::recovery::rtt::{RttEstimator, GRANULARITY};
use crate::recovery::sent::{SentPacket, SentPackets};
use crate::time::{Dur, Time};
use core::num::NonZeroU64;

/// kPersistentCongestionThreshold (RFC 9002 §7.6.1).
pub const PERSISTENT_CONGESTION_THRESHOLD: u64 = 3;
/// The retransmission timeout of a TCP connection whose handshake gave no RTT sample, until the
/// first one (RFC 6298 §5.7; Linux `TCP_TIMEOUT_FALLBACK`).
pub const TCP_FALLBACK_RTO: Dur = Dur::from_secs(3);

/// Why a packet was declared lost (qlog trigger names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossTrigger {
    /// `packet_threshold` newer packets were acknowledged (§6.1.1).
    PacketThreshold,
    /// It was sent more than the loss delay before now (§6.1.2).
    TimeThreshold,
}

impl LossTrigger {
    /// qlog `packet_lost` trigger.
    pub fn name(self) -> &'static str {
        match self {
            LossTrigger::PacketThreshold => "reordering_threshold",
            LossTrigger::TimeThreshold => "time_threshold",
        }
    }
}

/// Which timer `LossDetection::timer` armed (§6.2.1: at most one of them at a time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossTimer {
    /// Time-threshold loss timer (§6.1.2).
    TimeThreshold,
    /// Probe timeout (§6.2.1).
    Pto,
}

/// Loss-detection state of one packet-number space.
///
/// Fields in a fixed order (`repr(C)`): the thresholds and the persistent-congestion mark, read only
/// when an ACK or a timeout looks for losses, first (32 bytes), then what the loss timer and the
/// packet-number length of every send read (`Sender`).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct LossDetection {
    /// First packet number sent after the first RTT sample: only from there on can lost
    /// packets establish persistent congestion (§7.6.2).
    pc_first_pn: Option<u64>,
    packet_threshold: u64,
    time_threshold: f64,
    largest_acked: Option<u64>,
    loss_time: Option<Time>,
    last_ack_eliciting_sent: Option<Time>,
    pto_count: u32,
    /// Until the first RTT sample the probe timeout is at least `TCP_FALLBACK_RTO`
    /// (`on_handshake_without_rtt_sample`). A flag, not a duration: it fits beside `pto_count`.
    fallback_rto: bool,
}

/// The bytes of a `LossDetection` that a send reads (all but the thresholds and `pc_first_pn`), for the sender's layout test.
#[cfg(test)]
pub(crate) const SEND_BYTES: core::ops::Range<usize> =
    core::mem::offset_of!(LossDetection, largest_acked)..size_of::<LossDetection>();

impl LossDetection {
    /// `packet_threshold` (kPacketThreshold, RFC default 3) and `time_threshold`
    /// (kTimeThreshold, RFC default 9/8). A threshold of 0 would declare an acknowledged packet lost (§6.1.1);
    /// the type rules it out, where 0 used to be raised to 1 without a word:
    ///
    /// ```compile_fail
    /// cclab_core::recovery::loss::LossDetection::new(0, 9.0 / 8.0);
    /// ```
    pub fn new(packet_threshold: NonZeroU64, time_threshold: f64) -> LossDetection {
        LossDetection {
            packet_threshold: packet_threshold.get(),
            time_threshold,
            largest_acked: None,
            loss_time: None,
            pto_count: 0,
            fallback_rto: false,
            last_ack_eliciting_sent: None,
            pc_first_pn: None,
        }
    }

    /// Largest packet number acknowledged so far.
    pub fn largest_acked(&self) -> Option<u64> {
        self.largest_acked
    }

    /// Consecutive PTO expiries without an acknowledgement (the backoff exponent).
    pub fn pto_count(&self) -> u32 {
        self.pto_count
    }

    /// An ack-eliciting, in-flight packet was sent at `now`.
    pub fn on_ack_eliciting_sent(&mut self, now: Time) {
        self.last_ack_eliciting_sent = Some(now);
    }

    /// An ACK newly acknowledged packets; `largest` is its Largest Acknowledged.
    pub fn on_ack(&mut self, largest: u64) {
        self.largest_acked = Some(self.largest_acked.map_or(largest, |l| l.max(largest)));
        // §6.2.1: the PTO backoff is reset when an acknowledgement is received.
        self.pto_count = 0;
    }

    /// The first RTT sample was just taken; `next_pn` is the next packet number to be sent.
    pub fn on_first_rtt_sample(&mut self, next_pn: u64) {
        self.pc_first_pn.get_or_insert(next_pn);
    }

    /// A TCP handshake whose SYN timed out completed without an RTT sample. RFC 6298 §5.7: "If the
    /// timer expires awaiting the ACK of a SYN segment and the TCP implementation is using an RTO
    /// less than 3 seconds, the RTO MUST be re-initialized to 3 seconds when data transmission
    /// begins (i.e., after the three-way handshake completes)." So the probe timeout is at least
    /// 3 s until the first sample, from which RFC 6298 §2.2 (here RFC 9002 §5.3's estimator)
    /// takes over. Linux does the same in `tcp_init_metrics` (`net/ipv4/tcp_metrics.c`) whenever
    /// `srtt_us` is still 0 there. QUIC needs none of it: RFC 9002 has no such rule, and its
    /// packet numbers give the handshake a sample whatever was lost.
    pub fn on_handshake_without_rtt_sample(&mut self) {
        self.fallback_rto = true;
    }

    /// The PTO fired (§6.2.4): back off.
    pub fn on_pto(&mut self) {
        self.pto_count += 1;
    }

    /// `max(kTimeThreshold · max(smoothed_rtt, latest_rtt), kGranularity)` (§6.1.2).
    pub fn loss_delay(&self, rtt: &RttEstimator) -> Dur {
        let base = rtt.smoothed().max(rtt.latest());
        Dur((base.0 as f64 * self.time_threshold) as u64).max(GRANULARITY)
    }

    /// PTO period with backoff: `pto_base · 2^pto_count` (§6.2.1), from at least 3 s before the
    /// first RTT sample after a TCP handshake without one (`on_handshake_without_rtt_sample`).
    pub fn pto_period(&self, rtt: &RttEstimator, max_ack_delay: Dur) -> Dur {
        let mut base = rtt.pto_base(max_ack_delay, GRANULARITY);
        if self.fallback_rto {
            // Out of line: the period is asked on every send and ACK, the flag is set in rare runs.
            base = Self::fallback_floor(base, rtt);
        }
        if self.pto_count == 0 {
            // Asked on every send and ACK, and backed off only after a PTO fired: no overflow-checked multiply.
            return base;
        }
        base * (1u64 << self.pto_count.min(40))
    }

    #[cold]
    #[inline(never)]
    fn fallback_floor(base: Dur, rtt: &RttEstimator) -> Dur {
        if rtt.has_sample() {
            base
        } else {
            base.max(TCP_FALLBACK_RTO)
        }
    }

    /// The armed timer (§A.8 `SetLossDetectionTimer`): the loss time if set, else the PTO
    /// while ack-eliciting packets are in flight.
    pub fn timer(&self, sent: &SentPackets, rtt: &RttEstimator, max_ack_delay: Dur) -> Option<(Time, LossTimer)> {
        self.timer_with(sent, self.pto_period(rtt, max_ack_delay))
    }

    /// `timer` with the PTO period already worked out (`pto_period`), as a sender keeps it.
    #[inline]
    pub fn timer_with(&self, sent: &SentPackets, pto_period: Dur) -> Option<(Time, LossTimer)> {
        if let Some(t) = self.loss_time {
            return Some((t, LossTimer::TimeThreshold));
        }
        if sent.ack_eliciting_in_flight() == 0 {
            return None;
        }
        let last = self.last_ack_eliciting_sent?;
        Some((last + pto_period, LossTimer::Pto))
    }

    /// §6.1 `DetectAndRemoveLostPackets`: removes every packet below the largest acknowledged
    /// that is lost by packet or time threshold, hands each to `lost`, re-arms the loss time,
    /// and returns whether the lost packets establish persistent congestion (§7.6.2).
    ///
    /// Both thresholds are monotone in packet number (send times do not decrease), so the scan
    /// stops at the first outstanding packet that is not lost: O(lost + holes) per call.
    #[inline]
    pub fn detect_lost(
        &mut self,
        now: Time,
        sent: &mut SentPackets,
        rtt: &RttEstimator,
        max_ack_delay: Dur,
        lost: impl FnMut(u64, &SentPacket, LossTrigger),
    ) -> bool {
        self.loss_time = None;
        let Some(largest) = self.largest_acked else {
            return false;
        };
        // Never past what was sent, whatever `largest` says: the scan stays within the sent record.
        let end = largest.min(sent.next_pn());
        if sent.first_pn() >= end {
            // Nothing outstanding below the largest acknowledged (most ACKs): no threshold to work out,
            // and no call.
            return false;
        }
        self.detect_lost_below(now, sent, rtt, max_ack_delay, largest, lost)
    }

    /// `detect_lost` once something is outstanding below the largest acknowledged, `largest`.
    #[inline(never)]
    fn detect_lost_below(
        &mut self,
        now: Time,
        sent: &mut SentPackets,
        rtt: &RttEstimator,
        max_ack_delay: Dur,
        largest: u64,
        mut lost: impl FnMut(u64, &SentPacket, LossTrigger),
    ) -> bool {
        let end = largest.min(sent.next_pn());
        let loss_delay = self.loss_delay(rtt);
        // §7.6.1: (smoothed_rtt + max(4·rttvar, kGranularity) + max_ack_delay) · 3. Worked out only for a lost
        // packet that follows another without a hole between: losses after a burst alternate with acknowledged
        // packets, and most calls never ask (kept a closure: worked out once a call instead, it cost more, see
        // docs/performance.md).
        let pc_duration = || rtt.pto_base(max_ack_delay, GRANULARITY) * PERSISTENT_CONGESTION_THRESHOLD;
        let mut pc_start: Option<Time> = None;
        let mut persistent = false;
        // Packets are declared lost from the front of the record, in one walk that passes the slots between
        // (acknowledged) once and stops at the first packet not lost.
        let mut next = sent.first_pn();
        let (threshold, pc_first_pn, loss_time) = (self.packet_threshold, self.pc_first_pn, &mut self.loss_time);
        sent.take_front_while(end, |pn, p| {
            if pn != next {
                // A hole: acknowledged (or lost earlier) between two lost packets (§7.6.2).
                pc_start = None;
            }
            let trigger = if pn + threshold <= largest {
                LossTrigger::PacketThreshold
            } else if now.saturating_since(p.time_sent()) >= loss_delay {
                LossTrigger::TimeThreshold
            } else {
                *loss_time = Some(p.time_sent() + loss_delay);
                return false;
            };
            if pc_first_pn.is_some_and(|f| pn >= f) {
                match pc_start {
                    None => pc_start = Some(p.time_sent()),
                    Some(s) => persistent = persistent || p.time_sent().saturating_since(s) > pc_duration(),
                }
            }
            lost(pn, p, trigger);
            next = pn + 1;
            true
        });
        persistent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::delivery_rate::PacketDelivery;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    fn push(s: &mut SentPackets, t: Time) -> u64 {
        let delivery = PacketDelivery::default();
        s.push(SentPacket::new(t, 1000, None, delivery))
    }

    #[test]
    fn loss_persistent_congestion_needs_a_run_without_holes() {
        // §7.6.2: lost ack-eliciting packets establish persistent congestion only if no packet between them
        // was acknowledged. Sent every 100 ms, RTT 10 ms (duration (10 + 20 + 0)·3 = 90 ms).
        let mut rtt = RttEstimator::new(Dur::from_millis(333));
        rtt.update(ms(0), Dur::from_millis(10), Dur::ZERO);
        let run = |acked: &[u64]| {
            let mut s = SentPackets::new();
            let mut l = LossDetection::new(NonZeroU64::new(3).unwrap(), 9.0 / 8.0);
            l.on_first_rtt_sample(0);
            for i in 0..8 {
                push(&mut s, ms(100 * i));
            }
            for &pn in acked {
                s.remove(pn);
                l.on_ack(pn);
            }
            let mut lost = Vec::new();
            let persistent = l.detect_lost(ms(800), &mut s, &rtt, Dur::ZERO, |pn, _, _| lost.push(pn));
            (persistent, lost, s.first_pn())
        };
        // Every other packet acknowledged: no two lost packets without a hole between them, so no period,
        // however far apart they were sent; the lost ones are found across the holes, in order.
        assert_eq!(run(&[1, 3, 5, 7]), (false, vec![0, 2, 4, 6], 8));
        // Two consecutive lost packets 100 ms apart (> 90 ms) do establish it, a hole elsewhere or not;
        // 5-6 are lost by time (sent 200 ms and more before 800 ms), 7 is the largest acknowledged.
        assert_eq!(run(&[2, 7]), (true, vec![0, 1, 3, 4, 5, 6], 8));
        assert!(run(&[7]).0);
    }

    #[test]
    fn loss_time_threshold_arms_timer_then_declares() {
        let mut rtt = RttEstimator::new(Dur::from_millis(333));
        rtt.update(ms(0), Dur::from_millis(80), Dur::ZERO);
        let mut s = SentPackets::new();
        let mut l = LossDetection::new(NonZeroU64::new(3).unwrap(), 9.0 / 8.0);
        for i in 0..3 {
            push(&mut s, ms(i * 10));
        }
        s.remove(2);
        l.on_ack(2);
        let mut got = Vec::new();
        // At 50 ms nothing is lost; the timer is 9/8·80 = 90 ms after packet 0 was sent.
        assert!(!l.detect_lost(ms(50), &mut s, &rtt, Dur::ZERO, |pn, _, t| got.push((pn, t))));
        assert!(got.is_empty());
        assert_eq!(l.timer(&s, &rtt, Dur::ZERO), Some((ms(90), LossTimer::TimeThreshold)));
        l.detect_lost(ms(90), &mut s, &rtt, Dur::ZERO, |pn, _, t| got.push((pn, t)));
        assert_eq!(got, vec![(0, LossTrigger::TimeThreshold)]);
        // Packet 1 (sent at 10 ms) is due at 100 ms.
        assert_eq!(l.timer(&s, &rtt, Dur::ZERO), Some((ms(100), LossTimer::TimeThreshold)));
        // Once it is acknowledged nothing lies below the largest: the loss time is disarmed, the PTO armed.
        s.remove(1);
        l.on_ack(1);
        assert!(!l.detect_lost(ms(95), &mut s, &rtt, Dur::ZERO, |pn, _, t| got.push((pn, t))));
        assert_eq!(got.len(), 1);
        assert!(matches!(l.timer(&s, &rtt, Dur::ZERO), None | Some((_, LossTimer::Pto))));
    }
}
