//! A compact set of inclusive `u64` ranges: received packet numbers (for ACK frames) and
//! received stream bytes (for in-order delivery).
//!
//! Ranges are kept lowest first, disjoint and non-adjacent, so in-order arrival extends the last
//! range in O(1) and an ACK frame reads them highest first. A bounded set forgets its lowest
//! ranges (RFC 9000 §13.2.4: a receiver may stop reporting old ranges). A deque, because
//! retransmissions fill the oldest holes: merging there shifts only the ranges below them.

use std::collections::VecDeque;

/// `d[start..].partition_point(pred)` (the count from `start`) by galloping from the nearer end: `pred` must
/// hold on a prefix of `d[start..]`. Range sets with thousands of holes (a sender's acknowledged bytes, a
/// receiver's stream after a burst loss) are asked about their oldest holes, which retransmissions fill
/// first, or their newest ranges, which new packets extend: this reads O(log distance from that end) ranges,
/// in the cache-hot ends, where a plain bisection of a large set misses the cache on most of its reads.
pub(crate) fn partition_point_from(
    d: &VecDeque<(u64, u64)>,
    start: usize,
    pred: impl Fn(&(u64, u64)) -> bool,
) -> usize {
    let n = d.len() - start;
    let at = |i: usize| pred(&d[start + i]);
    // The first three first: a retransmission fills the oldest hole, so its insert (and the search for
    // the ranges it joins, from there) ends within them, and the middle of a large set, read below to
    // choose an end, is a cache miss of its own.
    for i in 0..n.min(3) {
        if !at(i) {
            return i;
        }
    }
    if n <= 3 {
        return n;
    }
    // The answer lies in `lo..=hi`; the middle element says at which end.
    let mid = n / 2;
    let (mut lo, mut hi);
    let mut step = 1;
    if at(mid) {
        (lo, hi) = (mid + 1, n);
        while step <= n - lo {
            let i = n - step;
            if at(i) {
                lo = i + 1;
                break;
            }
            hi = i;
            step *= 2;
        }
    } else {
        (lo, hi) = (0, mid);
        while step - 1 < hi {
            let i = step - 1;
            if !at(i) {
                hi = i;
                break;
            }
            lo = i + 1;
            step *= 2;
        }
    }
    while lo < hi {
        let m = lo + (hi - lo) / 2;
        if at(m) {
            lo = m + 1;
        } else {
            hi = m;
        }
    }
    lo
}

/// Replaces the ranges `d[first..end]` (at least one) with `merged`, which covers them. A retransmission fills
/// the oldest hole, so most merges start at the front: there the ranges before the last one go one
/// `pop_front` each, where a `Drain` cost ~60 instructions of set-up and joining for the one range it removed.
pub(crate) fn replace_merged(d: &mut VecDeque<(u64, u64)>, first: usize, end: usize, merged: (u64, u64)) {
    debug_assert!(first < end && end <= d.len());
    if first == 0 {
        d[end - 1] = merged;
        for _ in 1..end {
            d.pop_front();
        }
    } else {
        d.drain(first + 1..end);
        d[first] = merged;
    }
}

/// Adds `lo..=hi` to the ranges `d` (lowest first, disjoint, non-adjacent), merging it with every range
/// it overlaps or touches; returns whether any value in it was new.
fn merge_into(d: &mut VecDeque<(u64, u64)>, lo: u64, hi: u64) -> bool {
    let first = partition_point_from(d, 0, |r| r.1.saturating_add(1) < lo);
    let end = first + partition_point_from(d, first, |r| r.0 <= hi.saturating_add(1));
    if first == end {
        d.insert(first, (lo, hi));
        return true;
    }
    let covered = d[first].0 <= lo && d[first].1 >= hi;
    let merged = (d[first].0.min(lo), d[end - 1].1.max(hi));
    replace_merged(d, first, end, merged);
    !covered
}

