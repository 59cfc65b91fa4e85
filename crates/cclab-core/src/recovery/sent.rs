//! The sent-packet record (RFC 9002 §A.1.1): what the sender remembers about each packet it
//! still awaits an acknowledgement for.
//!
//! Packet numbers are consecutive, so the record is a ring indexed by `pn - base`: sending is an
//! O(1) push, acknowledging or losing a packet empties its slot, and empty slots at the front
//! are dropped. An ACK costs O(newly acked + ranges + slack): slots at or below the previous
//! largest acknowledged number hold at most `packet_threshold` packets once loss detection has
//! run (RFC 9002 §6.1.1 declares everything further back lost), so old ranges are cheap.

use crate::cc::AckedPacket;
use crate::recovery::delivery_rate::PacketDelivery;
use crate::time::Time;
use crate::wire::packet::{DataChunk, INLINE_RANGES};
use core::mem::MaybeUninit;
use std::collections::VecDeque;

/// One packet awaiting acknowledgement (RFC 9002 §A.1.1), in 64 bytes: its fields are private so that
/// `SentPacket::new` is the one place a record is made, which says what keeps its sizes within 16 bits.
/// Every packet a sender records elicits an acknowledgement (it carries stream data or a PING, and no
/// packet carries an ACK frame alone), so the record has no flag for it: the ACK's walk read and kept one
/// for every packet, only for the RTT sample's test (RFC 9002 §5.1) that something newly acknowledged elicits.
///
/// Eight bytes for each time and count, two for each size, one for each flag (and one of padding): the ring's
/// slots are then one cache line each (`Slot`), where 80-byte records straddled two lines, so that a send
/// writes one line, not two, and an ACK reads one line a record, not 1.25; at 100,000 packets of BDP the
/// ring's ~350,000 records take a fifth fewer pages to fault in than at 80 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SentPacket {
    /// Clock reading when it was sent.
    time_sent: Time,
    /// The delivery-rate snapshot's fields ([`PacketDelivery`]) but its flag, which sits with the others.
    delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    lost: u64,
    in_flight_before: u64,
    /// Offset of the stream data it carried, when `has_data`.
    data_offset: u64,
    /// Bytes counted toward bytes in flight (0 = not in flight).
    bytes: u16,
    /// Payload bytes of the stream data it carried, when `has_data`.
    data_len: u16,
    /// The snapshot's `is_app_limited`.
    is_app_limited: bool,
    /// Whether it carried stream data (`data_offset`, `data_len`, `data_fin`).
    has_data: bool,
    /// Whether that data ended the stream.
    data_fin: bool,
}

// Seven 8-byte fields, two 2-byte ones, three flags and a byte of padding: one cache line, with the niche of
// `Option` in a flag.
const _: () = assert!(size_of::<Option<SentPacket>>() == 64);

impl SentPacket {
    /// The record of a packet sent at `time_sent` whose `bytes` count in flight, carrying `data`, with the
    /// delivery-rate snapshot taken as it was sent. `bytes` and the data's length are at most 65,535: the
    /// sender's packets fit an IP packet (`Sender::with_controller` refuses a profile whose full-sized
    /// packet does not, and a scenario's `quic.max_udp_payload` and `tcp.mss` are bounded below that, cclab-sim's
    /// `ip_limit`), and what counts in flight (a QUIC packet, a TCP segment's payload) and a STREAM frame's or
    /// segment's payload are within its full-sized packet.
    #[inline]
    pub(crate) fn new(time_sent: Time, bytes: u32, data: Option<DataChunk>, delivery: PacketDelivery) -> SentPacket {
        let (data_offset, data_len, data_fin) = data.map_or((0, 0, false), |c| (c.offset, c.len, c.fin));
        // A check here, a test and branch a send, cost 8 instructions a data packet (0.26 % of a run at BDP 100).
        debug_assert!(
            bytes <= u16::MAX.into() && data_len <= u16::MAX.into(),
            "at most 65,535 bytes"
        );
        let (bytes, data_len) = (bytes as u16, data_len as u16);
        SentPacket {
            time_sent,
            delivered: delivery.delivered,
            delivered_time: delivery.delivered_time,
            first_sent_time: delivery.first_sent_time,
            lost: delivery.lost,
            in_flight_before: delivery.in_flight_before,
            data_offset,
            bytes,
            data_len,
            is_app_limited: delivery.is_app_limited,
            has_data: data.is_some(),
            data_fin,
        }
    }

    /// Clock reading when it was sent.
    #[inline]
    pub fn time_sent(&self) -> Time {
        self.time_sent
    }

    /// Bytes counted toward bytes in flight (0 = not in flight).
    #[inline]
    pub fn bytes(&self) -> u64 {
        u64::from(self.bytes)
    }

    /// Whether it counts toward the ack-eliciting packets in flight (they arm the PTO, RFC 9002 §6.2.1):
    /// every recorded packet elicits an acknowledgement, so whether it counts in flight.
    #[inline]
    fn eliciting_in_flight(&self) -> u32 {
        (self.bytes > 0) as u32
    }

