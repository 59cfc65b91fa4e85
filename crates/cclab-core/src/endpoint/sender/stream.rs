//! The send side of the flow's single stream: bytes written by the application, lost data
//! waiting to be resent in new packets (RFC 9000 §13.3), and the bytes the peer acknowledged.

use crate::ack::ranges::{partition_point_from, replace_merged};
use crate::recovery::sent::AckedData;
use crate::wire::packet::DataChunk;
use std::collections::VecDeque;

/// Disjoint, non-adjacent half-open byte ranges, lowest first. Acknowledgements mostly extend
/// the last range, so inserts are O(1) in the common case; a deque, because acknowledged
/// retransmissions fill the oldest holes, where merging shifts only the ranges below them.
#[derive(Clone, Debug, Default)]
struct ByteRanges {
    ranges: VecDeque<(u64, u64)>,
    /// Where the last `first_gap` search for each of its two callers ended ([`GapHint`]), checked
    /// before use. Lost data is declared and resent mostly in offset order, so after a loss burst the
    /// next hole asked about lies at or just past the last one, often far from both ends of thousands
    /// of ranges. One hint for both thrashed: loss detection asks at the newest losses while the resends
    /// waiting behind the pacer ask at the oldest, so each call found the other's hint and searched.
    /// 32 bits each, so that the two take the one's 8 bytes (the sender's layout counts on it).
    hints: [u32; 2],
}

/// Which caller's hint a `first_gap` search starts from.
#[derive(Clone, Copy)]
enum GapHint {
    /// Loss detection checking a lost packet's chunk (`queue_lost`).
    Lost = 0,
    /// The front of the resend queue (`peek_retransmission`).
    Resend = 1,
}

impl ByteRanges {
    /// Adds `lo..hi`; returns how many bytes were new.
    #[inline]
    fn insert(&mut self, lo: u64, hi: u64) -> u64 {
        if lo >= hi {
            return 0;
        }
        match self.ranges.back_mut() {
            Some(last) if lo > last.1 => {}
            Some(last) if lo >= last.0 => {
                let added = hi.saturating_sub(last.1);
                last.1 = last.1.max(hi);
                return added;
            }
            None => {}
            Some(_) => return self.insert_general(lo, hi),
        }
        self.ranges.push_back((lo, hi));
        hi - lo
    }

    /// `insert` below the last range. Out of line: `SendStream::on_acked`, inlined into the sender's ACK
    /// handling, calls it rarely, and with it inlined LLVM left `on_acked` a call of its own (+26 instructions
    /// an ACK on one flow).
    #[inline(never)]
    fn insert_general(&mut self, lo: u64, hi: u64) -> u64 {
        // An acknowledged retransmission mostly fills the oldest hole, from the end of the first range to at
        // most the end of the second: their ends say what changes, without the two searches, the sum over
        // the ranges covered and the merge (~250 instructions a call at 100,000 packets of BDP).
        if let (Some(&(a0, b0)), Some(&(a1, b1))) = (self.ranges.front(), self.ranges.get(1)) {
            if a0 <= lo && lo <= b0 && hi <= b1 {
                if hi < a1 {
                    self.ranges[0].1 = b0.max(hi);
                    return hi.saturating_sub(b0);
                }
                // The hole `b0..a1` is filled: the first two ranges become one.
                self.ranges.pop_front();
                self.ranges[0].0 = a0;
                return a1 - b0;
            }
        }
        let first = self.partition_point(|r| r.1 < lo);
        let end = first + self.partition_point_from(first, |r| r.0 <= hi);
        let covered: u64 = self
            .ranges
            .range(first..end)
            .map(|r| r.1.min(hi).saturating_sub(r.0.max(lo)))
            .sum();
        if first == end {
            self.ranges.insert(first, (lo, hi));
        } else {
            let merged = (self.ranges[first].0.min(lo), self.ranges[end - 1].1.max(hi));
            replace_merged(&mut self.ranges, first, end, merged);
        }
        (hi - lo) - covered
    }

    fn partition_point(&self, pred: impl Fn(&(u64, u64)) -> bool) -> usize {
        partition_point_from(&self.ranges, 0, pred)
    }