/// An inclusive range `(smallest, largest)`.
type Range = (u64, u64);

/// `RangeSet::top` when the set is empty (no range has its smallest value above its largest).
const NO_RANGE: Range = (1, 0);

/// Disjoint, non-adjacent inclusive ranges, lowest first.
///
/// The highest range sits in the set itself and only the ranges below it in the deque: in-order
/// arrival, which only extends the highest range, then reads and writes no heap memory (with
/// thousands of flows each endpoint's deque buffer was a cache miss of its own on every packet).
#[derive(Clone, Debug)]
pub struct RangeSet {
    /// The highest range, or [`NO_RANGE`] when the set is empty.
    top: Range,
    /// The ranges below `top`, lowest first (empty while `top` is [`NO_RANGE`]).
    below: VecDeque<(u64, u64)>,
    /// Values below this were forgotten when the set was trimmed; they count as present.
    floor: u64,
    /// Changes to the set other than a rise of the top range's largest value ([`RangeSet::revision`]).
    revision: u64,
}

impl Default for RangeSet {
    fn default() -> RangeSet {
        RangeSet {
            top: NO_RANGE,
            below: VecDeque::new(),
            floor: 0,
            revision: 0,
        }
    }
}

/// Equal when they hold the same values: how the sets got there does not matter.
impl PartialEq for RangeSet {
    fn eq(&self, other: &RangeSet) -> bool {
        (&self.below, self.highest(), self.floor) == (&other.below, other.highest(), other.floor)
    }
}

impl Eq for RangeSet {}

impl RangeSet {
    /// Starts loading both ends of the deque of lower ranges, where out-of-order inserts and trims
    /// work (a prefetch hint; nothing to load while the set is one range).
    #[inline]
    pub fn prefetch(&self) {
        if let (Some(a), Some(b)) = (self.below.front(), self.below.back()) {
            crate::prefetch::prefetch(a);
            crate::prefetch::prefetch(b);
        }
    }

    /// An empty set.
    pub fn new() -> RangeSet {
        RangeSet::default()
    }

    /// Whether `top` holds a range (the set is not empty): a stored range never has its smallest
    /// value above its largest, as [`NO_RANGE`] has.
    #[inline(always)]
    fn has_top(&self) -> bool {
        self.top.0 <= self.top.1
    }

    /// Applies `f` to the ranges as one deque, lowest first (the top range moved to its back and
    /// back again after): the rare changes below the top range, written once for the whole set.
    fn with_deque<R>(&mut self, f: impl FnOnce(&mut VecDeque<Range>) -> R) -> R {
        if self.has_top() {
            self.below.push_back(self.top);
        }
        let r = f(&mut self.below);
        self.top = self.below.pop_back().unwrap_or(NO_RANGE);
        r
    }

    /// Adds `lo..=hi`; returns whether any value in it was new. Values below a trimmed floor
    /// count as present.
    ///
    /// Inlined for its fast path, in-order arrival at or above the top range, which every data
    /// packet of a loss-free flow takes twice (packet number and stream bytes); the merge below
    /// the top range stays out of line so the fast path needs no saved registers.
    #[inline]
    pub fn insert(&mut self, lo: u64, hi: u64) -> bool {
        debug_assert!(lo <= hi);
        if hi < self.floor {
            return false;
        }
        let lo = lo.max(self.floor);
        if !self.has_top() {
            self.top = (lo, hi);
            self.revision += 1;
            return true;
        }
        let top = &mut self.top;
        if lo >= top.0 && lo <= top.1.saturating_add(1) {
            let new = hi > top.1;
            top.1 = top.1.max(hi);
            return new;
        }
        if lo < top.0 {
            return self.insert_below_top(lo, hi);
        }
        // A new top range, above a gap.
        self.below.push_back(*top);
        *top = (lo, hi);
        self.revision += 1;
        true
    }