    /// Stream data it carried; re-queued if the packet is lost.
    #[inline]
    pub fn data(&self) -> Option<DataChunk> {
        self.has_data.then_some(DataChunk {
            offset: self.data_offset,
            len: u32::from(self.data_len),
            fin: self.data_fin,
        })
    }

    /// Delivery-rate snapshot taken when it was sent.
    #[inline]
    pub fn delivery(&self) -> PacketDelivery {
        PacketDelivery {
            delivered: self.delivered,
            delivered_time: self.delivered_time,
            first_sent_time: self.first_sent_time,
            is_app_limited: self.is_app_limited,
            lost: self.lost,
            in_flight_before: self.in_flight_before,
        }
    }
}

/// The outstanding packets that carried an ACK_FREQUENCY frame, with the frame's sequence number, in
/// packet-number order: a policy sends about one frame per round trip, so a few entries beside the
/// sent record rather than a field in each of its records.
#[derive(Clone, Debug, Default)]
pub struct AckFrequencySent(VecDeque<(u64, u64)>);

impl AckFrequencySent {
    /// Packet `pn`, newer than every packet recorded so far, carried frame `seq`.
    pub fn push(&mut self, pn: u64, seq: u64) {
        debug_assert!(self.0.back().is_none_or(|&(last, _)| last < pn));
        self.0.push_back((pn, seq));
    }

    /// Whether no packet carrying a frame is outstanding.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The sequence number of the frame packet `pn` carried, forgotten as the packet is acknowledged or
    /// lost. Inlined for the common case, no frame outstanding.
    #[inline]
    pub fn take(&mut self, pn: u64) -> Option<u64> {
        if self.0.is_empty() {
            return None;
        }
        self.take_recorded(pn)
    }

    fn take_recorded(&mut self, pn: u64) -> Option<u64> {
        let i = self.0.binary_search_by_key(&pn, |&(p, _)| p).ok()?;
        self.0.remove(i).map(|(_, seq)| seq)
    }
}

/// What an ACK's walk hands the stream data of each packet it acknowledges to, in packet-number order. A
/// trait rather than a closure so that the sender's implementation can be marked inline (a closure cannot be):
/// LLVM called the sender's closure out of line from the walk, ~25 instructions a packet acknowledged.
pub trait AckedData {
    /// A packet carrying `c` was newly acknowledged.
    fn on_data_acked(&mut self, c: DataChunk);
}

impl<F: FnMut(DataChunk)> AckedData for F {
    #[inline]
    fn on_data_acked(&mut self, c: DataChunk) {
        self(c)
    }
}

/// A slot of the ring, one cache line: initialised while its packet number is in use (`SentPackets::live`).
#[derive(Clone, Copy, Debug)]
#[repr(align(64))]
struct Slot(MaybeUninit<Option<SentPacket>>);

// A record fills its slot and the ring's buffer starts on a line (a `Vec` honours its element's alignment; the
// ring's large buffers are mappings of their own in cclab-alloc, `mapped.rs`): each record is one line, which a
// send writes and an ACK reads, never two.
const _: () = assert!(size_of::<Slot>() == 64 && align_of::<Slot>() == 64);

/// The outstanding packets of one packet-number space, with bytes-in-flight accounting.
///
/// A ring of its own rather than a `VecDeque`: packet `pn`'s slot is `ring[(head + pn - base) & mask]`
/// (the ring's length a power of two, as `VecDeque` grows it too), so an ACK walks a range with one
/// add and mask per slot, remembers a slot as an index, and drops the empty front in one step.
#[derive(Clone, Debug, Default)]
pub struct SentPackets {
    /// Packet number of the slot at `head`.
    base: u64,
    /// `cap` slots, the `len` from `head` on (wrapping) in use. Only those are initialised (`live`): a slot
    /// is written when a send reaches it, not when the ring grows, so a send writes its slot with no test
    /// of whether the ring was ever that long (a large ring's new half is faulted in at its growth by the
    /// simulator's allocator, `cclab-alloc`, but not written).
    ring: Vec<Slot>,
    /// Slots in the ring: 0 or a power of two. This and the count below are 32 bits so that this struct (not
    /// a slot) stays 64 bytes, which the sender's layout counts on (its layout test); 2^31 slots would be 128 GiB.
    cap: u32,
    ack_eliciting_in_flight: u32,
    head: usize,
    len: usize,
    bytes_in_flight: u64,
}

impl SentPackets {
    /// Starts loading the three oldest records (an ACK reads the two a receiver acknowledges at once by
    /// default, RFC 9000 §13.2.2, and the next, to see whether the front is empty) and the newest (a send
    /// writes after it).
    #[inline]
    pub fn prefetch(&self) {
        if self.len == 0 {
            return;
        }
        let mask = self.mask();
        let (a, b) = (&self.ring[self.head], &self.ring[(self.head + self.len - 1) & mask]);
        // Past the buffer's end when the ring wraps there: as below, harmless, just useless.
        crate::prefetch::prefetch_bytes(a as *const _ as usize, 3 * size_of::<Option<SentPacket>>());
        // The slot after the newest, where the next send writes (past the buffer's end when the ring
        // wraps there: a hint for an address outside the allocation is harmless, just useless).
        crate::prefetch::prefetch_bytes(b as *const _ as usize, 2 * size_of::<Option<SentPacket>>());
    }

