//! Delivery-rate estimation, draft-cheng-iccrg-delivery-rate-estimation-02
//! (<https://datatracker.ietf.org/doc/html/draft-cheng-iccrg-delivery-rate-estimation-02>).
//!
//! Each sent packet snapshots the connection's delivery state (`PacketDelivery`, stored on the
//! sent-packet record); each ACK turns the newest acknowledged packet's snapshot into a
//! `RateSample`. All times are endpoint clock readings; sizes are bytes counted in flight.

use crate::cc::RateSample;
use crate::time::{Dur, Time};

/// Delivery state snapshotted when a packet is sent (the draft's `P.*` fields, §3.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PacketDelivery {
    /// `C.delivered` at send time, bytes.
    pub delivered: u64,
    /// `C.delivered_time` at send time.
    pub delivered_time: Time,
    /// `C.first_sent_time` at send time: start of the send interval this packet closes.
    pub first_sent_time: Time,
    /// The sender was application limited when this packet was sent.
    pub is_app_limited: bool,
    /// Bytes declared lost before this packet was sent.
    pub lost: u64,
    /// Bytes in flight just before this packet was sent (`P.tx_in_flight` less the packet).
    pub in_flight_before: u64,
}

/// The part of a sample being assembled while one ACK's packets are processed (`rs.*`).
#[derive(Clone, Copy, Debug)]
struct PendingSample {
    prior_delivered: u64,
    send_elapsed: Dur,
    ack_elapsed: Dur,
    is_app_limited: bool,
    rtt: Dur,
    lost_at_send: u64,
    tx_in_flight: u64,
}

/// Connection-level delivery-rate state (the draft's `C.*` fields) and the sample in progress.
///
/// Fields in a fixed order (`repr(C)`): the connection state a send snapshots first (40 bytes), the
/// sample in progress, which only ACKs read, last (`Sender`).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct DeliveryRate {
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    /// `C.app_limited`: the `delivered` mark at which the app-limited bubble ends (0 = none).
    app_limited: u64,
    lost: u64,
    pending: Option<PendingSample>,
}

/// The bytes of a `DeliveryRate` that a send reads (all but the sample in progress), for the sender's layout test.
#[cfg(test)]
pub(crate) const SEND_BYTES: core::ops::Range<usize> = 0..core::mem::offset_of!(DeliveryRate, pending);

impl DeliveryRate {
    /// A connection that has sent nothing.
    pub fn new() -> DeliveryRate {
        DeliveryRate::default()
    }

    /// Total bytes delivered (acknowledged) so far.
    pub fn delivered(&self) -> u64 {
        self.delivered
    }

    /// Whether an app-limited bubble is still in flight.
    pub fn is_app_limited(&self) -> bool {
        self.app_limited != 0
    }

