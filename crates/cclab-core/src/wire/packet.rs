//! The semantic packet every endpoint sends and receives, and the datagram that carries it.
//!
//! In the simulator a datagram's size is separate from its bytes: `Datagram::size` is the exact
//! IP-layer size the codec would produce (see `wire::size`), and no bytes exist. The UDP driver
//! encodes the same `Packet` with the QUIC codec.

/// Largest QUIC variable-length integer (RFC 9000 §16): the bound of packet numbers (§12.3) and of stream
/// offsets plus lengths (§19.8).
pub const MAX_VARINT: u64 = (1 << 62) - 1;

/// ECN codepoint of an IP packet (RFC 3168).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Ecn {
    /// Not ECN-capable.
    #[default]
    NotEct,
    /// ECN-capable transport, codepoint 0.
    Ect0,
    /// ECN-capable transport, codepoint 1.
    Ect1,
    /// Congestion experienced.
    Ce,
}

/// A QUIC packet-number length in bytes, 1 to 4: the two Packet Number Length bits of the first byte
/// hold the length less one (RFC 9000 §17.1, <https://www.rfc-editor.org/rfc/rfc9000#section-17.1>).
/// A receiver's configured length; lengths outside 1–4 are refused, where they used to be clamped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PnLen(u8);

impl PnLen {
    /// `bytes` if it is 1 to 4.
    pub const fn new(bytes: u8) -> Option<PnLen> {
        match bytes {
            1..=4 => Some(PnLen(bytes)),
            _ => None,
        }
    }
    /// The length in bytes, 1 to 4.
    pub const fn get(self) -> u8 {
        self.0
    }
}

impl<'de> serde::Deserialize<'de> for PnLen {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PnLen, D::Error> {
        let bytes = u8::deserialize(d)?;
        PnLen::new(bytes).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "expected a packet-number length of 1 to 4 bytes (RFC 9000 §17.1), got {bytes}"
            ))
        })
    }
}

/// Identifies one flow (one connection) in a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FlowId(pub u32);

/// A chunk of the application byte stream (QUIC STREAM frame, TCP segment payload, DCCP data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataChunk {
    /// Offset of the first byte in the stream.
    pub offset: u64,
    /// Number of payload bytes.
    pub len: u32,
    /// Whether this chunk ends the stream.
    pub fin: bool,
}

/// Ranges an [`AckRanges`] holds inside the frame: an ACK of a flow without recent loss carries one or two.
pub(crate) const INLINE_RANGES: usize = 4;

/// `AckRanges::len` once the ranges live in `heap`.
const SPILLED: u32 = u32::MAX;

/// The ranges of an ACK frame, a slice (`Deref`) of inclusive `(smallest, largest)` pairs. Up to
/// `INLINE_RANGES` live inside the frame, so the boxed frame is the only allocation of a typical ACK (and
/// the box is reused, `wire::ack_box`); more go to the heap together, into a buffer that `clear` keeps, so
/// a reused box that held many ranges takes many again without an allocation (after a loss burst every
/// ACK carries up to 32, and each used to cost a malloc and a free of 512 bytes).
#[derive(Clone, Default)]
pub struct AckRanges {
    /// Number of ranges in `inline`, or `SPILLED` when they are in `heap`.
    len: u32,
    /// The builder vouched for the ranges' order ([`AckRanges::vouch_ordered`]) and nothing changed them
    /// since: [`AckFrame::check`] then skips its walk over them. In the padding after `len`.
    vouched: bool,
    inline: [(u64, u64); INLINE_RANGES],
    /// Every range when spilled; otherwise empty, keeping its capacity from an earlier spill.
    heap: Vec<(u64, u64)>,
}

impl AckRanges {
    /// Appends a range (the caller keeps them highest first).
    #[inline]
    pub fn push(&mut self, r: (u64, u64)) {
        self.vouched = false;
        let n = self.len as usize;
        if self.len == SPILLED {
            self.heap.push(r);
        } else if n < INLINE_RANGES {
            self.inline[n] = r;
            self.len += 1;
        } else {
            // Room for a receiver's default 32 ranges (RFC 9000 §13.2.4 limit of quinn) in one allocation.
            self.spill(8 * INLINE_RANGES);
            self.heap.push(r);
        }
    }