    /// [`RangeSet::insert`] of a range starting below the top range (`lo` already raised to the floor):
    /// merges it with every range it overlaps or touches. One that ends short of the top range (a
    /// retransmission filling the oldest hole of the stream) works on the lower ranges alone: moving the
    /// top range into the deque and out again cost each ~35 instructions.
    #[inline(never)]
    fn insert_below_top(&mut self, lo: u64, hi: u64) -> bool {
        self.revision += 1;
        if hi.saturating_add(1) < self.top.0 {
            merge_into(&mut self.below, lo, hi)
        } else {
            self.with_deque(|ranges| merge_into(ranges, lo, hi))
        }
    }

    /// Whether `v` is the value right after the top range, so that an insert starting there only extends
    /// it ([`RangeSet::extend_top`]): in-order arrival.
    #[inline(always)]
    pub fn follows_top(&self, v: u64) -> bool {
        self.has_top() && self.top.1.checked_add(1) == Some(v)
    }

    /// Whether the set is one range from its floor and `v` is the value right after it: in-order arrival
    /// on a stream without holes.
    #[inline(always)]
    pub fn follows_prefix(&self, v: u64) -> bool {
        self.below.is_empty() && self.top.0 <= self.floor && self.follows_top(v)
    }

    /// Raises the top range's largest value to `hi`, which [`RangeSet::follows_top`] said continues it:
    /// what [`RangeSet::insert`] of a range starting there does, without its tests.
    #[inline(always)]
    pub fn extend_top(&mut self, hi: u64) {
        debug_assert!(self.has_top() && hi > self.top.1);
        self.top.1 = hi;
    }

    /// Whether `v` lies above the value right after the top range, so that an insert starting there opens a
    /// new top range above a gap: arrivals after a loss.
    #[inline(always)]
    pub fn opens_above_top(&self, v: u64) -> bool {
        self.has_top() && v > self.top.1 && v - self.top.1 > 1
    }

    /// Makes `lo..=hi` the new top range, which [`RangeSet::opens_above_top`] said lies above a gap: what
    /// [`RangeSet::insert`] of it does, without its tests.
    #[inline(always)]
    pub fn push_top(&mut self, lo: u64, hi: u64) {
        debug_assert!(self.opens_above_top(lo) && lo <= hi);
        self.below.push_back(self.top);
        self.top = (lo, hi);
        self.revision += 1;
    }

    /// Inserts `lo..=hi` if it starts right after the prefix (the lowest range, which starts at the floor)
    /// and ends below the range above it, a retransmission filling the oldest hole, and returns the
    /// prefix's new end (one past its largest value); returns `None`, having changed nothing, otherwise.
    /// What [`RangeSet::insert`] does there, without its searches from both ends of the lower ranges.
    #[inline(always)]
    pub fn fill_first_hole(&mut self, lo: u64, hi: u64) -> Option<u64> {
        let &(first_lo, first_hi) = self.below.front()?;
        let next_lo = self.below.get(1).map_or(self.top.0, |r| r.0);
        // Checked for a set of any values; once it holds, `first_hi < lo <= hi < next_lo`, so `hi + 1` below
        // cannot overflow.
        if first_lo > self.floor || first_hi.checked_add(1) != Some(lo) || hi >= next_lo {
            return None;
        }
        self.revision += 1;
        if hi + 1 < next_lo {
            self.below[0].1 = hi;
            return Some(hi + 1);
        }
        // The hole is filled: the prefix joins the range above it.
        self.below.pop_front();
        let next = self.below.front_mut().unwrap_or(&mut self.top);
        next.0 = first_lo;
        Some(next.1.saturating_add(1))
    }

    /// Whether `v` is in the set (or below the trimmed floor).
    pub fn contains(&self, v: u64) -> bool {
        if v < self.floor {
            return true;
        }
        if v >= self.top.0 {
            return v <= self.top.1;
        }
        let i = self.below.partition_point(|r| r.1 < v);
        i < self.below.len() && self.below[i].0 <= v
    }

