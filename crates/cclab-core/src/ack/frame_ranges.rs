//! The ranges of a QUIC receiver's ACK frames, kept from one ACK to the next with their encoded size.
//!
//! An ACK frame reports the received packet numbers above the ACK-of-ACK floor, highest first (RFC 9000
//! §13.2.4, <https://www.rfc-editor.org/rfc/rfc9000#section-13.2.4>), and its size counts a Gap and an ACK
//! Range Length field for every range below the first (§19.3.1). After a loss burst every frame carries up
//! to `max_ack_ranges` ranges until the floor passes the holes, and from one ACK to the next those ranges
//! change at their ends only: a loss puts a new range on top (the old top range moves down), the set's
//! trim forgets the lowest, the floor drops more of the lowest. Copying the ranges out of the set and
//! sizing all their fields again cost each such ACK ~900 instructions (1 GB at a 100,000-packet BDP:
//! 140,000 frames of 2–32 ranges); kept here, highest first in one slice with their fields' bytes summed,
//! an ACK follows those changes at the ends and copies the slice in one piece. Any other change (an
//! out-of-order arrival filling or splitting a hole) rebuilds them from the set.

use super::RangeSet;
use crate::wire::packet::AckRanges;
use crate::wire::size::varint_len;

/// An inclusive range `(smallest, largest)`.
type Range = (u64, u64);

/// The ranges below the top one of a receiver's packet-number set that lie above the ACK-of-ACK floor,
/// highest first, as the receiver's next ACK frame carries them (unclipped: the lowest is clipped to the
/// floor when a frame is filled), and the bytes of their Gap and ACK Range Length fields.
///
/// A line of its own (`align(64)`): every ACK a receiver sends reads all of it.
#[derive(Clone, Debug, Default)]
#[repr(align(64))]
pub struct FrameRanges {
    /// `buf[start..end]` are the ranges, highest first; room is kept before `start` for new ones.
    buf: Vec<Range>,
    start: usize,
    end: usize,
    /// Smallest value of the range above `buf[start]` (the set's top range when they were last brought up
    /// to date): the Gap field of the highest kept range is measured from it.
    above: u64,
    /// Sum of `fields_len` over the kept ranges.
    fields_len: u32,
    /// `RangeSet::revision` of the set when last brought up to date.
    revision: u64,
    /// The set changed other than by a new top range or a trim since then: rebuild.
    reshaped: bool,
}

/// Bytes of the Gap and ACK Range Length fields of `r`, below a range starting at `above` (RFC 9000
/// §19.3.1: Gap = smallest above − largest − 2, Length = largest − smallest).
#[inline]
fn fields_len(r: Range, above: u64) -> u32 {
    varint_len(above.saturating_sub(r.1).saturating_sub(2)) + varint_len(r.1 - r.0)
}

impl FrameRanges {
    /// The set changed below its top range other than by a trim (the receiver took an out-of-order packet
    /// number): what is kept no longer follows from the ends.
    pub fn on_reshape(&mut self) {
        self.reshaped = true;
    }

    /// Fills `frame` (empty) with the ranges of `received` above `floor` (which never falls from one call to the
    /// next, as the ACK-of-ACK floor only rises), highest first, at most `max`, the lowest clipped to the floor (when nothing is above the floor, the highest range whole: a frame always
    /// reports something); returns the bytes of the Gap and ACK Range Length fields of all but the first,
    /// as [`crate::wire::size::ack_ranges_len`] of them would.
    #[inline]
    pub fn fill(&mut self, received: &RangeSet, floor: Option<u64>, max: usize, frame: &mut AckRanges) -> u32 {
        let Some(top) = received.highest().filter(|_| max > 0) else {
            return 0;
        };
        // The common frame: one range, as every range below the highest lies at or below the floor (the
        // ranges old losses left, once the peer acknowledged an ACK above them) or there is none. It is the
        // highest range clipped to the floor, or all of it when nothing is above the floor.
        let below = received.below_highest_max();
        if below.is_none() || below <= floor {
            frame.push(match floor {
                Some(f) if top.1 > f => (top.0.max(f + 1), top.1),
                _ => top,
            });
            return 0;
        }
        self.follow(received, floor);
        self.fill_lower(top, floor, max, frame)
    }