    /// Moves the inline ranges to `heap`, with room for `room` ranges in all.
    fn spill(&mut self, room: usize) {
        let n = self.len as usize;
        self.heap.reserve(room);
        self.heap.extend_from_slice(&self.inline[..n]);
        self.len = SPILLED;
    }

    /// Removes every range, back to the inline storage (the heap buffer stays for the next spill).
    #[inline]
    pub fn clear(&mut self) {
        if self.len == SPILLED {
            self.heap.clear();
        }
        self.len = 0;
        self.vouched = false;
    }

    /// The builder vouches that the ranges are as [`AckFrame::check`] requires them (highest first, a
    /// missing number between two, none empty), as ranges taken highest first from a set of received
    /// packet numbers are by construction, so that the sender checks only its largest against what was
    /// sent: the ranges' own walk cost ~11 instructions a range, and after a loss burst the simulated
    /// receiver repeats up to 32 ranges in every ACK until the ACK-of-ACK floor passes them (140
    /// instructions an ACK at 100,000 packets of BDP). Any change through `&mut` withdraws it; frames
    /// from a codec, a script or a test are never vouched for, so they are walked as before (smoltcp's
    /// `new_unchecked` for what one emits, `new_checked` for what one receives). Checked in debug builds.
    #[inline]
    pub fn vouch_ordered(&mut self) {
        debug_assert_eq!(ordered(self), Ok(()), "vouched-for ACK ranges {self:?}");
        self.vouched = true;
    }
}

impl AckRanges {
    /// Sets the ranges of an empty frame to `first` and then `rest`, highest first: one copy, into the heap
    /// buffer at once when they do not fit inline (a receiver's frame after a loss burst: up to 32).
    #[inline]
    pub fn set_first_and_rest(&mut self, first: (u64, u64), rest: &[(u64, u64)]) {
        debug_assert!(self.is_empty(), "set_first_and_rest on a frame holding ranges");
        self.vouched = false;
        let n = 1 + rest.len();
        if n <= INLINE_RANGES {
            self.inline[0] = first;
            self.inline[1..n].copy_from_slice(rest);
            self.len = n as u32;
            return;
        }
        self.set_spilled(first, rest);
    }

    /// `set_first_and_rest` past the inline storage (out of line: most frames carry one range).
    #[inline(never)]
    fn set_spilled(&mut self, first: (u64, u64), rest: &[(u64, u64)]) {
        self.heap.clear();
        self.heap.reserve((1 + rest.len()).max(8 * INLINE_RANGES));
        self.heap.push(first);
        self.heap.extend_from_slice(rest);
        self.len = SPILLED;
    }
}

impl core::ops::DerefMut for AckRanges {
    fn deref_mut(&mut self) -> &mut [(u64, u64)] {
        self.vouched = false;
        if self.len == SPILLED {
            &mut self.heap
        } else {
            &mut self.inline[..self.len as usize]
        }
    }
}

impl core::ops::Deref for AckRanges {
    type Target = [(u64, u64)];
    fn deref(&self) -> &[(u64, u64)] {
        if self.len == SPILLED {
            &self.heap
        } else {
            &self.inline[..self.len as usize]
        }
    }
}

impl Extend<(u64, u64)> for AckRanges {
    fn extend<I: IntoIterator<Item = (u64, u64)>>(&mut self, iter: I) {
        for r in iter {
            self.push(r);
        }
    }
}

impl FromIterator<(u64, u64)> for AckRanges {
    fn from_iter<I: IntoIterator<Item = (u64, u64)>>(iter: I) -> AckRanges {
        let mut a = AckRanges::default();
        a.extend(iter);
        a
    }
}

impl From<Vec<(u64, u64)>> for AckRanges {
    fn from(v: Vec<(u64, u64)>) -> AckRanges {
        if v.len() > INLINE_RANGES {
            AckRanges {
                len: SPILLED,
                heap: v,
                ..AckRanges::default()
            }
        } else {
            v.into_iter().collect()
        }
    }
}