    fn partition_point_from(&self, start: usize, pred: impl Fn(&(u64, u64)) -> bool) -> usize {
        partition_point_from(&self.ranges, start, pred)
    }

    /// The first sub-range of `lo..hi` not in the set, found from `hint`'s last answer when it still holds.
    fn first_gap(&mut self, hint: GapHint, lo: u64, hi: u64) -> Option<(u64, u64)> {
        // `partition_point(|r| r.1 <= lo)`: the hinted index itself when the range before it ends at or below
        // `lo` and its own does not (the next hole of a burst), or the one after it, a search past them when
        // the answer lies further, else a search of the whole set.
        let n = self.ranges.len();
        let h = (self.hints[hint as usize] as usize).min(n);
        let mut i = if h > 0 && self.ranges[h - 1].1 <= lo {
            if h == n || self.ranges[h].1 > lo {
                h
            } else if h + 1 == n || self.ranges[h + 1].1 > lo {
                // The next hole when losses alternate with acknowledged packets (slow start's overshoot into
                // a full queue): the range above the last hole ends where this one starts. Half the calls at
                // 100,000 packets of BDP, each a search of ~85 instructions from the hint before.
                h + 1
            } else {
                h + 1 + self.partition_point_from(h + 1, |r| r.1 <= lo)
            }
        } else {
            self.partition_point(|r| r.1 <= lo)
        };
        // Saturates past 2^32 ranges (2^32 holes), where the hint is just checked and unused.
        self.hints[hint as usize] = u32::try_from(i).unwrap_or(u32::MAX);
        let mut x = lo;
        if let Some(r) = self.ranges.get(i).filter(|r| r.0 <= x) {
            x = r.1;
            i += 1;
        }
        let end = self.ranges.get(i).map_or(hi, |r| r.0.min(hi));
        (x < hi).then_some((x, end))
    }

    /// Whether `0..n` is covered.
    fn covers_prefix(&self, n: u64) -> bool {
        n == 0 || self.ranges.front().is_some_and(|r| r.0 == 0 && r.1 >= n)
    }
}

/// Adjacent chunks of acknowledged packets joined into one byte range (`SendStream::join_acked`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct AckedRun {
    /// Stream offset of the first byte.
    offset: u64,
    /// Stream offset just past the last byte.
    end: u64,
    /// A chunk of the run carried the FIN.
    fin: bool,
}

/// The stream's side of one ACK's walk of the sent record: the run of acknowledged chunks being joined
/// (`SendStream::join_acked`), which the caller hands to `on_acked` after the walk.
pub(super) struct AckedJoin<'a> {
    pub(super) stream: &'a mut SendStream,
    pub(super) run: Option<AckedRun>,
}

impl AckedData for AckedJoin<'_> {
    /// Inline in the walk's loop: see [`AckedData`].
    #[inline(always)]
    fn on_data_acked(&mut self, c: DataChunk) {
        self.stream.join_acked(&mut self.run, c);
    }
}

impl From<DataChunk> for AckedRun {
    fn from(c: DataChunk) -> AckedRun {
        AckedRun {
            offset: c.offset,
            end: c.offset + c.len as u64,
            fin: c.fin,
        }
    }
}

/// A chunk of lost data waiting in the resend queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Resend {
    offset: u64,
    len: u32,
    fin: bool,
    /// No byte of it can be acknowledged while it waits: the packet that carried it was declared lost, and no
    /// other packet ever carried any of its bytes (`SendStream::resent_end`). Such a chunk is its own trimmed
    /// front, so `peek` takes it without searching the acknowledged ranges. At 100,000 packets of BDP nearly
    /// every lost packet is the first copy of its bytes.
    unacked: bool,
}

impl Resend {
    fn chunk(self) -> DataChunk {
        DataChunk {
            offset: self.offset,
            len: self.len,
            fin: self.fin,
        }
    }

    fn end(self) -> u64 {
        self.offset + self.len as u64
    }
}