    /// `fill`'s frame of several ranges, from the kept ones (out of line: most frames carry one).
    #[inline(never)]
    fn fill_lower(&self, top: Range, floor: Option<u64>, max: usize, frame: &mut AckRanges) -> u32 {
        let kept = &self.buf[self.start..self.end];
        let take = kept.len().min(max - 1);
        frame.set_first_and_rest(top, &kept[..take]);
        let Some(&last) = kept[..take].last() else {
            return 0;
        };
        if take < kept.len() {
            // More ranges above the floor than a frame carries (a set not trimmed to `max`): the lowest
            // taken needs no clipping, and the kept sum counts ranges the frame leaves out.
            return crate::wire::size::ack_ranges_len(frame);
        }
        let mut n = self.fields_len;
        if let Some(f) = floor.filter(|&f| f >= last.0) {
            // Only the lowest range can reach down to the floor: ranges are disjoint, highest first.
            let clipped = (f + 1, last.1);
            if let Some(r) = frame.last_mut() {
                *r = clipped;
            }
            n = n - varint_len(last.1 - last.0) + varint_len(clipped.1 - clipped.0);
        }
        n
    }

    /// Brings the kept ranges up to date with `received` and `floor`: the lowest ones the set trimmed
    /// or the floor passed go, the set's new ones above them come (a rebuild after a reshape).
    #[inline(never)]
    fn follow(&mut self, received: &RangeSet, floor: Option<u64>) {
        if self.reshaped {
            self.reshaped = false;
            self.fields_len = 0;
            self.start = self.end;
        }
        let above_floor = |r: &Range| floor.is_none_or(|f| r.1 > f);
        let (front, back, top) = received.as_slices();
        let lowest = front.first().or(back.first()).or(top.first()).map_or(u64::MAX, |r| r.0);
        // From the low end: what the set trimmed (below its lowest range now) or the floor passed.
        while self.end > self.start {
            let r = self.buf[self.end - 1];
            if r.0 >= lowest && above_floor(&r) {
                break;
            }
            let above = if self.end - self.start >= 2 {
                self.buf[self.end - 2].0
            } else {
                self.above
            };
            self.fields_len -= fields_len(r, above);
            self.end -= 1;
        }
        if received.revision() == self.revision && self.start < self.end {
            return;
        }
        self.revision = received.revision();
        // New ranges: those above the highest kept (or, with none kept, above the floor), at the top of
        // the set's lower ranges.
        let below_len = front.len() + back.len();
        let at = |i: usize| {
            // The `i`-th lower range from the highest.
            if i < back.len() {
                back[back.len() - 1 - i]
            } else {
                front[front.len() - 1 - (i - back.len())]
            }
        };
        let highest_kept = (self.end > self.start).then(|| self.buf[self.start].1);
        let new = (0..below_len)
            .take_while(|&i| {
                let r = at(i);
                highest_kept.map_or(above_floor(&r), |h| r.0 > h)
            })
            .count();
        self.make_room(new);
        let mut above = top.first().map_or(u64::MAX, |r| r.0);
        for i in 0..new {
            let r = at(i);
            self.buf[self.start - new + i] = r;
            self.fields_len += fields_len(r, above);
            above = r.0;
        }
        self.start -= new;
        self.above = top.first().map_or(u64::MAX, |r| r.0);
    }