impl<'a> IntoIterator for &'a AckRanges {
    type Item = &'a (u64, u64);
    type IntoIter = core::slice::Iter<'a, (u64, u64)>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for AckRanges {
    fn eq(&self, other: &AckRanges) -> bool {
        **self == **other
    }
}

impl Eq for AckRanges {}

impl PartialEq<Vec<(u64, u64)>> for AckRanges {
    fn eq(&self, other: &Vec<(u64, u64)>) -> bool {
        **self == **other
    }
}

impl core::fmt::Debug for AckRanges {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// An ACK frame (RFC 9000 §19.3), also used for TCP cumulative ACK + SACK blocks.
///
/// `ranges` are inclusive packet-number ranges `(smallest, largest)`, highest first,
/// disjoint and separated by at least one missing number.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AckFrame {
    /// Acknowledged ranges, highest first.
    pub ranges: AckRanges,
    /// Intentional delay of the largest acknowledged packet, in nanoseconds (encoded in
    /// units of 2^ack_delay_exponent µs on the wire).
    pub ack_delay_ns: u64,
    /// ECN counts (ECT0, ECT1, CE), present when the receiver reports ECN (boxed: inline, every
    /// datagram would carry their 32 bytes).
    pub ecn: Option<Box<[u64; 3]>>,
    /// TCP only: SACK blocks on the wire — received byte ranges above the cumulative ACK point,
    /// at most the option space allows (RFC 2018 §3); `None` = derive from `ranges`. Packet
    /// numbers cannot stand in for them: a retransmission under a new number closes the byte
    /// hole but leaves the packet-number hole open.
    pub sack_blocks: Option<u8>,
}

/// An ACK frame's ranges, highest first, with the largest packet number they acknowledge
/// ([`AckFrame::checked_ranges`]).
pub type CheckedRanges<'a> = (&'a [(u64, u64)], u64);

impl AckFrame {
    /// The largest acknowledged packet number.
    pub fn largest(&self) -> Option<u64> {
        self.ranges.first().map(|r| r.1)
    }

    /// Checks the frame from an endpoint that has sent packets `0..next_pn`: at least one range, each
    /// `smallest <= largest`, highest first with a gap of at least one missing number between two ranges
    /// (RFC 9000 §19.3.1), and nothing at or above `next_pn`: acknowledging a packet that was never sent is a
    /// PROTOCOL_VIOLATION (RFC 9000 §13.1). Returns the largest acknowledged; O(ranges), O(1) for ranges
    /// their builder vouched for ([`AckRanges::vouch_ordered`]); the error says which rule was broken.
    pub fn check(&self, next_pn: u64) -> Result<u64, &'static str> {
        self.checked_ranges(next_pn).map(|(_, largest)| largest)
    }

    /// [`AckFrame::check`] that also hands back the ranges, for a caller that walks them next: taken as a
    /// slice once, as each deref of [`AckRanges`] tests whether they are inline or spilled.
    #[inline]
    pub fn checked_ranges(&self, next_pn: u64) -> Result<CheckedRanges<'_>, &'static str> {
        let ranges: &[(u64, u64)] = &self.ranges;
        let Some(&(_, largest)) = ranges.first() else {
            return Err("ACK frame without a range");
        };
        if largest >= next_pn {
            return Err("ACK of a packet number never sent");
        }
        if !self.ranges.vouched {
            ordered(ranges)?;
        }
        Ok((ranges, largest))
    }
}

/// Whether `ranges` are each `smallest <= largest` and highest first with a gap of at least one missing
/// number between two (RFC 9000 §19.3.1); the error says which rule was broken. O(ranges).
fn ordered(ranges: &[(u64, u64)]) -> Result<(), &'static str> {
    let mut above: Option<u64> = None;
    for &(lo, hi) in ranges {
        if lo > hi {
            return Err("ACK range with smallest above largest");
        }
        // The range above starts at `prev`: this one must end at `prev - 2` or lower.
        if above.is_some_and(|prev| hi.saturating_add(1) >= prev) {
            return Err("ACK ranges not descending with a gap");
        }
        above = Some(lo);
    }
    Ok(())
}