/// Where the next chunk comes from (`SendStream::peek`).
#[derive(Clone, Copy, Debug)]
pub(super) struct NextChunk {
    /// Stream offset of its first byte.
    pub offset: u64,
    /// Bytes available from `offset` on (the chunk may take fewer).
    pub available: u64,
    /// It resends lost (or probe) data.
    pub retransmission: bool,
}

/// Stream send state.
///
/// Fields in a fixed order (`repr(C)`): the acknowledged ranges and bytes and the end of the bytes queued
/// for resending, which only ACKs (and a retransmission's check) read, first (56 bytes), then what a send
/// reads (`Sender`).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub(super) struct SendStream {
    acked: ByteRanges,
    acked_bytes: u64,
    /// End of the highest bytes ever queued for resending: every byte at or above it was carried by one
    /// packet only, the one that first sent it (resends take their bytes from the queue).
    resent_end: u64,
    written: u64,
    next_offset: u64,
    retransmit: VecDeque<Resend>,
    /// The application closed the stream: `written` is its final size (a bool, not the size again, so
    /// that `resent_end` did not grow the stream, whose size the sender's layout counts on).
    finished: bool,
    fin_sent: bool,
    /// The front of `retransmit` was trimmed to unacknowledged bytes by `peek`, and no ACK covered
    /// any of them since: a sender held by its window or pacer peeks it again and again, and each
    /// check walks `acked`, which holds a range per hole after a loss burst.
    front_trimmed: bool,
    fin_acked: bool,
}

/// The bytes of a `SendStream` that a send reads (all but the acknowledged ranges and bytes and `resent_end`), for
/// the sender's layout test.
#[cfg(test)]
pub(crate) const SEND_BYTES: core::ops::Range<usize> =
    core::mem::offset_of!(SendStream, written)..size_of::<SendStream>();

impl SendStream {
    /// Starts loading the acknowledged ranges' ends and the oldest chunk to resend.
    #[inline]
    pub(super) fn prefetch(&self) {
        if let (Some(a), Some(b)) = (self.acked.ranges.front(), self.acked.ranges.back()) {
            crate::prefetch::prefetch(a);
            crate::prefetch::prefetch(b);
        }
        if let Some(c) = self.retransmit.front() {
            crate::prefetch::prefetch(c);
        }
    }

    /// The application has written `written` bytes in total; `finished` closes the stream, after which
    /// nothing more is written (the sender pumps a closed source no more).
    pub(super) fn on_written(&mut self, written: u64, finished: bool) {
        self.written = written;
        self.finished |= finished;
    }

    /// Unique bytes acknowledged.
    pub(super) fn acked_bytes(&self) -> u64 {
        self.acked_bytes
    }

    /// End of the acknowledged prefix: every stream byte below it is acknowledged (TCP `snd_una`).
    pub(super) fn acked_prefix(&self) -> u64 {
        self.acked.ranges.front().filter(|r| r.0 == 0).map_or(0, |r| r.1)
    }

    /// End of the bytes sent so far (TCP `snd_nxt`).
    pub(super) fn sent_end(&self) -> u64 {
        self.next_offset
    }

    /// Every byte and the FIN are acknowledged.
    pub(super) fn is_complete(&self) -> bool {
        self.fin_acked && self.finished && self.acked.covers_prefix(self.written)
    }

    /// Whether new (never sent) bytes or the FIN are waiting.
    pub(super) fn has_new_data(&self) -> bool {
        self.next_offset < self.written || (self.finished && !self.fin_sent)
    }

    /// The next chunk to send: lost data first (trimmed to what is still unacknowledged), then
    /// new data. `None` when there is nothing to send.
    #[inline]
    pub(super) fn peek(&mut self) -> Option<NextChunk> {
        // Inline for the common case of nothing to retransmit: the sender peeks on every send attempt.
        if self.retransmit.is_empty() {
            return self.peek_new();
        }
        // A front already trimmed to its unacknowledged part is the answer: so are most peeks of a
        // resend, which wait for the pacer once or twice before it leaves (a call cost each ~50).
        if let Some(c) = self.retransmit.front().filter(|c| self.front_trimmed || c.unacked) {
            return Some(NextChunk {
                offset: c.offset,
                available: c.len as u64,
                retransmission: true,
            });
        }
        self.peek_retransmission()
    }

