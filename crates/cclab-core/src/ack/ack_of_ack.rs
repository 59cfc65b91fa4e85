//! What the receiver learns from the ACKs of its ACKs, RFC 9000 §13.2.4 ("Limiting Ranges by
//! Tracking ACK Frames"): <https://www.rfc-editor.org/rfc/rfc9000#section-13.2.4>.
//!
//! "When a packet containing an ACK frame is acknowledged, the receiver can stop acknowledging
//! packets less than or equal to the Largest Acknowledged field in the sent ACK frame." An
//! endpoint that only sends ACKs gets them acknowledged only when they are ack-eliciting, so it
//! "MAY send a PING or other small ack-eliciting frame occasionally, such as once per round
//! trip": here one ACK packet carries a PING whenever no earlier PING is waiting for its
//! acknowledgement, which paces the PINGs at about one per round trip without an RTT estimate.
//! A PING that is never acknowledged (lost on the way) is given up after `PING_RETRY_ACKS` more
//! ACK packets. Only the PING-carrying ACK packets are remembered: the sender acknowledges them
//! promptly, and each one's Largest Acknowledged is the floor its acknowledgement allows.
//!
//! With a round trip longer than `REMEMBERED` retries (a window of more than ~1,000 packets) the
//! retries outrun the acknowledgements. A full record then keeps its oldest PINGs, which the peer's
//! next ACK covers first, and a new PING takes the newest one's place. Forgetting the oldest instead
//! forgot every PING that ACK covers, and the floor never rose again: after one loss burst every ACK
//! frame carried `max` ranges for the rest of the connection. Sending no PING while the record is
//! full would stop for good if all of them were lost (thinned or dropped ACKs), as the peer sends
//! no ACK without one.

use std::collections::VecDeque;

use crate::wire::packet::AckFrame;

/// ACK packets sent after an unacknowledged PING before the next ACK packet carries one again.
pub const PING_RETRY_ACKS: u64 = 64;
/// PING-carrying ACK packets remembered while their acknowledgement is awaited: the oldest ones
/// and the newest, however many retries a round trip holds.
const REMEMBERED: usize = 8;

/// A receiver's record of its ACK packets and of the floor below which it stops reporting.
///
/// What every ACK sent reads first (`repr(C)`), the record of PINGs, read when one is sent or
/// acknowledged, last: the receiver keeps the two on different lines.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct AckOfAck {
    /// The receiver's packet number of the PING awaiting acknowledgement, with the ACK packets sent since.
    ping: Option<(u64, u64)>,
    /// Largest Acknowledged of the newest ACK frame the peer has acknowledged: packets up to here are
    /// never reported again.
    floor: Option<u64>,
    /// (packet number, Largest Acknowledged of its ACK frame) of PING-carrying ACK packets not yet
    /// known acknowledged.
    sent: VecDeque<(u64, u64)>,
}

/// The bytes of an `AckOfAck` that every ACK sent reads (`ping`, `floor`), for the receiver's layout test.
#[cfg(test)]
pub(crate) const PER_ACK_BYTES: core::ops::Range<usize> = 0..core::mem::offset_of!(AckOfAck, sent);

impl AckOfAck {
    /// Packets up to and including this number need no more reporting, if known.
    pub fn floor(&self) -> Option<u64> {
        self.floor
    }

    /// Whether the ACK packet about to be sent as `pn`, reporting packets up to `largest`, carries
    /// a PING; remembers it if so.
    pub fn on_ack_sent(&mut self, pn: u64, largest: u64) -> bool {
        if let Some((_, since)) = &mut self.ping {
            if *since < PING_RETRY_ACKS {
                *since += 1;
                return false;
            }
        }
        if self.sent.len() == REMEMBERED {
            self.sent.pop_back();
        }
        self.ping = Some((pn, 0));
        self.sent.push_back((pn, largest));
        true
    }