    /// An empty record whose first packet number is 0.
    pub fn new() -> SentPackets {
        SentPackets::default()
    }

    /// Slot `i`, one of the `len` in use from `head` on: every caller computes `i` from a packet number
    /// below `next_pn` and at or above `base`.
    #[inline(always)]
    fn live(&self, i: usize) -> &Option<SentPacket> {
        debug_assert!(i < self.ring.len(), "slot {i} outside the ring");
        debug_assert!(
            (i.wrapping_sub(self.head) & self.mask()) < self.len,
            "slot {i} not in use"
        );
        // SAFETY: a slot in use is within the ring (`len <= cap`, the ring's length), the slots in use were
        // written by `push` (or moved by `grow` with their contents), and nothing makes a slot in use
        // without writing it.
        unsafe { self.ring.get_unchecked(i).0.assume_init_ref() }
    }

    /// Empties slot `i`, one in use (as `live`'s).
    #[inline(always)]
    fn empty(&mut self, i: usize) {
        debug_assert!(i < self.ring.len() && (i.wrapping_sub(self.head) & self.mask()) < self.len);
        // SAFETY: a slot in use is within the ring, as in `live`.
        *unsafe { self.ring.get_unchecked_mut(i) } = Slot(MaybeUninit::new(None));
    }

    /// `cap - 1`: slot indices wrap with it.
    #[inline]
    fn mask(&self) -> usize {
        (self.cap as usize).wrapping_sub(1)
    }

    /// The packet number the next `push` gets.
    pub fn next_pn(&self) -> u64 {
        self.base + self.len as u64
    }

    /// Bytes of the outstanding packets that count in flight.
    pub fn bytes_in_flight(&self) -> u64 {
        self.bytes_in_flight
    }

    /// Number of outstanding ack-eliciting in-flight packets (they arm the PTO, RFC 9002 §6.2.1).
    pub fn ack_eliciting_in_flight(&self) -> usize {
        self.ack_eliciting_in_flight as usize
    }

    /// Records a packet; returns its packet number.
    pub fn push(&mut self, p: SentPacket) -> u64 {
        let pn = self.next_pn();
        self.bytes_in_flight += p.bytes();
        self.ack_eliciting_in_flight += p.eliciting_in_flight();
        if self.len == self.cap as usize {
            self.grow();
        }
        let i = (self.head + self.len) & self.mask();
        // `i` is below `cap`, the ring's length (`grow` keeps them equal): the test is the bounds check's,
        // without its panic path (4 instructions a send).
        debug_assert!(i < self.ring.len());
        if let Some(slot) = self.ring.get_mut(i) {
            *slot = Slot(MaybeUninit::new(Some(p)));
        }
        self.len += 1;
        pn
    }