    /// `peek` with lost data queued and the front not known trimmed: the front trimmed, or the new
    /// data once every queued chunk turned out acknowledged.
    #[inline(never)]
    fn peek_retransmission(&mut self) -> Option<NextChunk> {
        while let Some(&c) = self.retransmit.front() {
            let end = c.end();
            if c.len == 0 {
                if c.fin && !self.fin_acked {
                    return Some(NextChunk {
                        offset: c.offset,
                        available: 0,
                        retransmission: true,
                    });
                }
                self.retransmit.pop_front();
                continue;
            }
            let Some((lo, hi)) = self.acked.first_gap(GapHint::Resend, c.offset, end) else {
                // Acknowledged through another copy; the FIN rides on a zero-length chunk.
                self.retransmit.pop_front();
                if c.fin && !self.fin_acked {
                    self.retransmit.push_front(Resend {
                        offset: end,
                        len: 0,
                        fin: true,
                        unacked: false,
                    });
                }
                continue;
            };
            let front = self.retransmit.front_mut().expect("peeked");
            *front = Resend {
                offset: lo,
                len: (hi - lo) as u32,
                fin: c.fin && hi == end,
                unacked: false,
            };
            if hi < end {
                self.retransmit.insert(
                    1,
                    Resend {
                        offset: hi,
                        len: (end - hi) as u32,
                        fin: c.fin,
                        unacked: false,
                    },
                );
            }
            self.front_trimmed = true;
            return Some(NextChunk {
                offset: lo,
                available: hi - lo,
                retransmission: true,
            });
        }
        self.peek_new()
    }

    /// `peek` with nothing to retransmit.
    #[inline]
    fn peek_new(&self) -> Option<NextChunk> {
        self.has_new_data().then(|| NextChunk {
            offset: self.next_offset,
            available: self.written - self.next_offset,
            retransmission: false,
        })
    }

    /// Takes up to `max_len` bytes of the chunk `peek` returned.
    #[inline]
    pub(super) fn take(&mut self, next: &NextChunk, max_len: u32) -> DataChunk {
        let len = next.available.min(max_len as u64) as u32;
        if next.retransmission {
            let front = self.retransmit.front_mut().expect("peeked retransmission");
            if len < front.len {
                let c = DataChunk {
                    offset: front.offset,
                    len,
                    fin: false,
                };
                front.offset += len as u64;
                front.len -= len;
                return c;
            }
            self.front_trimmed = false;
            return self.retransmit.pop_front().expect("peeked retransmission").chunk();
        }
        self.next_offset += len as u64;
        let fin = self.finished && self.written == self.next_offset;
        self.fin_sent |= fin;
        DataChunk {
            offset: next.offset,
            len,
            fin,
        }
    }

    /// Adds chunk `c`, carried by the next packet one ACK newly acknowledged (in packet-number order),
    /// to `run` if it starts where `run` ends, else hands `run` to `on_acked` and starts a new one with
    /// it. Packets mostly carry the stream in order, so an ACK's packets make one run and the acknowledged
    /// ranges take one insert per ACK, not one per packet; the caller hands the last run to `on_acked`.
    /// In the ACK's walk (`AckedJoin`), with the run's end, the one call per packet of a gap, out of line.
    #[inline(always)]
    pub(super) fn join_acked(&mut self, run: &mut Option<AckedRun>, c: DataChunk) {
        match run {
            Some(r) if r.end == c.offset => {
                r.end = c.offset + c.len as u64;
                r.fin |= c.fin;
            }
            None => *run = Some(AckedRun::from(c)),
            Some(_) => self.restart_acked_run(run, c),
        }
    }

    /// `join_acked` for a chunk that does not extend `run`: hands `run` to `on_acked` and starts a new
    /// one with `c`.
    #[inline(never)]
    fn restart_acked_run(&mut self, run: &mut Option<AckedRun>, c: DataChunk) {
        if let Some(done) = run.replace(AckedRun::from(c)) {
            self.on_acked(done);
        }
    }