    /// The peer acknowledged some of our packets: raise the floor to the Largest Acknowledged of
    /// the newest acknowledged ACK frame.
    pub fn on_peer_ack(&mut self, ack: &AckFrame) {
        let acked = |pn: u64| ack.ranges.iter().any(|&(lo, hi)| lo <= pn && pn <= hi);
        let Some(top) = ack.largest() else { return };
        while let Some(&(pn, largest)) = self.sent.front() {
            if pn > top {
                break;
            }
            self.sent.pop_front();
            if acked(pn) {
                self.floor = self.floor.max(Some(largest));
            }
        }
        if self.ping.is_some_and(|(pn, _)| acked(pn)) {
            self.ping = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ack::{FrameRanges, RangeSet};
    use crate::wire::packet::AckRanges;

    /// The ranges of an ACK frame for a receiver that got `ranges`, with `a`'s floor.
    fn clipped(a: &AckOfAck, ranges: &[(u64, u64)], max: usize) -> AckRanges {
        let mut kept = AckRanges::default();
        let mut set = RangeSet::new();
        for &(lo, hi) in ranges {
            set.insert(lo, hi);
        }
        FrameRanges::default().fill(&set, a.floor(), max, &mut kept);
        kept
    }

    fn ack(ranges: &[(u64, u64)]) -> AckFrame {
        AckFrame {
            ranges: ranges.to_vec().into(),
            ..Default::default()
        }
    }

    #[test]
    fn ack_of_ack_raises_the_floor_to_the_acked_frames_largest() {
        let mut a = AckOfAck::default();
        assert!(a.on_ack_sent(0, 10)); // PING
        assert!(!a.on_ack_sent(1, 15));
        a.on_peer_ack(&ack(&[(0, 0)]));
        assert_eq!(a.floor(), Some(10));
        assert!(a.on_ack_sent(2, 20)); // the PING was answered: the next ACK carries one again
        assert!(!a.on_ack_sent(3, 30));
        assert_eq!(clipped(&a, &[(0, 30)], 32), vec![(11, 30)]);
        // The peer saw our packets up to 3: packets up to 20 (ACK 2's largest) need no more reporting.
        a.on_peer_ack(&ack(&[(0, 3)]));
        assert_eq!(a.floor(), Some(20));
        assert_eq!(clipped(&a, &[(25, 40), (0, 22)], 32), vec![(25, 40), (21, 22)]);
        assert_eq!(clipped(&a, &[(25, 40), (0, 22)], 1), vec![(25, 40)]);
        // A range entirely below the floor is dropped; with nothing left the top range stays.
        assert_eq!(clipped(&a, &[(5, 15)], 32), vec![(5, 15)]);
    }

    #[test]
    fn ack_of_ack_floor_rises_when_a_round_trip_holds_more_acks_than_remembered_pings() {
        // 100,000 packets of BDP: ~50,000 ACK packets per round trip, so PINGs are retried long before the
        // first is acknowledged. The peer's ACK, a round trip later, covers the first ones sent.
        let mut a = AckOfAck::default();
        let pings: Vec<u64> = (0..50_000u64).filter(|&pn| a.on_ack_sent(pn, 10 * pn)).collect();
        assert_eq!(pings.len() as u64, 50_000u64.div_ceil(PING_RETRY_ACKS + 1));
        a.on_peer_ack(&ack(&[(0, 1_000)]));
        // The oldest remembered PINGs were kept: the newest of them the ACK covers sets the floor.
        assert_eq!(a.floor(), Some(10 * pings[REMEMBERED - 2]));
        // A round trip later the peer acknowledges the newest PING too.
        let newest = *pings.last().unwrap();
        a.on_peer_ack(&ack(&[(0, newest)]));
        assert_eq!(a.floor(), Some(10 * newest));
    }

    #[test]
    fn ack_of_ack_floor_keeps_rising_at_any_window_and_after_lost_pings() {
        // The peer acknowledges each PING it gets a round trip (`rtt` ACK packets) later, covering all of
        // ours up to it; it sends no ACK without a PING. PINGs before `lost_until` are lost (thinned ACKs).
        const N: u64 = 200_000;
        for (rtt, lost_until) in [(100, 0), (50_000, 0), (100, 3_000), (5_000, 30_000)] {
            let mut a = AckOfAck::default();
            let mut due: VecDeque<(u64, u64)> = VecDeque::new();
            for pn in 0..N {
                while let Some(&(_, upto)) = due.front().filter(|&&(when, _)| when <= pn) {
                    due.pop_front();
                    a.on_peer_ack(&ack(&[(0, upto)]));
                }
                if a.on_ack_sent(pn, 10 * pn) && pn >= lost_until {
                    due.push_back((pn + rtt, pn));
                }
            }
            // Within the last few round trips, not stuck where the first loss or a full record left it.
            let floor = a.floor().unwrap_or(0);
            assert!(
                floor >= 10 * (N - 3 * rtt),
                "rtt {rtt}, lost until {lost_until}: floor {floor}"
            );
        }
    }

    #[test]
    fn ack_of_ack_pings_once_until_acknowledged_or_given_up() {
        let mut a = AckOfAck::default();
        assert!(a.on_ack_sent(0, 1));
        assert!((1..=PING_RETRY_ACKS).all(|pn| !a.on_ack_sent(pn, pn + 1)));
        let retry = PING_RETRY_ACKS + 1;
        assert!(a.on_ack_sent(retry, retry + 1)); // the first PING is given up
        a.on_peer_ack(&ack(&[(retry, retry)]));
        assert_eq!(a.floor(), Some(retry + 1));
        assert!(a.on_ack_sent(retry + 1, retry + 2));
    }
}
