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

use std::collections::VecDeque;

use crate::wire::packet::{AckFrame, AckRanges};

/// ACK packets sent after an unacknowledged PING before the next ACK packet carries one again.
pub const PING_RETRY_ACKS: u64 = 64;
/// PING-carrying ACK packets remembered while their acknowledgement is awaited (a PING is given
/// up after `PING_RETRY_ACKS` ACKs, so only a few can be outstanding).
const REMEMBERED: usize = 8;

/// A receiver's record of its ACK packets and of the floor below which it stops reporting.
#[derive(Clone, Debug, Default)]
pub struct AckOfAck {
    /// (packet number, Largest Acknowledged of its ACK frame) of PING-carrying ACK packets not yet
    /// known acknowledged.
    sent: VecDeque<(u64, u64)>,
    /// The receiver's packet number of the PING awaiting acknowledgement, with the ACK packets sent since.
    ping: Option<(u64, u64)>,
    /// Largest Acknowledged of the newest ACK frame the peer has acknowledged: packets up to here are
    /// never reported again.
    floor: Option<u64>,
}

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
        self.ping = Some((pn, 0));
        if self.sent.len() == REMEMBERED {
            self.sent.pop_front();
        }
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

    /// Appends to `kept` the first `max` of `ranges` (highest first) without the packets at or below the floor.
    /// When nothing is left the highest range stays: an ACK frame always reports something. This runs for
    /// every ACK, and after a loss the receiver holds up to `max` ranges; the first few stay inside the frame.
    pub fn clip(&self, ranges: impl Iterator<Item = (u64, u64)>, max: usize, kept: &mut AckRanges) {
        let mut all = ranges.peekable();
        let Some(floor) = self.floor else {
            kept.extend(all.take(max));
            return;
        };
        let first = all.peek().copied();
        // Highest first: the first range ending at or below the floor ends the walk (the receiver keeps up
        // to `max` ranges, mostly below the floor once the sender acknowledged an ACK that reported them).
        kept.extend(
            all.take_while(|&(_, hi)| hi > floor)
                .map(|(lo, hi)| (lo.max(floor + 1), hi))
                .take(max),
        );
        if kept.is_empty() {
            kept.extend(first);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clipped(a: &AckOfAck, ranges: &[(u64, u64)], max: usize) -> AckRanges {
        let mut kept = AckRanges::default();
        a.clip(ranges.iter().copied(), max, &mut kept);
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