/// ACK_FREQUENCY frame (draft-ietf-quic-ack-frequency §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckFrequencyFrame {
    /// Increases with every new frame; stale frames are ignored.
    pub sequence: u64,
    /// ACK after more than this many ack-eliciting packets.
    pub ack_eliciting_threshold: u64,
    /// Requested max ACK delay, in microseconds.
    pub request_max_ack_delay_us: u64,
    /// Reordering threshold (0 = ignore reordering, 1 = RFC 9000 behaviour).
    pub reordering_threshold: u64,
}

/// TFRC feedback carried by a DCCP CCID-3 feedback packet (RFC 4342 §8).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TfrcFeedback {
    /// Receive rate since the last feedback, bytes/s.
    pub x_recv_bps: u64,
    /// Loss event rate (0 = no loss).
    pub p: f64,
    /// Time the receiver held the echoed packet before sending this feedback, ns.
    pub elapsed_ns: u64,
}

/// A connection-setup message ([`crate::endpoint::handshake`]): what the congestion controller
/// and the amplification limit see of the QUIC handshake (RFC 9000 §7, §8.1) or TCP's
/// three-way handshake (RFC 9293 §3.5). Its datagram's size is set by the handshake model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandshakeFrame {
    /// From the client: QUIC Initial (ClientHello, or an ACK/probe padded to 1200 bytes) or TCP
    /// SYN. `flight_received` is the server flight the client holds from offset 0 (its ACK);
    /// `probe` marks a PTO probe, asking the server to resend from there.
    Client {
        /// Contiguous server-flight bytes received.
        flight_received: u32,
        /// Sent on a probe timeout.
        probe: bool,
    },
    /// From the client: its Handshake packet with TLS Finished (QUIC only).
    Finished,
    /// From the server: bytes `offset..offset + len` of its `total`-byte flight (QUIC Initial +
    /// Handshake packets), acknowledging client packet `echo`; TCP SYN-ACK has `total = 0`.
    Server {
        /// Client packet number acknowledged (its RTT sample).
        echo: u64,
        /// First flight byte carried.
        offset: u32,
        /// Flight bytes carried.
        len: u32,
        /// Size of the whole flight.
        total: u32,
    },
}

/// Everything one packet carries. Fields that a profile does not use stay at their defaults.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Packet {
    /// Packet number (QUIC), segment index (TCP) or DCCP sequence number.
    pub pn: u64,
    /// Encoded packet-number length in bytes (QUIC: 1..=4, covering twice the distance to the
    /// largest acknowledged, RFC 9000 §17.1; ignored by other profiles).
    pub pn_len: u8,
    /// Stream data, if any.
    pub data: Option<DataChunk>,
    /// ACK frame, if any (boxed: inline, its ranges, delay and ECN counts would take 48 bytes of every
    /// datagram, and a data packet rarely carries one).
    pub ack: Option<Box<AckFrame>>,
    /// IMMEDIATE_ACK frame present.
    pub immediate_ack: bool,
    /// PING frame present (makes the packet ack-eliciting without data; PTO probes).
    pub ping: bool,
    /// DCCP CCVal window counter (RFC 4342 §8.1), 0..=15.
    pub ccval: u8,
    /// What few packets carry, in one box (`None`: none of it). Read it through
    /// [`Packet::ack_frequency`], [`Packet::tfrc`] and [`Packet::handshake`]; fill it with the `set_`
    /// methods or [`Packet::rare_mut`].
    pub rare: Option<Box<RareFrames>>,
}

/// The frames few packets carry, and the bytes of a real-time datagram: one box behind
/// [`Packet::rare`], so that every packet the simulator moves is one pointer bigger for all of
/// them together, not one per frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RareFrames {
    /// ACK_FREQUENCY frame, if any.
    pub ack_frequency: Option<AckFrequencyFrame>,
    /// TFRC feedback (DCCP feedback packets only), if any.
    pub tfrc: Option<TfrcFeedback>,
    /// Connection setup, if this is a handshake packet (a few per connection).
    pub handshake: Option<HandshakeFrame>,
    /// The datagram's bytes when a real-time driver moves real datagrams through the simulator's
    /// links (empty in simulation, where no bytes exist).
    pub bytes: Vec<u8>,
}