    /// Snapshot for a packet sent at `now` while `bytes_in_flight` bytes (not counting it)
    /// were outstanding (§3.2 "Upon transmitting a data packet").
    pub fn on_packet_sent(&mut self, now: Time, bytes_in_flight: u64) -> PacketDelivery {
        if bytes_in_flight == 0 {
            // Nothing in flight: a new send interval and ACK interval start here.
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        PacketDelivery {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            is_app_limited: self.app_limited != 0,
            lost: self.lost,
            in_flight_before: bytes_in_flight,
        }
    }

    /// The sender ran out of data while the window had room (§3.4): mark the bubble so that
    /// samples taken until it is acknowledged are flagged app-limited.
    pub fn on_app_limited(&mut self, bytes_in_flight: u64) {
        self.app_limited = (self.delivered + bytes_in_flight).max(1);
    }

    /// Total bytes declared lost so far (`C.lost`).
    pub fn lost(&self) -> u64 {
        self.lost
    }

    /// `bytes` were declared lost.
    pub fn on_packet_lost(&mut self, bytes: u64) {
        self.lost += bytes;
    }

    /// A packet of `bytes` sent at `time_sent` with snapshot `p` was newly acknowledged at
    /// `now` (§3.3 `UpdateRateSample`). Call in packet-number order within one ACK.
    pub fn on_packet_acked(&mut self, now: Time, time_sent: Time, bytes: u64, p: &PacketDelivery) {
        self.on_ack(now, bytes, time_sent, bytes, p);
    }

    /// One ACK at `now` newly acknowledged `bytes` in all; the newest of its packets (the highest
    /// packet number) held `newest_bytes`, was sent at `time_sent` and took snapshot `p`. The same
    /// as `on_packet_acked` for each of them in packet-number order: §3.3 `UpdateRateSample` adds
    /// every packet to `C.delivered` and moves `C.delivered_time` to now, but only the newest
    /// packet's snapshot survives into the sample and into `C.first_sent_time`.
    pub fn on_ack(&mut self, now: Time, bytes: u64, time_sent: Time, newest_bytes: u64, p: &PacketDelivery) {
        self.delivered += bytes;
        self.delivered_time = now;
        // Packet numbers grow with send time, so the newest packet is the one sent last.
        self.pending = Some(PendingSample {
            prior_delivered: p.delivered,
            send_elapsed: time_sent.saturating_since(p.first_sent_time),
            ack_elapsed: now.saturating_since(p.delivered_time),
            is_app_limited: p.is_app_limited,
            rtt: now.saturating_since(time_sent),
            lost_at_send: p.lost,
            tx_in_flight: p.in_flight_before + newest_bytes,
        });
        self.first_sent_time = time_sent;
    }

    /// Completes the sample of this ACK (§3.3 `GenerateRateSample`); `None` if it acked nothing.
    /// A sample whose interval is shorter than `min_rtt` (or zero) has `delivery_rate = 0`.
    pub fn generate(&mut self, min_rtt: Dur) -> Option<RateSample> {
        let s = self.complete()?;
        let (delivered, interval) = self.delivered_over(&s);
        Some(RateSample {
            delivery_rate: rate(delivered, interval, min_rtt),
            delivered,
            interval,
            prior_delivered: s.prior_delivered,
            is_app_limited: s.is_app_limited,
            rtt: s.rtt,
            lost: self.lost - s.lost_at_send,
            tx_in_flight: s.tx_in_flight,
        })
    }

    /// `on_ack` and `generate`'s rate for a controller that reads no rate sample, where the sender keeps
    /// only the rate (for its metrics): the same effects, but the sample's interval and bytes are
    /// returned at once, not assembled in `pending` (8 words written and read back on every ACK), and
    /// checked against `min_rtt` by the caller ([`Rate::of`]) after the ACK's RTT sample, as `generate` is.
    pub fn on_ack_rate_only(&mut self, now: Time, bytes: u64, time_sent: Time, p: &PacketDelivery) -> (u64, Dur) {
        self.delivered += bytes;
        self.delivered_time = now;
        self.first_sent_time = time_sent;
        // `complete`'s mark clearing: `delivered` moves only here, so it is the same after the ACK.
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let interval = time_sent
            .saturating_since(p.first_sent_time)
            .max(now.saturating_since(p.delivered_time));
        (self.delivered - p.delivered, interval)
    }

    /// Ends this ACK's sample: clears the app-limited mark once the bubble is acknowledged and takes
    /// the sample in progress (`None` if the ACK acknowledged nothing).
    #[inline(always)]
    fn complete(&mut self) -> Option<PendingSample> {
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        self.pending.take()
    }

    /// The bytes delivered over sample `s`'s interval, and that interval: the longer of its send
    /// and ACK intervals, so that ACK compression cannot inflate the rate.
    #[inline(always)]
    fn delivered_over(&self, s: &PendingSample) -> (u64, Dur) {
        (self.delivered - s.prior_delivered, s.send_elapsed.max(s.ack_elapsed))
    }
}

/// Bytes/s of `delivered` bytes over `interval`; 0 for an interval shorter than `min_rtt` (or zero).
#[inline(always)]
fn rate(delivered: u64, interval: Dur, min_rtt: Dur) -> f64 {
    Rate::of(delivered, interval, min_rtt).bytes_per_sec()
}

/// A sample's delivery rate as its two integers, divided only when read: the sender keeps the last
/// one for its metrics, which are read far less often than an ACK comes (two divisions an ACK).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rate {
    delivered: u64,
    /// Zero for a rate of 0 (an interval too short to be valid).
    interval: Dur,
}