    /// Forgets the lowest ranges until at most `max` remain; returns how many it forgot. The values
    /// below the new lowest range count as present from then on. Inlined for its common case, a
    /// set within `max` (receivers trim after every packet).
    #[inline]
    pub fn trim(&mut self, max: usize) -> usize {
        if self.len() <= max {
            return 0;
        }
        self.trim_lowest(max)
    }

    /// [`RangeSet::trim`] of a set holding more than `max` ranges. The top range stays unless `max` is 0,
    /// so the lower ones are trimmed where they lie (moving the top range through the deque cost ~30
    /// instructions a trim: a receiver trims once per new range after a loss burst).
    #[inline(never)]
    fn trim_lowest(&mut self, max: usize) -> usize {
        self.revision += 1;
        if max == 0 {
            // Nothing left to start the floor at: it stays.
            let cut = self.len();
            self.below.clear();
            self.top = NO_RANGE;
            return cut;
        }
        let cut = self.len() - max;
        self.below.drain(..cut);
        self.floor = self.below.front().unwrap_or(&self.top).0;
        cut
    }

    /// Forgets the oldest ranges above the lowest one until at most `max` (at least 2) remain; returns how
    /// many it forgot. Unlike [`RangeSet::trim`] their values count as missing again, so the lowest range
    /// (a TCP receiver's cumulative ACK point) never claims a value that was forgotten: the receiver
    /// reneges on what it once reported, as RFC 2018 §8 lets a SACK receiver do.
    pub fn forget_above_lowest(&mut self, max: usize) -> usize {
        let max = max.max(2);
        if self.len() <= max {
            return 0;
        }
        self.revision += 1;
        self.with_deque(|ranges| {
            let cut = ranges.len() - max;
            ranges.drain(1..1 + cut);
            cut
        })
    }

    /// A count that changes whenever the set changes other than by a rise of the top range's largest value
    /// (in-order arrival): while it stands still, every range but the top one and the top one's smallest
    /// value are as they were, so what was derived from them (an ACK frame's lower ranges) still holds.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Number of ranges.
    #[inline]
    pub fn len(&self) -> usize {
        self.below.len() + usize::from(self.has_top())
    }

    /// Whether the set holds no range.
    pub fn is_empty(&self) -> bool {
        !self.has_top()
    }

    /// Largest value.
    pub fn max(&self) -> Option<u64> {
        self.highest().map(|r| r.1)
    }

    /// The ranges, highest first.
    pub fn iter_desc(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.highest().into_iter().chain(self.below.iter().rev().copied())
    }

    /// The largest value below the highest range, if there is a range below it.
    #[inline]
    pub fn below_highest_max(&self) -> Option<u64> {
        self.below.back().map(|r| r.1)
    }

    /// The ranges, lowest first, in the three parts the set holds them in: the deque's two parts (the
    /// first is lower) and the top range (empty for an empty set).
    pub fn as_slices(&self) -> (&[Range], &[Range], &[Range]) {
        let (front, back) = self.below.as_slices();
        let top = if !self.has_top() {
            &[][..]
        } else {
            std::slice::from_ref(&self.top)
        };
        (front, back, top)
    }

    /// The highest range, if any.
    #[inline]
    pub fn highest(&self) -> Option<(u64, u64)> {
        self.has_top().then_some(self.top)
    }

    /// The lowest range, if any.
    #[inline]
    pub fn lowest(&self) -> Option<(u64, u64)> {
        self.below.front().copied().or_else(|| self.highest())
    }

    /// The first value at or above `start` that is missing from the set, if `start` lies in
    /// (or below) the lowest range: the end of the contiguous prefix from `start`.
    #[inline]
    pub fn contiguous_end(&self, start: u64) -> u64 {
        let s = start.max(self.floor);
        match self.lowest() {
            Some((lo, hi)) if lo <= s && s <= hi => hi + 1,
            _ => s,
        }
    }