impl Packet {
    /// Whether the packet elicits an acknowledgement (RFC 9000 §13.2: anything but ACK/PADDING).
    pub fn is_ack_eliciting(&self) -> bool {
        self.data.is_some() || self.ack_frequency().is_some() || self.immediate_ack || self.ping
    }

    /// ACK_FREQUENCY frame, if any.
    #[inline]
    pub fn ack_frequency(&self) -> Option<&AckFrequencyFrame> {
        self.rare.as_deref()?.ack_frequency.as_ref()
    }

    /// TFRC feedback, if any.
    #[inline]
    pub fn tfrc(&self) -> Option<&TfrcFeedback> {
        self.rare.as_deref()?.tfrc.as_ref()
    }

    /// Connection-setup frame, if any.
    #[inline]
    pub fn handshake(&self) -> Option<&HandshakeFrame> {
        self.rare.as_deref()?.handshake.as_ref()
    }

    /// The rare frames, boxed on first use.
    pub fn rare_mut(&mut self) -> &mut RareFrames {
        self.rare.get_or_insert_with(Box::default)
    }

    /// Sets or removes the ACK_FREQUENCY frame (removing it boxes nothing).
    pub fn set_ack_frequency(&mut self, f: Option<AckFrequencyFrame>) {
        if f.is_some() || self.rare.is_some() {
            self.rare_mut().ack_frequency = f;
        }
    }

    /// Sets the TFRC feedback.
    pub fn set_tfrc(&mut self, f: TfrcFeedback) {
        self.rare_mut().tfrc = Some(f);
    }

    /// Sets the connection-setup frame.
    pub fn set_handshake(&mut self, f: HandshakeFrame) {
        self.rare_mut().handshake = Some(f);
    }

    /// This packet with an ACK_FREQUENCY frame.
    pub fn with_ack_frequency(mut self, f: AckFrequencyFrame) -> Packet {
        self.set_ack_frequency(Some(f));
        self
    }

    /// This packet with TFRC feedback.
    pub fn with_tfrc(mut self, f: TfrcFeedback) -> Packet {
        self.set_tfrc(f);
        self
    }

    /// This packet with a connection-setup frame.
    pub fn with_handshake(mut self, f: HandshakeFrame) -> Packet {
        self.set_handshake(f);
        self
    }
}

/// A datagram in flight between two endpoints.
///
/// `repr(C)`: the simulator's packet (`InFlight` in cclab-sim) starts with the same fields in the same
/// places, so taking the datagram out of it copies whole 16-byte pieces, not field by field.
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct Datagram {
    /// What it carries.
    pub packet: Packet,
    /// The flow it belongs to.
    pub flow: FlowId,
    /// Size at the IP layer in bytes: IP + UDP/TCP/DCCP header + payload (+ AEAD tag).
    pub size: u32,
    /// ECN codepoint in the IP header.
    pub ecn: Ecn,
}

