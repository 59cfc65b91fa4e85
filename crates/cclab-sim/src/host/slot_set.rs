//! A set of a host's slots (those that may have something to send; those whose wake-up time is
//! to be re-read): one bit per slot, plus a summary bit per 64-slot word that says whether the
//! word has any bit set. The first 64 slots' word sits in place, so a host with few endpoints
//! (one each in a dumbbell) reads no other memory.
//!
//! It replaced a `BTreeSet<u16>`, whose insert and range walk (two node searches per event) cost
//! about as much as the host's own bookkeeping on a point-to-point run. Here an insert is two
//! OR operations and the next member from a position is a `trailing_zeros` on the slot's word,
//! then (rarely, and only on hosts with more than 64 slots) on the summary words.

/// A bit set over slot numbers: 16 bytes in place, the bits of slots from 64 on boxed.
#[derive(Debug, Default)]
pub(super) struct SlotSet {
    /// Bit `s` is set when slot `s < 64` is in the set.
    low: u64,
    /// Slots from 64 on, once there are any.
    high: Option<Box<High>>,
}

#[derive(Debug, Default)]
struct High {
    /// Bit `s % 64` of word `s / 64 - 1` is set when slot `s ≥ 64` is in the set.
    words: Vec<u64>,
    /// Bit `w % 64` of summary word `w / 64` is set when `words[w]` is not zero.
    summary: Vec<u64>,
}

impl SlotSet {
    /// Makes room for slot numbers below `n`.
    pub(super) fn grow(&mut self, n: usize) {
        let words = n.saturating_sub(64).div_ceil(64);
        if words > 0 {
            let h = self.high.get_or_insert_with(Box::default);
            if words > h.words.len() {
                h.words.resize(words, 0);
                h.summary.resize(words.div_ceil(64), 0);
            }
        }
    }

    fn high(&mut self) -> &mut High {
        self.high.as_mut().expect("slots from 64 on were made room for")
    }

    /// Adds `slot` (below the size given to `grow`).
    #[inline]
    pub(super) fn insert(&mut self, slot: u16) {
        if slot < 64 {
            self.low |= 1 << slot;
            return;
        }
        let h = self.high();
        let w = slot as usize / 64 - 1;
        h.words[w] |= 1 << (slot % 64);
        h.summary[w / 64] |= 1 << (w % 64);
    }

    /// Removes `slot`.
    #[inline]
    pub(super) fn remove(&mut self, slot: u16) {
        if slot < 64 {
            self.low &= !(1 << slot);
            return;
        }
        let h = self.high();
        let w = slot as usize / 64 - 1;
        h.words[w] &= !(1 << (slot % 64));
        if h.words[w] == 0 {
            h.summary[w / 64] &= !(1 << (w % 64));
        }
    }

    /// Removes and returns the smallest member, if any.
    #[inline]
    pub(super) fn pop_first(&mut self) -> Option<usize> {
        if self.low != 0 {
            let s = self.low.trailing_zeros() as usize;
            self.low &= self.low - 1;
            return Some(s);
        }
        let s = self.first_from(64)?;
        self.remove(s as u16);
        Some(s)
    }

    /// The smallest member at or above `from`, if any.
    #[inline]
    pub(super) fn first_from(&self, from: usize) -> Option<usize> {
        if from < 64 {
            let low = self.low & (u64::MAX << from);
            if low != 0 {
                return Some(low.trailing_zeros() as usize);
            }
        }
        // Word `w` of `words` holds slots `64 (w + 1)` on.
        let h = self.high.as_deref()?;
        let from = from.max(64);
        let w = from / 64 - 1;
        let word = h.words.get(w)? & (u64::MAX << (from % 64));
        if word != 0 {
            return Some((w + 1) * 64 + word.trailing_zeros() as usize);
        }
        // The next non-empty word after `w`, found through the summary.
        let next = w + 1;
        let mut sw = next / 64;
        let mut bits = h.summary.get(sw)? & u64::MAX.checked_shl((next % 64) as u32).unwrap_or(0);
        loop {
            if bits != 0 {
                let w = sw * 64 + bits.trailing_zeros() as usize;
                return Some((w + 1) * 64 + h.words[w].trailing_zeros() as usize);
            }
            sw += 1;
            bits = *h.summary.get(sw)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn slot_set_matches_an_ordered_set() {
        // A seeded walk of inserts, removes and queries over 5,000 slots (the word in place, 78
        // more and 2 summary words), checked against the BTreeSet it replaced.
        let n = 5_000usize;
        let mut set = SlotSet::default();
        set.grow(n);
        let mut model = BTreeSet::new();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for step in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Clustered slots make words fill and empty; spread ones exercise the summary.
            let slot = if step % 3 == 0 {
                (x % 200) as u16
            } else {
                (x % n as u64) as u16
            };
            match (x >> 32) % 3 {
                0 => {
                    set.insert(slot);
                    model.insert(slot);
                }
                1 => {
                    set.remove(slot);
                    model.remove(&slot);
                }
                2 if step % 1000 == 0 => {
                    // Drain it, smallest first.
                    while let Some(s) = set.pop_first() {
                        assert_eq!(model.pop_first(), Some(s as u16), "step {step}");
                    }
                    assert!(model.is_empty());
                }
                _ => {
                    let from = slot as usize;
                    let want = model.range(slot..).next().map(|&s| s as usize);
                    assert_eq!(set.first_from(from), want, "step {step} from {from}");
                }
            }
        }
        assert_eq!(set.first_from(n + 64), None);
        for s in 0..n as u16 {
            set.remove(s);
        }
        assert_eq!(set.first_from(0), None);
    }
}