impl Rate {
    /// `delivered` bytes over `interval`; 0 for an interval shorter than `min_rtt` (or zero).
    #[inline(always)]
    pub fn of(delivered: u64, interval: Dur, min_rtt: Dur) -> Rate {
        if interval >= min_rtt && interval > Dur::ZERO {
            Rate { delivered, interval }
        } else {
            Rate::default()
        }
    }

    /// Bytes/s.
    pub fn bytes_per_sec(self) -> f64 {
        if self.interval > Dur::ZERO {
            self.delivered as f64 / self.interval.as_secs_f64()
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Time {
        Time(x * 1_000_000)
    }

    #[test]
    fn delivery_rate_of_a_flight_is_bytes_over_rtt() {
        // 10 packets of 1000 B sent back to back at t=0, all acked in one ACK at t=100 ms.
        let mut d = DeliveryRate::new();
        let snaps: Vec<_> = (0..10).map(|i| d.on_packet_sent(ms(0), i * 1000)).collect();
        for s in &snaps {
            d.on_packet_acked(ms(100), ms(0), 1000, s);
        }
        let rs = d.generate(Dur::from_millis(100)).unwrap();
        assert_eq!(rs.delivered, 10_000);
        assert_eq!(rs.interval, Dur::from_millis(100));
        assert!((rs.delivery_rate - 100_000.0).abs() < 1e-6);
        assert_eq!(rs.prior_delivered, 0);
        assert_eq!(
            rs.tx_in_flight, 10_000,
            "the last packet left 9 others in flight, plus itself"
        );
    }

    #[test]
    fn delivery_rate_one_call_per_ack_equals_one_per_packet() {
        // Three ACKs of 1, 3 and 2 packets, one app-limited and one loss among them: `on_ack` with the newest
        // packet and the bytes of all must leave the same state and sample as `on_packet_acked` for each.
        let (mut per_packet, mut per_ack) = (DeliveryRate::new(), DeliveryRate::new());
        let mut sent = Vec::new();
        for (i, bytes) in [1000u64, 1200, 800, 1500, 1000, 700].into_iter().enumerate() {
            let in_flight = sent.iter().map(|&(_, b, _)| b).sum::<u64>();
            if i == 2 {
                per_packet.on_app_limited(in_flight);
                per_ack.on_app_limited(in_flight);
            }
            let (a, b) = (
                per_packet.on_packet_sent(ms(i as u64), in_flight),
                per_ack.on_packet_sent(ms(i as u64), in_flight),
            );
            assert_eq!(a, b);
            sent.push((ms(i as u64), bytes, a));
        }
        per_packet.on_packet_lost(300);
        per_ack.on_packet_lost(300);
        for (k, acked) in [0..1, 1..4, 4..6].into_iter().enumerate() {
            let now = ms(40 + 7 * k as u64);
            for &(t, bytes, snap) in &sent[acked.clone()] {
                per_packet.on_packet_acked(now, t, bytes, &snap);
            }
            let (t, bytes, snap) = sent[acked.end - 1];
            let total = sent[acked].iter().map(|&(_, b, _)| b).sum();
            per_ack.on_ack(now, total, t, bytes, &snap);
            assert_eq!(per_ack.delivered(), per_packet.delivered());
            assert_eq!(
                per_ack.generate(Dur::from_millis(5)),
                per_packet.generate(Dur::from_millis(5)),
                "ACK {k}"
            );
            assert_eq!(per_ack.is_app_limited(), per_packet.is_app_limited());
        }
    }

    #[test]
    fn delivery_rate_rate_alone_equals_the_sample_rate_with_the_same_effects() {
        // The same packets into two estimators; one completes each ACK's sample, the other only its rate.
        let (mut sample, mut rate) = (DeliveryRate::new(), DeliveryRate::new());
        let mut snaps = Vec::new();
        for i in 0..6u64 {
            if i == 1 {
                sample.on_app_limited(1000);
                rate.on_app_limited(1000);
            }
            let (a, b) = (
                sample.on_packet_sent(ms(i), 1000 * i),
                rate.on_packet_sent(ms(i), 1000 * i),
            );
            assert_eq!(a, b);
            snaps.push(a);
        }
        for (k, p) in snaps.iter().enumerate() {
            let now = ms(30 + k as u64);
            sample.on_ack(now, 1000, ms(k as u64), 1000, p);
            let (delivered, interval) = rate.on_ack_rate_only(now, 1000, ms(k as u64), p);
            let min_rtt = Dur::from_millis(20);
            let s = sample.generate(min_rtt).unwrap();
            assert_eq!(
                Rate::of(delivered, interval, min_rtt).bytes_per_sec(),
                s.delivery_rate,
                "ACK {k}"
            );
            assert_eq!((delivered, interval), (s.delivered, s.interval), "ACK {k}");
            assert_eq!(sample.is_app_limited(), rate.is_app_limited(), "ACK {k}");
        }
        assert!(!rate.is_app_limited(), "the bubble was acknowledged");
        // Both sent their next packet from the same state.
        assert_eq!(sample.on_packet_sent(ms(40), 500), rate.on_packet_sent(ms(40), 500));
        assert_eq!(
            Rate::of(5000, Dur::from_millis(19), Dur::from_millis(20)).bytes_per_sec(),
            0.0
        );
        assert_eq!(
            Rate::of(5000, Dur::from_millis(20), Dur::from_millis(20)).bytes_per_sec(),
            250_000.0
        );
    }

    #[test]
    fn delivery_rate_ack_compression_uses_longer_send_interval() {
        // Packets sent 10 ms apart (1000 B each); the second flight is acked in a 1 ms burst.
        let mut d = DeliveryRate::new();
        let a = d.on_packet_sent(ms(0), 0);
        d.on_packet_acked(ms(50), ms(0), 1000, &a);
        d.generate(Dur::from_millis(1)).unwrap();
        let b = d.on_packet_sent(ms(50), 0);
        let c = d.on_packet_sent(ms(60), 1000);
        d.on_packet_acked(ms(100), ms(50), 1000, &b);
        d.on_packet_acked(ms(101), ms(60), 1000, &c);
        let rs = d.generate(Dur::from_millis(1)).unwrap();
        // send_elapsed = 60 - 50 = 10 ms, ack_elapsed = 101 - 50 = 51 ms -> interval 51 ms, 2000 B.
        assert_eq!(rs.interval, Dur::from_millis(51));
        assert_eq!(rs.delivered, 2000);
        assert_eq!(rs.rtt, Dur::from_millis(41));
    }

    #[test]
    fn delivery_rate_app_limited_mark_clears_after_bubble() {
        let mut d = DeliveryRate::new();
        let a = d.on_packet_sent(ms(0), 0);
        d.on_app_limited(1000);
        let b = d.on_packet_sent(ms(1), 1000);
        assert!(!a.is_app_limited && b.is_app_limited);
        d.on_packet_acked(ms(10), ms(0), 1000, &a);
        assert!(!d.generate(Dur::ZERO).unwrap().is_app_limited);
        assert!(d.is_app_limited(), "bubble ends at delivered > 1000");
        d.on_packet_acked(ms(11), ms(1), 1000, &b);
        assert!(d.generate(Dur::ZERO).unwrap().is_app_limited);
        assert!(!d.is_app_limited());
    }

    #[test]
    fn delivery_rate_short_interval_is_invalid_and_lost_counts() {
        let mut d = DeliveryRate::new();
        let a = d.on_packet_sent(ms(0), 0);
        d.on_packet_lost(500);
        d.on_packet_acked(ms(5), ms(0), 1000, &a);
        let rs = d.generate(Dur::from_millis(10)).unwrap();
        assert_eq!(rs.delivery_rate, 0.0);
        assert_eq!(rs.lost, 500);
        assert!(d.generate(Dur::ZERO).is_none(), "no packet acked since the last sample");
    }
}