// The simulator moves datagrams by value through every queue, several times per hop: boxing the ACK frame
// took it from 192 bytes to 80, and one box for all rare frames (three pointers → one) to 64. Every byte
// counts at 10 Gbit/s and at 100,000 packets in flight (see `InFlight` in cclab-sim).
const _: () = assert!(size_of::<Datagram>() <= 64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pn_len_outside_one_to_four_is_refused_not_clamped() {
        // The receiver used to clamp 0 to 1 and 5 or more to 4.
        #[derive(serde::Deserialize)]
        struct T {
            pn_len: PnLen,
        }
        for bad in [0, 5, 255] {
            let e = toml::from_str::<T>(&format!("pn_len = {bad}")).err().expect("refused");
            assert!(
                e.to_string()
                    .contains(&format!("1 to 4 bytes (RFC 9000 §17.1), got {bad}")),
                "{e}"
            );
        }
        let lens: Vec<u8> = (1..=4)
            .map(|b| toml::from_str::<T>(&format!("pn_len = {b}")).unwrap().pn_len.get())
            .collect();
        assert_eq!(lens, [1, 2, 3, 4]);
        assert_eq!((PnLen::new(0), PnLen::new(5)), (None, None));
    }

    #[test]
    fn ack_ranges_move_to_the_heap_past_the_inline_capacity_and_keep_their_order() {
        let all: Vec<(u64, u64)> = (0..40u64).rev().map(|k| (10 * k, 10 * k + 5)).collect();
        for n in [0, 1, INLINE_RANGES, INLINE_RANGES + 1, 40] {
            let mut a = AckRanges::default();
            for &r in &all[..n] {
                a.push(r);
            }
            assert_eq!(*a, all[..n], "{n} pushed");
            assert_eq!(a.heap.capacity() > 0, n > INLINE_RANGES, "{n} pushed");
            // Built from a Vec or an iterator, the same ranges compare equal wherever they live.
            assert_eq!(AckRanges::from(all[..n].to_vec()), a);
            assert_eq!(all[..n].iter().copied().collect::<AckRanges>(), a);
            assert_eq!(format!("{a:?}"), format!("{:?}", &all[..n]));
        }
    }

    #[test]
    fn ack_ranges_vouched_for_skip_the_order_walk_until_changed() {
        let valid = || {
            let mut f = AckFrame::default();
            f.ranges.set_first_and_rest((4, 9), &[(0, 2)]);
            f.ranges.vouch_ordered();
            f
        };
        // Vouched for: only the largest is checked against what was sent.
        assert_eq!(valid().check(10), Ok(9));
        assert_eq!(valid().check(9), Err("ACK of a packet number never sent"));
        // Every change through `&mut` withdraws the vouch, so a frame broken afterwards is walked and refused.
        let order = Err("ACK ranges not descending with a gap");
        let mut f = valid();
        f.ranges.push((1, 1));
        assert_eq!(f.check(10), order);
        let mut f = valid();
        f.ranges[1] = (3, 2);
        assert_eq!(f.check(10), Err("ACK range with smallest above largest"));
        let mut f = valid();
        f.ranges.clear();
        f.ranges.vouch_ordered();
        f.ranges.set_first_and_rest((5, 6), &[(0, 9)]);
        assert_eq!(f.check(10), order);
        // Past the inline storage too, and a copy keeps the vouch of what it copies.
        let many: Vec<(u64, u64)> = (1..40u64).rev().map(|k| (10 * k, 10 * k + 5)).collect();
        let mut f = AckFrame::default();
        f.ranges.set_first_and_rest((400, 405), &many);
        f.ranges.vouch_ordered();
        assert!(f.clone().ranges.vouched);
        f.ranges.push((0, 1));
        f.ranges.push((0, 1));
        assert_eq!(f.check(406), order);
        let mut f = AckFrame::default();
        f.ranges.set_first_and_rest((400, 405), &many);
        f.ranges.vouch_ordered();
        f.ranges.clear();
        f.ranges.vouch_ordered();
        f.ranges.set_first_and_rest((0, 405), &many);
        assert_eq!(f.check(406), order);
    }

    #[test]
    fn rare_frames_share_one_box_made_only_when_a_frame_is_set() {
        let mut p = Packet::default();
        p.set_ack_frequency(None);
        assert!(p.rare.is_none(), "removing an absent frame boxes nothing");
        let hs = HandshakeFrame::Finished;
        p.set_handshake(hs);
        assert_eq!((p.handshake(), p.ack_frequency(), p.tfrc()), (Some(&hs), None, None));
        let af = AckFrequencyFrame {
            sequence: 1,
            ack_eliciting_threshold: 2,
            request_max_ack_delay_us: 3,
            reordering_threshold: 4,
        };
        p.set_ack_frequency(Some(af));
        assert_eq!((p.handshake(), p.ack_frequency()), (Some(&hs), Some(&af)));
        assert!(p.is_ack_eliciting());
        p.set_ack_frequency(None);
        assert_eq!((p.handshake(), p.ack_frequency()), (Some(&hs), None));
    }
}