    /// Whether some value between the floor and the largest value is missing.
    pub fn has_gaps(&self) -> bool {
        !self.below.is_empty() || self.highest().is_some_and(|r| r.0 > self.floor)
    }

    /// The smallest value above `after` (or from the floor, if `None`) that is missing and
    /// below the largest value: the smallest "Unreported Missing" packet of
    /// draft-ietf-quic-ack-frequency §6.2 when `after` is Largest Acked − Reordering Threshold.
    pub fn smallest_missing_above(&self, after: Option<u64>) -> Option<u64> {
        let x = after.map_or(0, |a| a.saturating_add(1)).max(self.floor);
        let i = self.below.partition_point(|r| r.1 < x);
        let (r, has_next) = match self.below.get(i) {
            Some(&r) => (r, true),
            None => (self.highest()?, false),
        };
        if r.0 > x {
            Some(x)
        } else if r.1 < x {
            // Only the top range, wholly below `x`: nothing missing below the largest value.
            None
        } else if has_next {
            Some(r.1 + 1)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_extends_one_range() {
        let mut s = RangeSet::new();
        for pn in 0..1000 {
            assert!(s.insert(pn, pn));
        }
        assert_eq!(s.len(), 1);
        assert!(!s.insert(500, 500));
        assert_eq!(s.iter_desc().collect::<Vec<_>>(), vec![(0, 999)]);
    }

    #[test]
    fn follows_top_and_prefix_only_right_after_the_top_range() {
        let mut s = RangeSet::new();
        // Empty: nothing follows (the empty marker's end + 1 is 1).
        assert!(!s.follows_top(1) && !s.follows_prefix(1));
        s.insert(0, 9);
        assert!(s.follows_top(10) && s.follows_prefix(10));
        assert!(!s.follows_top(9) && !s.follows_top(11));
        s.extend_top(14);
        assert_eq!(s.iter_desc().collect::<Vec<_>>(), vec![(0, 14)]);
        // A hole below the top range: still its follower, no longer a prefix's.
        s.insert(20, 29);
        assert!(s.follows_top(30) && !s.follows_prefix(30));
        // Trimmed to its top range from the floor: a prefix again.
        s.trim(1);
        assert!(s.follows_prefix(30));
        let mut t = RangeSet::new();
        t.insert(5, 9);
        assert!(t.follows_top(10) && !t.follows_prefix(10));
    }

    /// `fill_first_hole` and `push_top` against `insert` on random sets: where they act, the same set (and a new
    /// revision) and the prefix's end as `contiguous_end` reads it; where `fill_first_hole` refuses, no change.
    #[test]
    fn fill_first_hole_and_push_top_match_insert() {
        let mut x = 3u64;
        let mut rnd = |n: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        let (mut filled, mut joined) = (0, 0);
        for _ in 0..2000 {
            let mut s = RangeSet::new();
            for _ in 0..rnd(8) {
                let lo = rnd(30);
                s.insert(lo, lo + rnd(3));
            }
            if rnd(3) == 0 {
                s.trim(1 + rnd(4) as usize);
            }
            let (lo, hi) = match s.lowest() {
                Some(r) if rnd(2) == 0 => (r.1 + 1, r.1 + 1 + rnd(6)),
                _ => {
                    let lo = rnd(70);
                    (lo, lo + rnd(6))
                }
            };
            let mut want = s.clone();
            want.insert(lo, hi);
            let mut got = s.clone();
            match got.fill_first_hole(lo, hi) {
                Some(end) => {
                    assert_eq!(got, want, "{s:?} + {lo}..={hi}");
                    assert_eq!(end, got.contiguous_end(0), "{s:?} + {lo}..={hi}");
                    assert_ne!(got.revision(), s.revision());
                    filled += 1;
                    joined += usize::from(got.len() < s.len());
                }
                None => assert_eq!((&got, got.revision()), (&s, s.revision())),
            }
            if s.opens_above_top(lo) {
                let mut pushed = s.clone();
                pushed.push_top(lo, hi);
                assert_eq!(pushed, want);
                assert_ne!(pushed.revision(), s.revision());
            }
        }
        assert!(
            filled > 100 && joined > 20,
            "{filled} fills, {joined} joining the next range"
        );
    }

    #[test]
    fn out_of_order_merges_neighbours() {
        let mut s = RangeSet::new();
        for pn in [0, 1, 4, 5, 8] {
            s.insert(pn, pn);
        }
        assert_eq!(s.iter_desc().collect::<Vec<_>>(), vec![(8, 8), (4, 5), (0, 1)]);
        assert_eq!(s.smallest_missing_above(None), Some(2));
        assert_eq!(s.smallest_missing_above(Some(4)), Some(6));
        assert_eq!(s.smallest_missing_above(Some(7)), None);
        assert!(s.insert(2, 3));
        assert!(s.insert(6, 7));
        assert_eq!(s.iter_desc().collect::<Vec<_>>(), vec![(0, 8)]);
        assert!(!s.has_gaps());
        // A range spanning several existing ones.
        s.insert(20, 21);
        s.insert(24, 25);
        assert!(s.insert(10, 30));
        assert_eq!(s.iter_desc().collect::<Vec<_>>(), vec![(10, 30), (0, 8)]);
    }

    #[test]
    fn partition_point_from_either_end_matches_bisection() {
        for len in [0usize, 1, 2, 3, 5, 8, 64, 100, 1000] {
            let d: VecDeque<(u64, u64)> = (0..len as u64).map(|k| (10 * k, 10 * k + 5)).collect();
            for start in [0, len / 3, len.saturating_sub(1), len] {
                for x in 0..10 * len as u64 + 12 {
                    let want = d.range(start..).take_while(|r| r.1 < x).count();
                    assert_eq!(partition_point_from(&d, start, |r| r.1 < x), want, "{len} {start} {x}");
                }
            }
        }
    }

    #[test]
    fn replace_merged_equals_draining_the_covered_ranges() {
        // From the front (popped one by one) and elsewhere (drained), with the deque wrapped around its
        // buffer, the result must be the deque with `first..end` replaced by the merged range.
        let mut base: VecDeque<(u64, u64)> = VecDeque::with_capacity(8);
        for k in 0..6u64 {
            base.push_back((10 * k, 10 * k + 5));
        }
        base.drain(..3);
        for k in 6..11u64 {
            base.push_back((10 * k, 10 * k + 5));
        }
        for first in 0..base.len() {
            for end in first + 1..=base.len() {
                let merged = (base[first].0, base[end - 1].1);
                let mut want: Vec<_> = base.iter().copied().collect();
                want.splice(first..end, [merged]);
                let mut d = base.clone();
                replace_merged(&mut d, first, end, merged);
                assert_eq!(d.iter().copied().collect::<Vec<_>>(), want, "{first}..{end}");
            }
        }
    }

    #[test]
    fn partition_point_from_reads_only_the_front_for_an_answer_within_it() {
        // A retransmission's insert ends within the first three ranges of a set of thousands: the search
        // must not read the set's middle (a cache miss) to find that out.
        let d: VecDeque<(u64, u64)> = (0..10_000u64).map(|k| (10 * k, 10 * k + 5)).collect();
        for want in 0..3usize {
            let reads = std::cell::Cell::new(0);
            let x = 10 * want as u64 + 5;
            let got = partition_point_from(&d, 0, |r| {
                reads.set(reads.get() + 1);
                r.1 < x
            });
            assert_eq!((got, reads.get()), (want, want + 1));
        }
    }

    #[test]
    fn trim_forgets_lowest_and_treats_them_as_present() {
        let mut s = RangeSet::new();
        for pn in (0..20).step_by(2) {
            s.insert(pn, pn);
        }
        s.trim(3);
        assert_eq!(s.iter_desc().collect::<Vec<_>>(), vec![(18, 18), (16, 16), (14, 14)]);
        assert!(s.contains(3) && !s.insert(3, 3));
        assert_eq!(s.smallest_missing_above(None), Some(15));
        assert_eq!(s.trim(3), 0);
    }

    #[test]
    fn forget_above_lowest_keeps_the_lowest_and_newest_and_reopens_the_rest() {
        let mut s = RangeSet::new();
        for pn in (0..20).step_by(2) {
            s.insert(pn, pn);
        }
        assert_eq!(s.forget_above_lowest(3), 7);
        assert_eq!(s.iter_desc().collect::<Vec<_>>(), vec![(18, 18), (16, 16), (0, 0)]);
        // Forgotten values are missing, not present: a late copy is new again.
        assert!(!s.contains(8) && s.insert(8, 8));
        assert_eq!(s.smallest_missing_above(None), Some(1));
        assert_eq!(s.forget_above_lowest(4), 0);
    }

    /// Random inserts, trims and forgets against a model (a value set and its trimmed floor): the top
    /// range kept apart from the deque must not show in any answer.
    #[test]
    fn range_set_matches_a_model_of_its_values() {
        use std::collections::BTreeSet;
        let mut x = 7u64;
        let mut rnd = |n: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        for round in 0..40 {
            let (mut s, mut model, mut floor) = (RangeSet::new(), BTreeSet::new(), 0u64);
            for _ in 0..200 {
                match rnd(20) {
                    0 => {
                        let max = rnd(6) as usize;
                        let cut = s.trim(max);
                        // What is left; after a cut, the floor rises to the lowest range kept.
                        let ranges: Vec<Range> = s.iter_desc().collect();
                        if let (true, Some(&(lo, _))) = (cut > 0, ranges.last()) {
                            floor = lo;
                        }
                        model.retain(|&v| v >= floor && ranges.iter().any(|r| r.0 <= v && v <= r.1));
                    }
                    1 => {
                        s.forget_above_lowest(2 + rnd(4) as usize);
                        let ranges: Vec<Range> = s.iter_desc().collect();
                        model.retain(|&v| ranges.iter().any(|r| r.0 <= v && v <= r.1));
                    }
                    _ => {
                        let lo = rnd(120 + round);
                        let hi = lo + rnd(4);
                        let new = (lo.max(floor)..=hi).any(|v| !model.contains(&v)) && hi >= floor;
                        assert_eq!(s.insert(lo, hi), new, "insert {lo}..={hi}");
                        model.extend(lo.max(floor)..=hi);
                    }
                }
                // Ranges from the model: maximal runs of consecutive values.
                let mut want: Vec<Range> = Vec::new();
                for &v in &model {
                    match want.last_mut() {
                        Some(r) if r.1 + 1 == v => r.1 = v,
                        _ => want.push((v, v)),
                    }
                }
                let (a, b, c) = s.as_slices();
                assert_eq!([a, b, c].concat(), want);
                want.reverse();
                assert_eq!(s.iter_desc().collect::<Vec<_>>(), want);
                assert_eq!(s.len(), want.len());
                assert_eq!(s.is_empty(), want.is_empty());
                assert_eq!(s.highest(), want.first().copied());
                assert_eq!(s.lowest(), want.last().copied());
                for v in 0..130 + round {
                    assert_eq!(s.contains(v), v < floor || model.contains(&v), "contains {v}");
                }
                let after = rnd(130);
                let top = model.last().copied();
                let missing = (after + 1..top.unwrap_or(0)).find(|v| *v >= floor && !model.contains(v));
                assert_eq!(s.smallest_missing_above(Some(after)), missing, "missing above {after}");
            }
        }
    }
}