    /// Room for `n` more ranges before `start`: the kept ones move to the end of the buffer, which grows
    /// to twice what it must hold, so a move comes once per as many new ranges as there are kept.
    fn make_room(&mut self, n: usize) {
        if self.start >= n {
            return;
        }
        let len = self.end - self.start;
        let cap = (2 * (len + n)).max(8);
        if self.buf.len() < cap {
            self.buf.resize(cap, (0, 0));
        }
        let to = self.buf.len() - len;
        self.buf.copy_within(self.start..self.end, to);
        self.start = to;
        self.end = to + len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::size::ack_ranges_len;

    /// The frame by definition: the newest `max` ranges above the floor, the lowest clipped to it, or the
    /// highest whole when none is above it.
    fn walk(set: &RangeSet, floor: Option<u64>, max: usize) -> Vec<Range> {
        let mut want: Vec<Range> = set
            .iter_desc()
            .filter(|r| floor.is_none_or(|f| r.1 > f))
            .map(|(lo, hi)| (floor.map_or(lo, |f| lo.max(f + 1)), hi))
            .take(max)
            .collect();
        if want.is_empty() {
            want.extend(set.iter_desc().next().filter(|_| max > 0));
        }
        want
    }

    #[track_caller]
    fn check(kept: &mut FrameRanges, set: &RangeSet, floor: Option<u64>, max: usize) {
        let mut frame = AckRanges::default();
        let n = kept.fill(set, floor, max, &mut frame);
        let want = walk(set, floor, max);
        assert_eq!(frame, want, "floor {floor:?} max {max}");
        assert_eq!(n, ack_ranges_len(&want), "floor {floor:?} max {max}: {want:?}");
    }

    #[test]
    fn frame_ranges_follow_a_receiver_through_losses_trims_and_rising_floors() {
        // A receiver's set: one new range per lost packet, trimmed to `max` after each, and the floor rising
        // behind; every frame and its size must be what a walk of the set gives.
        for max in [1, 2, 3, 5, 32] {
            for lag in [0, 4, 40, 1_000] {
                let (mut set, mut kept) = (RangeSet::new(), FrameRanges::default());
                let mut x = 11u64;
                let mut pn = 0u64;
                for k in 0..3_000u64 {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    // Runs of losses long and short, field bounds crossed (a gap of 2^6 and 2^14).
                    pn += 1 + match (x >> 40) % 16 {
                        0..=5 => 0,
                        6..=12 => 1 + (x >> 20) % 3,
                        13 | 14 => 64,
                        _ => 1 << 14,
                    };
                    set.insert(pn, pn);
                    set.trim(max);
                    let floor = (k > 200).then(|| pn.saturating_sub(lag * 3));
                    if k.is_multiple_of(3) || lag == 4 {
                        check(&mut kept, &set, floor, max);
                    }
                }
            }
        }
    }

    #[test]
    fn frame_ranges_rebuild_after_an_out_of_order_arrival() {
        // Late packets fill holes, split none, extend the top downwards: the receiver's rule (a new packet
        // number below the largest is a reshape) must keep every answer right.
        let mut x = 5u64;
        for max in [2, 4, 32] {
            let (mut set, mut kept) = (RangeSet::new(), FrameRanges::default());
            for k in 0..2_000u64 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let pn = if (x >> 33).is_multiple_of(4) {
                    (x >> 8) % (3 * k + 1)
                } else {
                    3 * k
                };
                let largest = set.max();
                if set.insert(pn, pn) && largest.is_some_and(|l| pn < l) {
                    kept.on_reshape();
                }
                set.trim(max);
                check(&mut kept, &set, (k > 50).then(|| 3 * k - 100), max);
            }
        }
    }

    #[test]
    fn frame_ranges_of_an_untrimmed_set_take_the_newest_max() {
        for max in [1, 2, 7, 200] {
            let floors: [fn(u64) -> Option<u64>; 3] = [|_| None, |k| Some(3 * k / 2), |k| Some(3 * k + 1)];
            for floor in floors {
                let (mut set, mut kept) = (RangeSet::new(), FrameRanges::default());
                for k in 0..100u64 {
                    set.insert(3 * k, 3 * k);
                    check(&mut kept, &set, floor(k), max);
                }
            }
        }
    }
}