    /// The stream bytes of `run` were acknowledged; returns the bytes newly acknowledged. Inlined into the
    /// sender's ACK handling (the general insert stays a call).
    #[inline]
    pub(super) fn on_acked(&mut self, run: AckedRun) -> u64 {
        // Only bytes of the trimmed front make `peek` trim it again (the bytes below it were acknowledged
        // already, and a FIN matters only to a zero-length front, which is never kept trimmed). For a run
        // of adjacent chunks this is the test of each chunk: the front, when trimmed, is not empty.
        if let Some(f) = self.retransmit.front() {
            self.front_trimmed &= run.end <= f.offset || run.offset >= f.offset + f.len as u64;
        }
        self.fin_acked |= run.fin;
        let added = self.acked.insert(run.offset, run.end);
        self.acked_bytes += added;
        added
    }

    /// The packet carrying `c` was declared lost (and left the sent record): resend what is not yet acknowledged.
    pub(super) fn queue_lost(&mut self, c: DataChunk) {
        self.queue_retransmission(c, true);
    }

    /// A probe resends `c`, whose packet is still outstanding (the PTO's oldest chunks, TCP's tail loss probe).
    pub(super) fn queue_probe(&mut self, c: DataChunk) {
        self.queue_retransmission(c, false);
    }

    /// Queues what of `c` is not yet acknowledged; `lost` when its packet, the only one that can have
    /// acknowledged its bytes besides other copies, was declared lost.
    fn queue_retransmission(&mut self, c: DataChunk, lost: bool) {
        let end = c.offset + c.len as u64;
        // Bytes never queued before had one carrier, the packet `c` came from, which is not acknowledged:
        // they are all unacknowledged, without a search of the acknowledged ranges.
        let first_copy = c.len > 0 && c.offset >= self.resent_end;
        let unacked =
            first_copy || (c.fin && !self.fin_acked) || self.acked.first_gap(GapHint::Lost, c.offset, end).is_some();
        if unacked {
            self.resent_end = self.resent_end.max(end);
            self.retransmit.push_back(Resend {
                offset: c.offset,
                len: c.len,
                fin: c.fin,
                unacked: first_copy && lost,
            });
        }
    }