    /// Doubles the ring (4 slots at first) where it lies. Growing the buffer by `realloc` lets glibc move a
    /// large one's pages (`mremap`) rather than copy them, and the new half stays unwritten until sends reach
    /// it (a large one faulted in at once by `cclab-alloc`): copying the records into a fresh ring filled with `None` (`vec![None; 2 * cap]`) wrote pages the
    /// flow never used and copied the rest, 10,000 more page faults at BDP 100k's last doublings in a 1 GB
    /// run (30,720 against 20,517). A full ring's slots run from `head` to the old end, then from 0 to `head`;
    /// the shorter of the two parts moves so that the slots in use stay consecutive modulo the new length:
    /// the part from 0 to after the old end, or the part from `head` to the new end (`head` with it). At
    /// BDP 100k a ring fills with `head` near its end (ACKs free few slots in slow start), and moving the
    /// part before it, as the ring did, copied most of 20 MB at the last doubling.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let old = self.cap as usize;
        debug_assert!(self.len == old && self.ring.len() == old);
        let cap = self
            .cap
            .checked_mul(2)
            .expect("fewer than 2^31 packets outstanding")
            .max(4);
        self.ring.reserve_exact(cap as usize - old);
        // SAFETY: the capacity is reserved just above, and a `MaybeUninit` slot needs no initialisation.
        unsafe { self.ring.set_len(cap as usize) };
        if self.head <= old - self.head {
            self.ring.copy_within(..self.head, old);
        } else {
            self.ring.copy_within(self.head..old, self.head + old);
            self.head += old;
        }
        self.cap = cap;
    }

    /// The slot of packet `pn`, if it is within the record.
    fn slot(&self, pn: u64) -> Option<usize> {
        let i = pn.checked_sub(self.base)?;
        (i < self.len as u64).then(|| (self.head + i as usize) & self.mask())
    }

    /// The outstanding packet `pn`, if any.
    pub fn get(&self, pn: u64) -> Option<&SentPacket> {
        self.live(self.slot(pn)?).as_ref()
    }

    /// Smallest packet number that may still be outstanding.
    pub fn first_pn(&self) -> u64 {
        self.base
    }

    /// Removes outstanding packets from the front, in packet-number order below `end`, while `take` declares
    /// them lost: it sees each in its slot and returns false to keep it, which ends the walk (loss detection's
    /// thresholds are monotone in packet number). The slots between them (acknowledged) are passed, and the
    /// front, the bytes in flight and the ack-eliciting count are updated once at the end: popping the front
    /// one packet at a time copied each 64-byte record out twice, tested its slot twice and walked past the
    /// emptied slots behind it after every packet, and wrote each slot empty.
    #[inline]
    pub fn take_front_while(&mut self, end: u64, mut take: impl FnMut(u64, &SentPacket) -> bool) {
        let (mask, stop) = (self.mask(), end.min(self.next_pn()));
        let (mut pn, mut slot) = (self.base, self.head);
        let (mut bytes, mut eliciting) = (0, 0);
        while pn < stop {
            if let Some(p) = self.live(slot) {
                if !take(pn, p) {
                    break;
                }
                (bytes, eliciting) = (bytes + p.bytes(), eliciting + p.eliciting_in_flight());
            }
            (pn, slot) = (pn + 1, (slot + 1) & mask);
        }
        self.bytes_in_flight -= bytes;
        self.ack_eliciting_in_flight -= eliciting;
        // Every slot before `pn` was taken or empty: the front moves past them, which leaves them out of
        // use, so the taken ones are not written empty (a push writes a slot before it is in use again).
        self.drop_empty_front((pn - self.base) as usize);
    }

    /// Removes `pn` (acknowledged or lost) and returns it, if it was outstanding.
    pub fn remove(&mut self, pn: u64) -> Option<SentPacket> {
        let i = self.slot(pn)?;
        let p = (*self.live(i))?;
        self.empty(i);
        self.bytes_in_flight -= p.bytes();
        self.ack_eliciting_in_flight -= p.eliciting_in_flight();
        self.drop_empty_front(0);
        Some(p)
    }

    /// Drops the empty slots at the front, moving `base` past them; the first `known` are empty.
    #[inline]
    fn drop_empty_front(&mut self, known: usize) {
        let mask = self.mask();
        let (mut head, mut len) = ((self.head + known) & mask, self.len - known);
        while len > 0 && self.live(head).is_none() {
            head = (head + 1) & mask;
            len -= 1;
        }
        self.base += (self.len - len) as u64;
        (self.head, self.len) = (head, len);
    }

    /// Removes every outstanding packet covered by `ranges` (inclusive `(smallest, largest)`,
    /// highest first, as in an ACK frame), appends each to `acked` in ascending packet-number order and
    /// hands the stream data it carried to `data`, then hands the newest of them again to `newest`, with
    /// the bytes in flight they held together. `newest` borrows the record in its slot: copying it out
    /// first cost more than the rest of the walk, and the newest one's slot is emptied last so that a
    /// caller reads its snapshot once per ACK (the delivery-rate sample) rather than from every packet in
    /// case it is the newest.
    ///
    /// The walk fills the controller's list itself, and the caller's code per packet is only what it does
    /// with the data: with the list's push (and an ACK_FREQUENCY look-up) in a closure per packet as well,
    /// LLVM called that closure out of line, ~49 instructions a packet acknowledged of which ~16 saved and
    /// restored registers.
    #[inline]
    pub fn on_ack(
        &mut self,
        ranges: &[(u64, u64)],
        acked: &mut Vec<AckedPacket>,
        data: &mut impl AckedData,
        newest: impl FnOnce(u64, &SentPacket, u64),
    ) {
        let base = self.base;
        if ranges.len() > INLINE_RANGES {
            // A frame of more ranges than its box holds (the box the simulator's return link loads ahead;
            // after a loss burst up to 32 ranges, 512 bytes in a buffer of their own) was written by the
            // receiver a one-way delay ago, and the bisection below reads its lines one after another, each
            // load's address waiting for the last load: at BDP 100k a fifth of the sender's ACK samples
            // (perf) sat on that chain. Asked for at once, the lines arrive together.
            crate::prefetch::prefetch_bytes(ranges.as_ptr() as usize, size_of_val(ranges));
        }
        // ACKs keep repeating old ranges (up to the receiver's limit, 32 after a loss burst): bisect for the
        // trailing ones wholly below `base` (descending ranges, as `AckFrame::check` ensures) rather than step
        // over them one by one.
        let n = ranges.partition_point(|r| r.1 >= base);
        // Each walk returns the bytes in flight of the packets it appended to `acked`, the newest one's packet
        // number and slot, and the slots at the front it left empty for certain (a struct of the three, with
        // this end as a function of its own, cost the ACK 17 instructions more than this tuple).
        let (bytes, newest_slot, empty_front) = match ranges[..n] {
            // Nearly every ACK: the one range above `base` reaches down to it.
            [(lo, hi)] if lo <= base => self.ack_front(hi, acked, data),
            _ => self.ack_ranges(&ranges[..n], acked, data),
        };
        if let Some((pn, slot)) = newest_slot {
            if let Some(p) = self.live(slot) {
                newest(pn, p, bytes);
            }
            self.empty(slot);
        }
        // Empty slots at the front go once per ACK, not once per packet.
        self.drop_empty_front(empty_front);
    }

    /// `on_ack`'s walk for an ACK whose only range reaching `base` or above covers `base` and ends at `hi`
    /// (at or above `base`): every packet it acknowledges is in the front slots, which go with the front,
    /// so no slot is emptied and no range is clipped against another.
    ///
    /// The general walk alone held ~15 values across its loop (the ranges' iterator, the end of the last
    /// range, the slot still to empty) beside the sender's ACK's own, with the sender's closure inlined into
    /// it, and most of them lived on the stack; this loop holds the bytes, the count and the newest packet
    /// (170.31 → 169.53 M instructions on the 100 MB run), and the list's push and the stream's join
    /// ([`AckedData`]) inline.
    #[inline(always)]
    fn ack_front(
        &mut self,
        hi: u64,
        acked: &mut Vec<AckedPacket>,
        data: &mut impl AckedData,
    ) -> (u64, Option<(u64, usize)>, usize) {
        let (base, head, mask) = (self.base, self.head, self.mask());
        // At or above `base`: `hi` is, and packets from `base` to `next_pn` are in the record.
        let stop = hi.saturating_add(1).min(self.next_pn());
        let (mut bytes, mut eliciting) = (0u64, 0u32);
        let mut newest: Option<(u64, usize)> = None;
        for pn in base..stop {
            let slot = (head + (pn - base) as usize) & mask;
            if let Some(p) = self.live(slot) {
                bytes += p.bytes();
                eliciting += p.eliciting_in_flight();
                acked.push(AckedPacket {
                    pn,
                    bytes: p.bytes(),
                    time_sent: p.time_sent(),
                });
                if let Some(c) = p.data() {
                    data.on_data_acked(c);
                }
                newest = Some((pn, slot));
            }
        }
        self.bytes_in_flight -= bytes;
        self.ack_eliciting_in_flight -= eliciting;
        // At most `len` slots: `stop` is at most `next_pn`.
        (bytes, newest, (stop - base) as usize)
    }

    /// `on_ack`'s walk for any other ranges above `base` (`ranges`, highest first), as `ack_front`'s: each
    /// range is clipped to the record and to the end of the one below, and each acknowledged slot but the
    /// newest emptied. Out of line, with `data` behind `dyn`: few ACKs come here (106 of 34,790 on the
    /// 100 MB run), and a second inlined walk in the sender's ACK would share its registers.
    #[inline(never)]
    fn ack_ranges(
        &mut self,
        ranges: &[(u64, u64)],
        acked: &mut Vec<AckedPacket>,
        data: &mut dyn AckedData,
    ) -> (u64, Option<(u64, usize)>, usize) {
        let (base, end) = (self.base, self.next_pn());
        let mask = self.mask();
        let (mut bytes, mut eliciting) = (0u64, 0u32);
        // The newest packet so far and its slot, emptied when a newer one turns up.
        let mut held: Option<(u64, usize)> = None;
        // Where the last range ended: a range overlapping it (never from `AckFrame::check`) is not walked twice.
        let mut next = base;
        // Slots at the front that this ACK leaves empty for certain: the lowest range's, if it starts at `base`.
        let mut empty_front = 0;
        for &(lo, hi) in ranges.iter().rev() {
            let (first, last) = (lo.max(next), hi.min(end.saturating_sub(1)));
            if first > last || first >= end {
                continue;
            }
            if first == base {
                empty_front = (last + 1 - base) as usize;
            }
            next = last + 1;
            for pn in first..next {
                let slot = (self.head + (pn - base) as usize) & mask;
                if let Some(p) = self.live(slot) {
                    bytes += p.bytes();
                    eliciting += p.eliciting_in_flight();
                    acked.push(AckedPacket {
                        pn,
                        bytes: p.bytes(),
                        time_sent: p.time_sent(),
                    });
                    if let Some(c) = p.data() {
                        data.on_data_acked(c);
                    }
                    if let Some((_, older)) = held.replace((pn, slot)) {
                        self.empty(older);
                    }
                }
            }
        }
        self.bytes_in_flight -= bytes;
        self.ack_eliciting_in_flight -= eliciting;
        (bytes, held, empty_front)
    }

    /// Outstanding packets in packet-number order, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &SentPacket)> + '_ {
        let (base, head, mask) = (self.base, self.head, self.mask());
        (0..self.len).filter_map(move |i| self.live((head + i) & mask).as_ref().map(|p| (base + i as u64, p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(t: u64, bytes: u32) -> SentPacket {
        SentPacket::new(Time(t), bytes, None, PacketDelivery::default())
    }

    /// `on_ack` of `ranges`: the packet numbers and bytes of the packets it acknowledged, in its list's order.
    fn ack(s: &mut SentPackets, ranges: &[(u64, u64)]) -> Vec<(u64, u64)> {
        let mut acked = Vec::new();
        s.on_ack(ranges, &mut acked, &mut |_| {}, |_, _, _| {});
        acked.iter().map(|a| (a.pn, a.bytes)).collect()
    }

    fn pns(acked: &[(u64, u64)]) -> Vec<u64> {
        acked.iter().map(|&(pn, _)| pn).collect()
    }

    #[test]
    fn sent_record_acks_ranges_in_order_and_compacts() {
        let mut s = SentPackets::new();
        for i in 0..10 {
            assert_eq!(s.push(pkt(i, 100)), i);
        }
        assert_eq!(s.bytes_in_flight(), 1000);
        // Highest range first, as in an ACK frame; 4 and 7 stay outstanding.
        let got = ack(&mut s, &[(8, 20), (5, 6), (0, 3)]);
        assert_eq!(pns(&got), vec![0, 1, 2, 3, 5, 6, 8, 9]);
        assert_eq!(s.first_pn(), 4);
        assert_eq!(s.bytes_in_flight(), 200);
        assert_eq!(s.iter().map(|(pn, _)| pn).collect::<Vec<_>>(), vec![4, 7]);
        // Re-acking old ranges does nothing.
        assert_eq!(pns(&ack(&mut s, &[(0, 9)])), vec![4, 7]);
        assert_eq!(s.bytes_in_flight(), 0);
        assert_eq!(s.first_pn(), 10);
        assert_eq!(s.ack_eliciting_in_flight(), 0);
        assert!(s.remove(3).is_none() && s.get(12).is_none());
        // A frame repeating many old ranges below the first outstanding packet acks only what is above it.
        for i in 10..20 {
            s.push(pkt(i, 100));
        }
        let mut ranges: Vec<(u64, u64)> = vec![(18, 18), (12, 15)];
        ranges.extend((0..5).rev().map(|k| (2 * k, 2 * k)));
        assert_eq!(pns(&ack(&mut s, &ranges)), vec![12, 13, 14, 15, 18]);
        assert_eq!((s.first_pn(), s.bytes_in_flight()), (10, 500));
    }

    #[test]
    fn sent_record_keeps_sizes_up_to_an_ip_packet_in_one_line_each() {
        // The largest sizes a packet can have (65,535 in 16 bits), a FIN without payload and no data all come
        // back as they went in, with the snapshot's fields, from slots that each start a cache line.
        let delivery = PacketDelivery {
            delivered: 1 << 40,
            delivered_time: Time(7),
            first_sent_time: Time(5),
            is_app_limited: true,
            lost: 3 << 33,
            in_flight_before: 1 << 35,
        };
        let chunks = [
            Some(DataChunk {
                offset: 1 << 50,
                len: 65_535,
                fin: false,
            }),
            Some(DataChunk {
                offset: 9,
                len: 0,
                fin: true,
            }),
            None,
        ];
        let mut s = SentPackets::new();
        for (i, &data) in chunks.iter().enumerate() {
            s.push(SentPacket::new(Time(i as u64), 65_535 - i as u32, data, delivery));
        }
        assert_eq!(s.ring.as_ptr() as usize % 64, 0);
        for (i, &data) in chunks.iter().enumerate() {
            let p = s.get(i as u64).unwrap();
            let got = (p.time_sent(), p.bytes(), p.data(), p.delivery());
            assert_eq!(got, (Time(i as u64), 65_535 - i as u64, data, delivery));
        }
        assert_eq!((s.bytes_in_flight(), s.ack_eliciting_in_flight()), (3 * 65_535 - 3, 3));
        // A packet of no bytes in flight (a TCP segment without payload) is not among the ack-eliciting in flight.
        s.push(SentPacket::new(Time(3), 0, None, delivery));
        assert_eq!((s.bytes_in_flight(), s.ack_eliciting_in_flight()), (3 * 65_535 - 3, 3));
    }

    #[test]
    fn sent_ring_wraps_and_grows_in_packet_number_order() {
        // Four slots: packets 0-3 fill them, the ACK of 0-1 frees the first two, 4-5 wrap into them,
        // and 6 doubles the ring while it wraps: the walk must still see packet-number order.
        let mut s = SentPackets::new();
        for i in 0..4 {
            s.push(pkt(i, 100 + i as u32));
        }
        ack(&mut s, &[(0, 1)]);
        assert_eq!((s.first_pn(), s.bytes_in_flight()), (2, 205));
        for i in 4..7 {
            assert_eq!(s.push(pkt(i, 100 + i as u32)), i);
        }
        assert_eq!(
            s.iter().map(|(pn, p)| (pn, p.time_sent.0)).collect::<Vec<_>>(),
            (2..7).map(|i| (i, i)).collect::<Vec<_>>()
        );
        assert_eq!(s.get(5).map(|p| p.bytes()), Some(105));
        // The newest packet the ACK newly acknowledges comes once more, last, with the bytes of all of
        // them; 4 stays outstanding, and the front moves past 2-3 only.
        let (mut acked, mut newest) = (Vec::new(), None);
        s.on_ack(&[(5, 6), (2, 3)], &mut acked, &mut |_| {}, |pn, p, bytes| {
            newest = Some((pn, p.bytes(), bytes))
        });
        let each: Vec<_> = acked.iter().map(|a| (a.pn, a.bytes, a.time_sent.0)).collect();
        assert_eq!(each, vec![(2, 102, 2), (3, 103, 3), (5, 105, 5), (6, 106, 6)]);
        assert_eq!(newest, Some((6, 106, 416)));
        assert_eq!((s.first_pn(), s.next_pn(), s.bytes_in_flight()), (4, 7, 104));
        assert!(s.get(5).is_none() && s.get(6).is_none() && s.get(4).is_some());
        // Ranges that overlap (never from a checked frame) walk no packet twice; an ACK of nothing new hands
        // over nothing.
        let mut acked = Vec::new();
        s.on_ack(&[(3, 6), (4, 5)], &mut acked, &mut |_| {}, |pn, _, bytes| {
            newest = Some((pn, 0, bytes))
        });
        assert_eq!((acked.len(), acked[0].pn, newest), (1, 4, Some((4, 0, 104))));
        s.on_ack(
            &[(0, 6)],
            &mut acked,
            &mut |_| panic!("nothing outstanding"),
            |_, _, _| panic!("nothing newly acknowledged"),
        );
        assert_eq!(acked.len(), 1, "nothing appended");
        assert_eq!(
            (s.first_pn(), s.bytes_in_flight(), s.ack_eliciting_in_flight()),
            (7, 0, 0)
        );
    }

    #[test]
    fn sent_take_front_stops_at_the_first_kept_and_drops_the_empty_front() {
        // A ring of 8 slots that wraps: 0-5 acknowledged, 8-13 in the slots they left, 7 and 9 acknowledged
        // (holes the walk passes without showing them).
        let mut s = SentPackets::new();
        for i in 0..8 {
            s.push(pkt(i, 100 + i as u32));
        }
        assert_eq!(pns(&ack(&mut s, &[(0, 5)])), vec![0, 1, 2, 3, 4, 5]);
        for i in 8..14 {
            s.push(pkt(i, 100 + i as u32));
        }
        ack(&mut s, &[(9, 9), (7, 7)]);
        let mut seen = Vec::new();
        s.take_front_while(13, |pn, p| {
            seen.push((pn, p.bytes()));
            pn < 11
        });
        // 11 is shown and kept: the walk ends there, the front with it; the taken bytes leave the flight.
        assert_eq!(seen, vec![(6, 106), (8, 108), (10, 110), (11, 111)]);
        assert_eq!(
            (s.first_pn(), s.bytes_in_flight(), s.ack_eliciting_in_flight()),
            (11, 111 + 112 + 113, 3)
        );
        // Taken up to `end` (12, not shown); 12 acknowledged meanwhile, so the front moves past it too.
        ack(&mut s, &[(12, 12)]);
        seen.clear();
        s.take_front_while(13, |pn, _| {
            seen.push((pn, 0));
            true
        });
        assert_eq!(seen, vec![(11, 0)]);
        assert_eq!((s.first_pn(), s.bytes_in_flight()), (13, 113));
        assert_eq!(s.get(13).map(|p| p.bytes()), Some(113));
    }

    #[test]
    fn sent_ack_of_the_front_walks_as_the_general_walk() {
        // The walk of an ACK whose one range reaches the front (`ack_front`, nearly every ACK) against the general
        // walk (`ack_ranges`) on the same record: a ring that wraps or not, with packets already acknowledged
        // above a gap (empty slots inside the range), and ranges ending inside the record, at its newest packet,
        // past it (a frame `checked_ranges` would refuse) and from below the front. Packets carry stream data but
        // every third, which both walks must hand over alike.
        let data = |i: u64| {
            (!i.is_multiple_of(3)).then_some(DataChunk {
                offset: 1000 * i,
                len: 100 + i as u32,
                fin: i == 20,
            })
        };
        for wrap in [0, 5] {
            for holes in [&[][..], &[(9, 9)], &[(7, 8), (11, 11)], &[(15, 15)]] {
                let mut s = SentPackets::new();
                for i in 0..wrap {
                    s.push(pkt(i, 100));
                }
                ack(&mut s, &[(0, wrap.saturating_sub(1))]);
                for i in wrap..wrap + 16 {
                    s.push(SentPacket::new(
                        Time(i),
                        100 + i as u32,
                        data(i),
                        PacketDelivery::default(),
                    ));
                }
                let shift = |r: &[(u64, u64)]| r.iter().map(|&(a, b)| (a + wrap, b + wrap)).collect::<Vec<_>>();
                ack(&mut s, &shift(holes));
                let base = s.first_pn();
                for (lo, hi) in [(base, base), (base, base + 9), (base, s.next_pn() - 1), (0, base + 40)] {
                    let (mut a, mut b) = (s.clone(), s.clone());
                    let (mut each_a, mut each_b) = (Vec::new(), Vec::new());
                    let (mut data_a, mut data_b) = (Vec::new(), Vec::new());
                    let (mut newest_a, mut newest_b) = (None, None);
                    a.on_ack(&[(lo, hi)], &mut each_a, &mut |c| data_a.push(c), |pn, p, bytes| {
                        newest_a = Some((pn, p.bytes(), bytes))
                    });
                    // `on_ack`'s end after the general walk.
                    let (bytes, newest, empty_front) = b.ack_ranges(&[(lo, hi)], &mut each_b, &mut |c| data_b.push(c));
                    if let Some((pn, slot)) = newest {
                        newest_b = b.live(slot).map(|p| (pn, p.bytes(), bytes));
                        b.empty(slot);
                    }
                    b.drop_empty_front(empty_front);
                    assert!(!each_a.is_empty(), "the front packet is outstanding");
                    assert_eq!(
                        (&each_a, &data_a, newest_a),
                        (&each_b, &data_b, newest_b),
                        "wrap {wrap}, holes {holes:?}, {lo}-{hi}"
                    );
                    let state = |s: &SentPackets| {
                        let left: Vec<_> = s.iter().map(|(pn, p)| (pn, p.bytes())).collect();
                        (
                            s.first_pn(),
                            s.next_pn(),
                            s.bytes_in_flight(),
                            s.ack_eliciting_in_flight(),
                            left,
                        )
                    };
                    assert_eq!(state(&a), state(&b), "wrap {wrap}, holes {holes:?}, {lo}-{hi}");
                }
            }
        }
    }

    #[test]
    fn sent_ring_grows_by_moving_the_shorter_part() {
        // Four slots, packets 0-3; the ACK of 0-2 leaves slot 3 the front, and 4-6 wrap into slots 0-2: the
        // ring is full with one slot before its end and three after its start. Packet 7 doubles it: the one
        // slot moves to the new end (slot 7), not the three to after the old end.
        let mut s = SentPackets::new();
        for i in 0..4 {
            s.push(pkt(i, 100 + i as u32));
        }
        ack(&mut s, &[(0, 2)]);
        for i in 4..8 {
            assert_eq!(s.push(pkt(i, 100 + i as u32)), i);
        }
        assert_eq!((s.cap, s.head, s.len), (8, 7, 5));
        let order = |s: &SentPackets| {
            s.iter()
                .map(|(pn, p)| (pn, p.time_sent.0, p.bytes()))
                .collect::<Vec<_>>()
        };
        assert_eq!(order(&s), (3..8).map(|i| (i, i, 100 + i)).collect::<Vec<_>>());
        // The slots in use keep packet-number order across the new wrap, through another doubling (head 7 of
        // 8: the slot before the end moves again) and ACKs across both wraps.
        for i in 8..11 {
            s.push(pkt(i, 100 + i as u32));
        }
        s.push(pkt(11, 111));
        assert_eq!((s.cap, s.head, s.len), (16, 15, 9));
        assert_eq!(pns(&ack(&mut s, &[(9, 10), (3, 4)])), vec![3, 4, 9, 10]);
        assert_eq!(s.iter().map(|(pn, _)| pn).collect::<Vec<_>>(), vec![5, 6, 7, 8, 11]);
        assert_eq!((s.first_pn(), s.bytes_in_flight()), (5, 105 + 106 + 107 + 108 + 111));
        assert_eq!(s.get(8).map(|p| p.bytes()), Some(108));
    }

    #[test]
    fn sent_ring_growth_of_a_large_ring_keeps_its_records() {
        // 8,192 records (512 KiB) fill the ring; the next send doubles it (its new half's pages are populated by
        // the allocator of cclab-bench and cclab._core, `cclab-alloc`), and the sends fill the new half. The
        // records keep their order and contents.
        let mut s = SentPackets::new();
        for i in 0..16_384 {
            s.push(pkt(i, 1 + (i % 1000) as u32));
        }
        assert_eq!(s.cap, 16_384);
        assert!(s
            .iter()
            .enumerate()
            .all(|(k, (pn, p))| pn == k as u64 && p.time_sent.0 == pn && p.bytes() == 1 + (k % 1000) as u64));
    }

    #[test]
    fn sent_ack_frequency_seqs_are_found_once_in_any_order() {
        let mut af = AckFrequencySent::default();
        assert_eq!(af.take(3), None);
        for (pn, seq) in [(2, 0), (5, 1), (9, 2), (30, 3)] {
            af.push(pn, seq);
        }
        // Acknowledged or lost out of order (a loss below an acknowledged packet), and packets without one.
        assert_eq!(af.take(9), Some(2));
        assert_eq!(af.take(4), None);
        assert_eq!(af.take(2), Some(0));
        assert_eq!(af.take(2), None, "forgotten once taken");
        assert_eq!(af.take(31), None);
        assert_eq!((af.take(30), af.take(5)), (Some(3), Some(1)));
        assert_eq!(af.0.len(), 0);
    }
}
