//! Ordered sets of packet numbers with range removal: the packets sent and not yet acknowledged, and the
//! packets declared lost and not yet acknowledged. A sorted vector took O(n) per insertion or removal in its
//! middle, so a trace of n `packet_lost` records in descending order (or n ACKs each of one packet deep in a
//! long unacknowledged list) cost O(n²); these B-trees take O(log n) per packet. Packet numbers are
//! integral, finite `f64`s (`int()` of the record's number, -0.0 made 0.0), so their total order is the
//! numeric one Python's `bisect` uses.

use std::collections::BTreeMap;
use std::ops::Bound;

/// A packet number as a B-tree key.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Pn(f64);

impl Eq for Pn {}

impl PartialOrd for Pn {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pn {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Removes the entries keyed `lo..=hi`, visiting them in ascending order; none when `lo > hi` (a reversed ACK
/// range covers nothing). O(log n) per entry, without allocating.
fn take<V>(map: &mut BTreeMap<Pn, V>, lo: f64, hi: f64, mut visit: impl FnMut(f64, V)) {
    if lo > hi {
        return;
    }
    let range = (Bound::Included(Pn(lo)), Bound::Included(Pn(hi)));
    while let Some(k) = map.range(range).next().map(|(k, _)| *k) {
        let v = map.remove(&k).expect("key was just found");
        visit(k.0, v);
    }
}

/// A sent packet not yet covered by a received ACK: size (bytes) and send time (s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Unacked {
    pub(super) size: f64,
    pub(super) time_s: f64,
}

/// Packets sent and not yet acknowledged, by number.
#[derive(Default)]
pub(super) struct UnackedSet {
    map: BTreeMap<Pn, Unacked>,
}

impl UnackedSet {
    /// The largest number held.
    pub(super) fn last(&self) -> Option<f64> {
        self.map.last_key_value().map(|(k, _)| k.0)
    }

    pub(super) fn insert(&mut self, pn: f64, u: Unacked) {
        self.map.insert(Pn(pn), u);
    }

    /// Removes the packets numbered `lo..=hi`, visiting them in ascending order.
    pub(super) fn take_range(&mut self, lo: f64, hi: f64, visit: impl FnMut(f64, Unacked)) {
        take(&mut self.map, lo, hi, visit);
    }
}

/// Packet numbers declared lost and not yet acknowledged; a number lost twice is held twice.
#[derive(Default)]
pub(super) struct LostSet {
    counts: BTreeMap<Pn, u64>,
}

impl LostSet {
    pub(super) fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    pub(super) fn insert(&mut self, pn: f64) {
        *self.counts.entry(Pn(pn)).or_insert(0) += 1;
    }

    /// Removes the numbers in `lo..=hi`, visiting them in ascending order (each as often as it was lost).
    pub(super) fn take_range(&mut self, lo: f64, hi: f64, mut visit: impl FnMut(f64)) {
        take(&mut self.counts, lo, hi, |pn, n| (0..n).for_each(|_| visit(pn)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lost_set_takes_ranges_in_order_with_repeats() {
        let mut s = LostSet::default();
        for pn in [9.0, 3.0, 5.0, 3.0, 7.0] {
            s.insert(pn);
        }
        let mut got = Vec::new();
        s.take_range(3.0, 7.0, |pn| got.push(pn));
        assert_eq!(got, [3.0, 3.0, 5.0, 7.0]);
        s.take_range(10.0, 9.0, |pn| got.push(pn));
        assert_eq!(got.len(), 4, "a reversed range takes nothing");
        s.take_range(9.0, 9.0, |pn| got.push(pn));
        assert!(s.is_empty());
    }

    #[test]
    fn unacked_set_takes_ranges_in_order() {
        let mut s = UnackedSet::default();
        for pn in 0..6 {
            s.insert(
                pn as f64,
                Unacked {
                    size: 100.0 + pn as f64,
                    time_s: pn as f64,
                },
            );
        }
        let mut got = Vec::new();
        s.take_range(2.0, 4.0, |pn, u| got.push((pn, u.size)));
        assert_eq!(got, [(2.0, 102.0), (3.0, 103.0), (4.0, 104.0)]);
        assert_eq!(s.last(), Some(5.0));
    }
}