    /// Whether lost data is waiting to be resent.
    pub(super) fn has_retransmissions(&self) -> bool {
        !self.retransmit.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_ranges_count_new_bytes_and_find_gaps() {
        let mut r = ByteRanges::default();
        assert_eq!(r.insert(0, 100), 100);
        assert_eq!(r.insert(200, 300), 100);
        assert_eq!(r.insert(50, 250), 100);
        assert!(r.covers_prefix(300) && !r.covers_prefix(301));
        assert_eq!(r.insert(400, 500), 100);
        assert_eq!(r.first_gap(GapHint::Lost, 0, 450), Some((300, 400)));
        assert_eq!(r.first_gap(GapHint::Resend, 420, 450), None);
        assert_eq!(r.first_gap(GapHint::Lost, 450, 600), Some((500, 600)));
    }

    #[test]
    fn byte_ranges_inserts_at_the_front_match_a_bitmap() {
        // Every insert of a sub-range of 0..60 into ranges 0..5, 8..9, 12..20, 23..25, 30..40, 50..52 (at the
        // front and anywhere else) leaves the set and counts the new bytes as a bitmap of acknowledged bytes.
        let start = [(0, 5), (8, 9), (12, 20), (23, 25), (30, 40), (50, 52)];
        for lo in 0..60u64 {
            for hi in lo + 1..=60 {
                let mut r = ByteRanges::default();
                let mut bits = [false; 60];
                for &(a, b) in &start {
                    r.ranges.push_back((a, b));
                    bits[a as usize..b as usize].fill(true);
                }
                let new = bits[lo as usize..hi as usize].iter().filter(|&&b| !b).count() as u64;
                bits[lo as usize..hi as usize].fill(true);
                let mut want = Vec::new();
                for (i, &b) in bits.iter().enumerate() {
                    match want.last_mut() {
                        Some((_, end)) if b && *end == i as u64 => *end += 1,
                        _ if b => want.push((i as u64, i as u64 + 1)),
                        _ => {}
                    }
                }
                assert_eq!(r.insert(lo, hi), new, "{lo}..{hi}");
                assert_eq!(r.ranges, want, "{lo}..{hi}");
            }
        }
    }

    #[test]
    fn byte_ranges_gallop_matches_bisection() {
        let mut r = ByteRanges::default();
        for k in 0..300u64 {
            r.insert(10 * k, 10 * k + 5);
        }
        for x in 0..3_010u64 {
            let want = r.ranges.partition_point(|q| q.1 < x);
            assert_eq!(r.partition_point(|q| q.1 < x), want, "{x}");
            assert_eq!(r.partition_point(|q| q.1 <= x), r.ranges.partition_point(|q| q.1 <= x));
            let end = r.ranges.partition_point(|q| q.0 <= x + 7);
            assert_eq!(want + r.partition_point_from(want, |q| q.0 <= x + 7), end);
        }
        assert_eq!(ByteRanges::default().partition_point(|_| true), 0);
    }

    #[test]
    fn byte_ranges_first_gap_from_any_hint_matches_a_scan() {
        let mut r = ByteRanges::default();
        for k in 0..200u64 {
            r.insert(10 * k, 10 * k + 5);
        }
        // The gap a linear scan finds: the first byte of `lo..hi` in no range, up to the next range.
        let scan = |r: &ByteRanges, lo: u64, hi: u64| {
            let mut x = lo;
            for &(a, b) in &r.ranges {
                if a <= x && x < b {
                    x = b;
                }
            }
            let end = r.ranges.iter().find(|q| q.0 > x).map_or(hi, |q| q.0.min(hi));
            (x < hi).then_some((x, end))
        };
        // Forward (the hint helps), backward (it must be ignored), and jumping around.
        let los = (0..2_010)
            .chain((0..2_010).rev())
            .chain((0..2_010).map(|x| (x * 7919) % 2_010));
        for lo in los {
            let want = scan(&r, lo, lo + 8);
            for hint in [GapHint::Lost, GapHint::Resend] {
                assert_eq!(r.first_gap(hint, lo, lo + 8), want, "{lo} hints {:?}", r.hints);
            }
        }
        // Loss detection and the resend queue's front walk forward at different places, interleaved: each
        // must find its own hint where it left it (the answer itself, so no search), whatever the other asked.
        let at = |r: &ByteRanges, lo: u64| r.ranges.partition_point(|q| q.1 <= lo) as u32;
        for k in 0..900u64 {
            let (lost, resend) = (1_000 + k, k);
            assert_eq!(r.first_gap(GapHint::Lost, lost, lost + 8), scan(&r, lost, lost + 8));
            assert_eq!(
                r.first_gap(GapHint::Resend, resend, resend + 8),
                scan(&r, resend, resend + 8)
            );
            assert_eq!(r.hints, [at(&r, lost), at(&r, resend)], "after {lost} and {resend}");
        }
    }

    #[test]
    fn stream_resends_only_unacked_bytes_then_new_data() {
        let mut s = SendStream::default();
        s.on_written(3000, true);
        let n = s.peek().unwrap();
        let a = s.take(&n, 1000);
        let n = s.peek().unwrap();
        let b = s.take(&n, 2000);
        assert_eq!(
            (a, b.fin),
            (
                DataChunk {
                    offset: 0,
                    len: 1000,
                    fin: false
                },
                true
            )
        );
        // A copy of b's first half was acked, then b is probed (a lost packet's chunk, `queue_lost`, whose
        // bytes no other packet carried, is never acknowledged: that path does not search).
        s.on_acked(AckedRun::from(DataChunk {
            offset: 1000,
            len: 1000,
            fin: false,
        }));
        s.queue_probe(b);
        let n = s.peek().unwrap();
        assert_eq!((n.offset, n.available, n.retransmission), (2000, 1000, true));
        let c = s.take(&n, 600);
        assert_eq!(
            c,
            DataChunk {
                offset: 2000,
                len: 600,
                fin: false
            }
        );
        let n = s.peek().unwrap();
        let c = s.take(&n, 600);
        assert_eq!(
            c,
            DataChunk {
                offset: 2600,
                len: 400,
                fin: true
            }
        );
        assert!(s.peek().is_none());
        s.on_acked(AckedRun::from(a));
        s.on_acked(AckedRun::from(DataChunk {
            offset: 2000,
            len: 1000,
            fin: true,
        }));
        assert!(s.is_complete());
        assert_eq!(s.acked_bytes(), 3000);
    }

    #[test]
    fn stream_acked_chunks_joined_per_ack_equal_one_insert_each() {
        // Packets carried 0-1000, 1000-2000, 2000-3000 and 3000-10000 with the FIN; 1000-3000 was lost and
        // its resend trimmed at the front. One ACK then covers packets carrying 0-1000, 1000-1500 (part of a
        // resend), 3000-4000 after a gap, 4000-10000 with the FIN, and a zero-length FIN chunk: joining the
        // adjacent ones must leave the stream as inserting each chunk does.
        let mut s = SendStream::default();
        s.on_written(10_000, true);
        let mut chunks = Vec::new();
        for len in [1000, 1000, 1000, 7000] {
            let n = s.peek().unwrap();
            chunks.push(s.take(&n, len));
        }
        // Probed, so that the acknowledgement of part of them below can have come from a copy.
        s.queue_probe(chunks[1]);
        s.queue_probe(chunks[2]);
        assert_eq!(s.peek().unwrap().offset, 1000);
        let c = |offset, len, fin| DataChunk { offset, len, fin };
        let acked = [
            c(0, 1000, false),
            c(1000, 500, false),
            c(3000, 1000, false),
            c(4000, 6000, true),
            c(10_000, 0, true),
        ];
        let (mut each, mut joined) = (s.clone(), s);
        for &a in &acked {
            each.on_acked(AckedRun::from(a));
        }
        let mut run = None;
        for &a in &acked {
            joined.join_acked(&mut run, a);
        }
        joined.on_acked(run.unwrap());
        assert_eq!(format!("{joined:?}"), format!("{each:?}"));
        assert_eq!(joined.acked_bytes(), 1500 + 7000);
        assert!(!joined.front_trimmed, "bytes of the trimmed front were acknowledged");
        let (a, b) = (each.peek().unwrap(), joined.peek().unwrap());
        assert_eq!((a.offset, a.available), (b.offset, b.available));
        assert_eq!((b.offset, b.available), (1500, 500));
    }

    #[test]
    fn stream_peek_again_reuses_the_trimmed_front_until_an_ack() {
        let mut s = SendStream::default();
        s.on_written(5000, true);
        let n = s.peek().unwrap();
        let lost = s.take(&n, 5000);
        s.on_acked(AckedRun::from(DataChunk {
            offset: 0,
            len: 1000,
            fin: false,
        }));
        // Probed: its first 1000 bytes were acknowledged through a copy.
        s.queue_probe(lost);
        // Held by the window: the same trimmed chunk, peek after peek.
        for _ in 0..3 {
            let n = s.peek().unwrap();
            assert_eq!((n.offset, n.available, n.retransmission), (1000, 4000, true));
        }
        // Part of it goes out; the rest is still what is peeked.
        let n = s.peek().unwrap();
        let c = s.take(&n, 1500);
        assert_eq!((c.offset, c.len), (1000, 1500));
        assert_eq!(s.peek().unwrap().offset, 2500);
        // An ACK of bytes outside the front leaves it as it is.
        s.on_acked(AckedRun::from(DataChunk {
            offset: 500,
            len: 700,
            fin: false,
        }));
        let n = s.peek().unwrap();
        assert_eq!((n.offset, n.available), (2500, 2500));
        // An ACK of bytes in the middle of the front splits it on the next peek.
        s.on_acked(AckedRun::from(DataChunk {
            offset: 3000,
            len: 500,
            fin: false,
        }));
        let n = s.peek().unwrap();
        assert_eq!((n.offset, n.available), (2500, 500));
        let c = s.take(&n, 1500);
        assert!(!c.fin);
        let n = s.peek().unwrap();
        assert_eq!((n.offset, n.available), (3500, 1500));
        assert!(s.take(&n, 1500).fin && s.peek().is_none());
    }
}

#[cfg(test)]
#[path = "stream_resend_tests.rs"]
mod resend_tests;
