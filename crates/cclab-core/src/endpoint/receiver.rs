//! The data receiver: records packet numbers, reassembles the byte stream, and sends ACK-only
//! packets when its ACK policy (`crate::ack`) says so.
//!
//! One receiver serves the QUIC and TCP profiles. QUIC ACK frames carry the newest
//! `max_ack_ranges` ranges (RFC 9000 §13.2.4: older ranges are forgotten). For TCP the same
//! `AckFrame` is read as a cumulative ACK plus SACK blocks: the ranges are the highest SACK
//! blocks that fit the option space (RFC 2018), highest first, followed last by the cumulative
//! range, the one starting at segment 0; segment indices start at 0 and are never forgotten.
//! The SACK option's size counts byte-stream holes instead (`AckFrame::sack_blocks`).
//!
//! Time: every instant the receiver stores is a reading of its clock model; the delayed-ACK
//! timer fires at `Clock::fire_time(first unacknowledged arrival + max_ack_delay)`, so a 1 ms
//! delay on a coarse timer fires late as on a real host.

use core::num::NonZeroUsize;

use serde::Deserialize;

use super::handshake::{HandshakeConfig, HandshakeServer};
use super::{Endpoint, EndpointStats, TraceEvent, TraceLog};
use crate::ack::{AckOfAck, AckPolicy, AckPolicyConfig, AnyAckPolicy, Arrival, ArrivalFacts, FrameRanges, RangeSet};
use crate::clock::{Clock, ClockConfig};
use crate::time::Time;
use crate::units::Bytes;
use crate::wire::packet::{AckFrame, Datagram, Ecn, FlowId, Packet, PnLen, MAX_VARINT};
use crate::wire::size::Profile;

/// Most packet-number ranges a TCP receiver tracks. Its ACKs report only the cumulative range and
/// the newest SACK blocks (RFC 2018 §3), and in this model a retransmission never fills a
/// segment-index hole, so older ranges serve nothing but hostile growth.
pub const TCP_MAX_RANGES: usize = 1024;

/// Flow-control credit of a receiver whose scenario sets no window, stream bytes past its contiguous
/// prefix: 1 TiB. It must never bind an honest sender, which without a window is unlimited: 1 TiB
/// outstanding means about 730 million full-sized packets in flight, beyond any simulator run's memory
/// (a 3 GB NewReno transfer over a 100,000-packet BDP with 115,000 slow-start losses peaks at 0.31 GB
/// past the prefix), and it is 1,024 times TCP's largest window (2^30 bytes, RFC 7323 §2.3). Against a
/// hostile peer it only refuses far offsets; set `receive_window` for a tight bound.
pub const DEFAULT_RECEIVE_WINDOW: u64 = 1 << 40;

/// Most separate ranges the stream byte set holds (4 MiB of ranges): data that would open another one
/// is refused like data past the credit, so a peer scattering bytes inside a large credit (the 1 TiB
/// default) cannot grow the set, or the work of an insert, without bound. An honest sender opens a
/// range only by getting ahead of a hole, so it never holds more ranges than packets in flight: the
/// 3 GB transfer above peaks below 215,000 packets past the prefix, under this cap.
pub const MAX_STREAM_RANGES: usize = 1 << 18;

/// Receiver parameters (scenario table `[flow.receiver]`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReceiverConfig {
    /// When to acknowledge (default: RFC 9000 §13.2).
    pub ack: AckPolicyConfig,
    /// The receiver host's clock model (default: exact).
    pub clock: ClockConfig,
    /// Most ACK ranges a QUIC ACK frame carries and the receiver remembers (quinn: 32).
    pub max_ack_ranges: NonZeroUsize,
    /// Report ECN counts in ACK frames once any ECT/CE packet arrived (RFC 9000 §13.4.1).
    pub ecn: bool,
    /// Flow-control credit, stream bytes: data ending more than this far past the contiguous prefix
    /// received is refused (RFC 9000 §4.1 and §4.6: a peer exceeding its limits commits
    /// FLOW_CONTROL_ERROR; RFC 9293 §3.8.6: segments beyond the window are not accepted). The
    /// receiver reads at once, so its credit follows its prefix, as `SenderConfig::receive_window`
    /// assumes. `None` = [`DEFAULT_RECEIVE_WINDOW`].
    pub receive_window: Option<Bytes>,
    /// Packet-number length of the receiver's QUIC packets, bytes (RFC 9000 §17.1; 2 covers a
    /// receiver whose ACKs are acknowledged about once per RTT, RFC 9000 §13.2.4).
    pub pn_len: PnLen,
    /// Answer the client's handshake first (scenario `[flow] handshake`, which sets it for both
    /// ends); `None` = none.
    #[serde(skip)]
    pub handshake: Option<HandshakeConfig>,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig {
            ack: AckPolicyConfig::default(),
            clock: ClockConfig::default(),
            max_ack_ranges: NonZeroUsize::new(32).expect("32 is not 0"),
            ecn: true,
            receive_window: None,
            pn_len: PnLen::new(2).expect("2 is within 1-4"),
            handshake: None,
        }
    }
}

/// The sans-IO data receiver of one flow.
///
/// Ordered by visit (`repr(C)` keeps the order) from the start of a cache line: with thousands of
/// flows each arrival finds the receiver cold, and an in-order data packet, its poll and the host's
/// questions (`poll_timeout`, `is_done`) read only the first 5 lines; an ACK sent reads 4 of the next 5
/// (line 8 holds the record of PINGs, read about once a round trip).
/// Lines 1 and 2 are the two range sets, whole (an in-order arrival reads each one's top range, its
/// deque's length and floor, and `prefetch_state` the deque's ends).
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Receiver {
    clock: Clock,
    /// In the struct (24 bytes: the larger kinds are boxed), not a box of its own, a line more to read.
    policy: AnyAckPolicy,
    /// Largest ack-eliciting packet number received (0 before the first: the first one's number is
    /// the larger).
    largest_unacked: u64,
    /// Packet numbers received.
    received: RangeSet,
    /// Stream bytes received, as inclusive offset ranges.
    stream: RangeSet,
    trace: TraceLog,
    /// True time at which the delayed-ACK timer fires, while an ack-eliciting packet is unacknowledged:
    /// worked out when that packet arrives, and again when an ACK_FREQUENCY frame may change the delay,
    /// not at each of the two or three polls an ACK takes (the policy's `max_ack_delay` is a call
    /// through its box, and the clock rounds).
    ack_deadline: Option<Time>,
    /// Largest packet number reported in an ACK sent.
    largest_acked: Option<u64>,
    /// Clock reading of the first ack-eliciting packet not yet acknowledged (meaningful while
    /// `ack_deadline` is set).
    first_unacked: Time,
    /// Clock reading when the largest packet number arrived (for the ACK Delay field).
    largest_time: Time,
    /// Flow-control credit past the contiguous prefix, bytes.
    receive_window: u64,
    /// True time of the latest input, for `poll_timeout` when an ACK is due at once.
    last_now: Time,
    /// The counters' `bytes_delivered`, kept here among the fields every arrival reads, not in `stats`'
    /// second line; `stats()` puts it back, with `completion_time`.
    bytes_delivered: u64,
    /// The server side of the handshake (QUIC and TCP profiles); boxed, as every poll asks whether
    /// there is one.
    handshake: Option<Box<HandshakeServer>>,
    /// Stream length, once the FIN arrived (every arrival asks whether it did). The transfer is complete
    /// when the contiguous prefix reaches it (`is_done`, asked at every visit).
    fin_offset: Option<u64>,
    profile: Profile,
    /// The policy asked for an ACK at once.
    ack_now: bool,
    /// The previous packet was CE-marked.
    prev_ce: bool,
    ecn_reporting: bool,
    pn_len: u8,
    // Below, from line 5: fields read per ACK sent, with ECN, at a reshape of the ranges.
    next_pn: u64,
    max_ack_ranges: usize,
    /// QUIC: bytes of the Gap and ACK Range Length fields of the frame `ack_frame` built last.
    lower_ranges_len: u32,
    flow: FlowId,
    /// ECT(0), ECT(1), CE packets received.
    ecn_counts: [u64; 3],
    /// The counters but `bytes_delivered` and `completion_time` (fields of their own above). From 48
    /// bytes into line 5, so that the four an ACK counts end lines 5 and 6.
    stats: EndpointStats,
    /// QUIC: which ACKs the sender has acknowledged, so ACK frames stop reporting what it knows
    /// (RFC 9000 §13.2.4). The part every ACK reads ends line 7, after the counters' cold tail.
    acked_acks: AckOfAck,
    /// When the contiguous prefix reached `fin_offset` (for `stats()`).
    completion_time: Option<Time>,
    /// QUIC: the ACK frames' ranges below the first, kept between ACKs with their fields' bytes
    /// (line 9, a line of its own).
    frame_ranges: FrameRanges,
}

impl Receiver {
    /// Starts loading what a datagram's arrival reads outside the receiver's own struct: the ends of
    /// the received-packet and stream ranges (see `Sender::prefetch_state`).
    pub fn prefetch_state(&self) {
        self.received.prefetch();
        self.stream.prefetch();
    }

    /// A receiver for `flow` that has received nothing at true time `now`.
    pub fn new(flow: FlowId, profile: Profile, cfg: &ReceiverConfig, now: Time) -> Receiver {
        Receiver {
            flow,
            profile,
            clock: Clock::new(cfg.clock),
            policy: cfg.ack.build_any(),
            max_ack_ranges: cfg.max_ack_ranges.get(),
            ecn_reporting: cfg.ecn,
            pn_len: cfg.pn_len.get(),
            received: RangeSet::new(),
            acked_acks: AckOfAck::default(),
            frame_ranges: FrameRanges::default(),
            lower_ranges_len: 0,
            largest_time: Time::ZERO,
            largest_unacked: 0,
            first_unacked: Time::ZERO,
            largest_acked: None,
            ack_deadline: None,
            ack_now: false,
            prev_ce: false,
            ecn_counts: [0; 3],
            stream: RangeSet::new(),
            fin_offset: None,
            receive_window: cfg.receive_window.map_or(DEFAULT_RECEIVE_WINDOW, |b| b.0),
            next_pn: 0,
            last_now: now,
            handshake: cfg
                .handshake
                .as_ref()
                .filter(|_| !matches!(profile, Profile::Dccp(_)))
                .map(|h| Box::new(HandshakeServer::new(&profile, h))),
            bytes_delivered: 0,
            completion_time: None,
            stats: EndpointStats::default(),
            trace: TraceLog::default(),
        }
    }

    /// Hands every pending trace event to `f`, oldest first (as repeated `poll_event`s would,
    /// without a call and an `Option` per event).
    #[inline]
    pub fn drain_events(&mut self, f: impl FnMut(&TraceEvent)) {
        self.trace.drain(f);
    }

    /// Packet numbers received (bounded by `max_ack_ranges` ranges for QUIC).
    pub fn received(&self) -> &RangeSet {
        &self.received
    }

    /// Packets up to and including this number are no longer reported: the sender acknowledged an ACK
    /// that reported them (RFC 9000 §13.2.4).
    pub fn ack_floor(&self) -> Option<u64> {
        self.acked_acks.floor()
    }

    /// Stream bytes received, as inclusive offset ranges: within the receive window past the contiguous
    /// prefix, so at most about half the window in ranges whatever the peer sends.
    pub fn stream(&self) -> &RangeSet {
        &self.stream
    }

    /// `stats().bytes_delivered` alone, without copying the other counters (for time-series samples).
    pub fn bytes_delivered(&self) -> u64 {
        self.bytes_delivered
    }

    /// The ACK policy in use.
    pub fn policy(&self) -> &dyn AckPolicy {
        &self.policy
    }

    /// An ACK is to be sent at `now`: something is unacknowledged (the delayed-ACK timer is armed)
    /// and the policy asked for an ACK at once or its delay ran out. The deadline only matters when
    /// the policy did not ask for an ACK at once (half the polls of a receiver that acknowledges
    /// every other packet).
    #[inline(always)]
    fn ack_due(&self, now: Time) -> bool {
        self.ack_deadline
            .is_some_and(|deadline| self.ack_now || now >= deadline)
    }

    /// True time at which the delayed-ACK timer armed at clock reading `first_unacked` fires.
    fn deadline_after(&self, first_unacked: Time) -> Time {
        self.clock.fire_time(first_unacked + self.policy.max_ack_delay())
    }

    /// Arms the delayed-ACK timer at clock reading `reading` unless an earlier packet armed it.
    #[inline(always)]
    fn arm_ack_timer(&mut self, reading: Time) {
        if self.ack_deadline.is_none() {
            self.first_unacked = reading;
            self.ack_deadline = Some(self.deadline_after(reading));
        }
    }

    /// Inlined into `receive`: as a call, its prologue and epilogue cost a data packet ~24 instructions
    /// of the ~60 its body takes.
    #[inline(always)]
    fn deliver(&mut self, now: Time, p: &Packet) {
        let Some(d) = p.data else { return };
        if d.len > 0 {
            self.stream.insert(d.offset, d.offset + d.len as u64 - 1);
        }
        if d.fin {
            self.fin_offset = Some(d.offset + d.len as u64);
        }
        self.bytes_delivered = self.stream.contiguous_end(0);
        if self.completion_time.is_none() && self.fin_offset == Some(self.bytes_delivered) {
            self.completion_time = Some(now);
        }
    }

    /// Whether `p` must be refused: a packet number beyond 2^62−1 (RFC 9000 §12.3), stream data ending
    /// beyond 2^62−1 (§19.8) or beyond the flow-control credit (§4.1, §4.6: FLOW_CONTROL_ERROR; RFC 9293
    /// §3.8.6), data that would open a range past [`MAX_STREAM_RANGES`], or data contradicting the final
    /// size (§4.5: FINAL_SIZE_ERROR). O(1) below the cap and O(log ranges) at it, so a hostile datagram
    /// costs no more than a good one.
    fn violates(&self, p: &Packet) -> bool {
        if p.pn > MAX_VARINT {
            return true;
        }
        let Some(d) = p.data else { return false };
        let Some(end) = d.offset.checked_add(d.len as u64).filter(|&e| e <= MAX_VARINT) else {
            return true;
        };
        // The credit runs `receive_window` past the contiguous prefix (`bytes_delivered`, kept by `deliver`):
        // every stored range lies below it, so the stream set holds at most about window / 2 ranges (one
        // byte each, one byte apart).
        if end > self.bytes_delivered.saturating_add(self.receive_window) {
            return true;
        }
        // At the range cap, only data touching a stored range (so it extends or fills, never opens one) is
        // taken; the prefix always touches, so an honest stream keeps advancing.
        if d.len > 0
            && self.stream.len() >= MAX_STREAM_RANGES
            && ![d.offset.saturating_sub(1), d.offset, end]
                .iter()
                .any(|&v| self.stream.contains(v))
        {
            return true;
        }
        match self.fin_offset {
            Some(f) => end > f || (d.fin && end != f),
            None => d.fin && self.stream.max().is_some_and(|m| m >= end),
        }
    }

    /// The ACK frame for the current state (RFC 9000 §19.3; TCP cumulative + SACK).
    /// Built in its box (a reused one, `wire::ack_box`), where the ranges are written directly (the frame
    /// holds the first few inline).
    fn ack_frame(&mut self, now: Time) -> Box<AckFrame> {
        let mut frame = AckFrame::boxed(
            // RFC 9000 §13.2.5: the delay since the largest acknowledged packet arrived. TCP has
            // no such field (RFC 9293 §3.1): its sender's RTT samples include the ACK delay.
            match self.profile {
                Profile::Tcp(_) => 0,
                _ => self.clock.elapsed(now, self.largest_time).as_nanos(),
            },
            (self.ecn_reporting && self.ecn_counts != [0; 3]).then_some(self.ecn_counts),
        );
        let v = &mut frame.ranges;
        match self.profile {
            Profile::Tcp(t) => {
                let cumulative = self.received.lowest().filter(|r| r.0 == 0);
                v.extend(
                    self.received
                        .iter_desc()
                        .filter(|&r| Some(r) != cumulative)
                        .take(t.max_sack_blocks()),
                );
                v.extend(cumulative);
                // RFC 2018 §3: the SACK option lists received byte ranges above the cumulative
                // ACK point; a retransmission under a new segment index closes its byte hole.
                let in_order = self.stream.lowest().is_some_and(|r| r.0 == 0);
                let above = self.stream.len() - usize::from(in_order);
                frame.sack_blocks = Some(above.min(t.max_sack_blocks()) as u8);
            }
            // RFC 9000 §13.2.4: nothing at or below what the sender knows we acknowledged, and at
            // most `max_ack_ranges` ranges (quinn's limit, 32 by default).
            _ => {
                let floor = self.acked_acks.floor();
                self.lower_ranges_len = self.frame_ranges.fill(&self.received, floor, self.max_ack_ranges, v);
            }
        }
        // Taken highest first from the set of received packet numbers: ordered by construction.
        frame.ranges.vouch_ordered();
        frame
    }

    /// The next handshake datagram, if the handshake server has one to send.
    #[cold]
    fn poll_handshake(&mut self, now: Time) -> Option<Datagram> {
        let (packet, size) = self.handshake.as_deref_mut().and_then(HandshakeServer::poll)?;
        self.stats.datagrams_sent += 1;
        self.stats.bytes_sent += size as u64;
        if self.trace.is_on() {
            self.trace.push(TraceEvent::PacketSent {
                time: now,
                size,
                packet: packet.clone(),
            });
        }
        Some(Datagram {
            flow: self.flow,
            size,
            ecn: Ecn::NotEct,
            packet,
        })
    }

    /// Builds and sends the ACK that is due. Inlined into `poll_transmit`, which hosts ask only when
    /// `may_transmit` found an ACK due (it was out of line while they asked about twice per ACK sent,
    /// so that a "nothing due" answer did not pay for this body's saved registers).
    #[inline(always)]
    fn send_ack(&mut self, now: Time) -> Datagram {
        let frame = self.ack_frame(now);
        // Read once: the frame's ranges are inline or spilled, and each read tells which.
        let largest = frame.largest();
        self.largest_acked = self.largest_acked.max(largest);
        // §13.2.4: about once per round trip a PING makes an ACK packet ack-eliciting, so the
        // sender's acknowledgement tells us which ranges it no longer needs.
        let ping = match (self.profile, largest) {
            (Profile::Quic(_), Some(largest)) => self.acked_acks.on_ack_sent(self.next_pn, largest),
            _ => false,
        };
        let packet = Packet {
            pn: self.next_pn,
            pn_len: self.pn_len,
            ack: Some(frame),
            ping,
            ..Default::default()
        };
        self.next_pn += 1;
        let size = match (self.profile, packet.ack.as_deref()) {
            (Profile::Quic(q), Some(frame)) => {
                q.ack_packet_size(packet.pn_len, frame, self.lower_ranges_len, packet.ping)
            }
            _ => self.profile.datagram_size(&packet),
        };
        self.policy.on_ack_sent();
        self.ack_deadline = None;
        self.ack_now = false;
        let events = &mut self.trace;
        super::emit_ack(self.flow, now, size, packet, &mut self.stats, events)
    }
}

impl Receiver {
    /// `handle_datagram` up to its trace event: the event then takes the packet, not a copy of it
    /// (nothing here traces, so the event's place in the trace does not move).
    fn receive(&mut self, now: Time, dgram: &Datagram) {
        self.last_now = now;
        let reading = self.clock.read(now);
        let p = &dgram.packet;
        let (ce, prev_ce, largest_before, stream_gaps_before) = if self.extend_in_order(now, p) {
            self.largest_time = reading;
            let (ce, prev_ce) = self.note_frames(dgram);
            (ce, prev_ce, Some(p.pn - 1), false)
        } else if let Some((largest_before, stream_gaps_before)) = self.receive_past_loss(p) {
            self.largest_time = reading;
            let (ce, prev_ce) = self.note_frames(dgram);
            (ce, prev_ce, Some(largest_before), stream_gaps_before)
        } else {
            match self.receive_general(now, reading, dgram) {
                Some(before) => before,
                None => return,
            }
        };
        let largest_unacked = self.largest_unacked.max(p.pn);
        self.largest_unacked = largest_unacked;
        self.arm_ack_timer(reading);
        let facts = Facts {
            reading,
            ce,
            prev_ce,
            largest_before,
            stream_gaps_before,
            largest_unacked,
            largest_acked: self.largest_acked,
            received: &self.received,
            stream: &self.stream,
            packet: p,
            profile: &self.profile,
        };
        let mut now_ack = self.policy.on_arrival(facts);
        if p.immediate_ack {
            now_ack |= self.policy.on_immediate_ack();
        }
        self.ack_now |= now_ack;
    }

    /// In-order arrival on a stream without holes, nearly every data packet of a flow: the next packet
    /// number carrying the next stream bytes, no rare frame, within the credit and before the FIN. Then
    /// both range sets' inserts only extend their top ranges, nothing is trimmed (the packet-number set
    /// holds as many ranges as after the last packet's trim), the frame ranges kept for ACKs still hold,
    /// and of `violates`' tests only these can fail: one test of the two sets' ends instead of each set's
    /// insert, the trim, the prefix and gap reads and the violation tests (~60 instructions a packet).
    /// Returns false, having changed nothing, for any other packet, which `receive_general` takes.
    #[inline(always)]
    fn extend_in_order(&mut self, now: Time, p: &Packet) -> bool {
        let Some(d) = p.data else { return false };
        // A hostile offset can take the end past 2^64: `violates` refuses it on the general path.
        let Some(end) = d.offset.checked_add(d.len as u64) else {
            return false;
        };
        // The credit runs `receive_window` past the prefix, which here ends at `d.offset`.
        if d.len == 0
            || p.rare.is_some()
            || self.fin_offset.is_some()
            || p.pn > MAX_VARINT
            || end > MAX_VARINT
            || d.len as u64 > self.receive_window
            || !self.received.follows_top(p.pn)
            || !self.stream.follows_prefix(d.offset)
        {
            return false;
        }
        self.received.extend_top(p.pn);
        self.stream.extend_top(end - 1);
        self.bytes_delivered = end;
        if d.fin {
            self.fin_offset = Some(end);
            if self.completion_time.is_none() {
                self.completion_time = Some(now);
            }
        }
        true
    }

    /// The arrivals a loss leaves, which `extend_in_order` does not take: a packet number above the largest
    /// (the next one, or one past a gap the loss left) carrying stream bytes that continue the highest range
    /// above the holes, open a range above a gap, or fill the oldest hole (a retransmission). After a loss
    /// burst at a large BDP they are half the arrivals. Of `violates`' tests only the encoding bounds, the
    /// credit and, for data opening a range, the range cap can fail (no FIN, no rare frame), and the inserts
    /// are the sets' changes at their ends: no search, and the packet-number set needs a trim only when it
    /// gained a range. Returns `Some((largest packet number before, stream holes before))`, or `None`, having
    /// changed nothing, for any other packet, which `receive_general` takes.
    #[inline(never)]
    fn receive_past_loss(&mut self, p: &Packet) -> Option<(u64, bool)> {
        let d = p.data?;
        // A hostile offset can take the end past 2^64: `violates` refuses it on the general path.
        let end = d.offset.checked_add(d.len as u64)?;
        let largest = self.received.max()?;
        if d.len == 0
            || d.fin
            || p.rare.is_some()
            || self.fin_offset.is_some()
            || p.pn <= largest
            || p.pn > MAX_VARINT
            || end > MAX_VARINT
            || end > self.bytes_delivered.saturating_add(self.receive_window)
        {
            return None;
        }
        let gaps_before = self.stream.has_gaps();
        let last = end - 1;
        if self.stream.follows_top(d.offset) {
            self.stream.extend_top(last);
            if !gaps_before {
                self.bytes_delivered = end;
            }
        } else if self.stream.opens_above_top(d.offset) {
            // At the cap, data opening a range is refused (`violates`).
            if self.stream.len() >= MAX_STREAM_RANGES {
                return None;
            }
            self.stream.push_top(d.offset, last);
        } else {
            self.bytes_delivered = self.stream.fill_first_hole(d.offset, last)?;
        }
        if self.received.follows_top(p.pn) {
            self.received.extend_top(p.pn);
        } else {
            // Above the largest and not right after it: past a gap.
            self.received.push_top(p.pn, p.pn);
            self.forget_old_ranges();
        }
        Some((largest, gaps_before))
    }

    /// Bounds the packet-number set after an insert against a peer that opens a new range with every datagram
    /// (each insert below the top range costs O(ranges)): QUIC forgets the oldest ranges (RFC 9000 §13.2.4);
    /// TCP must keep its cumulative range, so it forgets the oldest SACK-able ones above it.
    #[inline(always)]
    fn forget_old_ranges(&mut self) {
        let forgotten = match self.profile {
            Profile::Tcp(_) => self.received.forget_above_lowest(TCP_MAX_RANGES),
            _ => self.received.trim(self.max_ack_ranges),
        };
        self.stats.ack_ranges_forgotten += forgotten as u64;
    }

    /// The frames every arrival reads besides its data: the peer's ACK of our ACKs and the ECN mark.
    /// Returns whether this packet and the one before were CE-marked.
    #[inline(always)]
    fn note_frames(&mut self, dgram: &Datagram) -> (bool, bool) {
        if let Some(ack) = &dgram.packet.ack {
            // The sender acknowledged some of our ACK packets (it does so when one carried a PING).
            self.acked_acks.on_peer_ack(ack);
        }
        let ce = dgram.ecn == Ecn::Ce;
        let prev_ce = core::mem::replace(&mut self.prev_ce, ce);
        match dgram.ecn {
            Ecn::NotEct => {}
            Ecn::Ect0 => self.ecn_counts[0] += 1,
            Ecn::Ect1 => self.ecn_counts[1] += 1,
            Ecn::Ce => self.ecn_counts[2] += 1,
        }
        (ce, prev_ce)
    }

    /// Every arrival `extend_in_order` does not take, up to the policy: `Some((ce, prev_ce, largest
    /// before, stream holes before))` for an ack-eliciting packet the policy is to see, `None` otherwise.
    #[inline(always)]
    fn receive_general(
        &mut self,
        now: Time,
        reading: Time,
        dgram: &Datagram,
    ) -> Option<(bool, bool, Option<u64>, bool)> {
        let p = &dgram.packet;
        if self.violates(p) {
            self.stats.protocol_violations += 1;
            return None;
        }
        if let Some(f) = p.handshake() {
            if let Some(h) = self.handshake.as_mut() {
                h.on_client(p.pn, dgram.size, f);
            }
            return None;
        }
        let (ce, prev_ce) = self.note_frames(dgram);
        let ack_eliciting = p.is_ack_eliciting();
        let largest_before = self.received.max();
        // Holes in the byte stream, not in packet numbers: a retransmission under a new packet
        // number fills them (Linux's out-of-order queue).
        let stream_gaps_before = self.stream.has_gaps();
        if !self.received.insert(p.pn, p.pn) {
            // A duplicate. QUIC drops it; a TCP receiver sends a duplicate ACK at once
            // (Linux: old data enters quick-ACK mode and sends a D-SACK).
            if ack_eliciting && matches!(self.profile, Profile::Tcp(_)) {
                self.arm_ack_timer(reading);
                self.ack_now = true;
            }
            self.deliver(now, p);
            return None;
        }
        if largest_before.is_none_or(|l| p.pn > l) {
            self.largest_time = reading;
        } else {
            // Below the largest: a hole filled or split, or the top range extended downwards, not a change
            // at the set's ends that the kept frame ranges follow.
            self.frame_ranges.on_reshape();
        }
        self.forget_old_ranges();
        self.deliver(now, p);
        if let Some(f) = p.ack_frequency() {
            self.policy.on_ack_frequency(f);
            // The only hook that may change `max_ack_delay` (`AckPolicy::max_ack_delay`): an armed
            // timer follows the new delay, as if read at every poll.
            if self.ack_deadline.is_some() {
                self.ack_deadline = Some(self.deadline_after(self.first_unacked));
            }
        }
        // RFC 9000 §13.2.1: never an ACK-only packet in reply to a non-ack-eliciting one.
        ack_eliciting.then_some((ce, prev_ce, largest_before, stream_gaps_before))
    }
}

/// What the receiver knows of an arriving ack-eliciting packet, for its policy's [`Arrival`], which is
/// built only where the policy reads it ([`AnyAckPolicy::on_arrival`]).
struct Facts<'a> {
    reading: Time,
    ce: bool,
    prev_ce: bool,
    /// The largest packet number received before this one.
    largest_before: Option<u64>,
    /// The stream had holes before this packet's data.
    stream_gaps_before: bool,
    largest_unacked: u64,
    largest_acked: Option<u64>,
    received: &'a RangeSet,
    stream: &'a RangeSet,
    packet: &'a Packet,
    profile: &'a Profile,
}

impl<'a> ArrivalFacts<'a> for Facts<'a> {
    #[inline(always)]
    fn arrival(self) -> Arrival<'a> {
        let pn = self.packet.pn;
        Arrival {
            now: self.reading,
            pn,
            ce: self.ce,
            prev_ce: self.prev_ce,
            out_of_order: self.largest_before.is_some_and(|l| pn < l),
            new_gap: self.largest_before.is_some_and(|l| pn > l + 1),
            has_holes: self.stream_gaps_before || self.stream.has_gaps(),
            largest_unacked: self.largest_unacked,
            largest_acked: self.largest_acked,
            received: self.received,
            packet: self.packet,
            profile: self.profile,
        }
    }
}

impl Endpoint for Receiver {
    fn handle_datagram(&mut self, now: Time, dgram: Datagram) {
        self.receive(now, &dgram);
        if self.trace.is_on() {
            self.trace.received(now, dgram.size, dgram.packet);
        } else if let Some(ack) = dgram.packet.ack {
            AckFrame::recycle(ack);
        }
    }

    fn handle_timeout(&mut self, now: Time) {
        self.last_now = now;
        if self.ack_deadline.is_some_and(|d| now >= d) {
            self.ack_now = true;
        }
    }

    // Out of line, as before the deadline was kept: small enough to inline, it took the simulator's
    // endpoint dispatch with it out of the host's loop, a call of its own (+1.5 M instructions on
    // 100 MB at 10 Gbit/s).
    #[inline(never)]
    fn poll_transmit(&mut self, now: Time) -> Option<Datagram> {
        self.last_now = now;
        if self.handshake.is_some() {
            if let Some(d) = self.poll_handshake(now) {
                return Some(d);
            }
        }
        if !self.ack_due(now) {
            return None;
        }
        Some(self.send_ack(now))
    }

    /// `poll_transmit`'s refusals without a handshake: nothing to acknowledge, or an ACK whose delay
    /// has not run out; a refusal sets `last_now` as the poll does.
    #[inline]
    fn may_transmit(&mut self, now: Time) -> bool {
        if self.handshake.is_some() || self.ack_due(now) {
            return true;
        }
        self.last_now = now;
        false
    }

    // Inlined into the simulator's endpoint dispatch, itself a call from the host's loop: kept out of
    // line when that dispatch was inlined there, it was a second call for a few loads.
    #[inline]
    fn poll_timeout(&self) -> Option<Time> {
        let handshake = self.handshake.as_deref().is_some_and(HandshakeServer::wants_to_send);
        if handshake || (self.ack_now && self.ack_deadline.is_some()) {
            Some(self.last_now)
        } else {
            self.ack_deadline
        }
    }

    fn trace_log(&mut self) -> Option<&mut TraceLog> {
        Some(&mut self.trace)
    }

    fn set_tracing(&mut self, on: bool) {
        self.trace.set(on);
    }

    fn stats(&self) -> EndpointStats {
        EndpointStats {
            bytes_delivered: self.bytes_delivered,
            completion_time: self.completion_time,
            ..self.stats.clone()
        }
    }

    fn is_done(&self) -> bool {
        // Complete once the prefix reached the FIN, which is when `completion_time` is set (`deliver`,
        // `extend_in_order`; data past the FIN is refused, so the prefix never passes it): asked at every
        // visit, so from the arrival's lines, not from `completion_time`'s.
        self.ack_deadline.is_none() && self.fin_offset.is_some_and(|f| f == self.bytes_delivered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::offset_of;

    /// The cache lines (of 64 bytes, from the struct's start) that fields `$f` of types `$t` take.
    macro_rules! lines {
        ($($f:ident: $t:ty),* $(,)?) => {{
            let mut v: Vec<usize> = [$(offset_of!(Receiver, $f)..offset_of!(Receiver, $f) + size_of::<$t>()),*]
                .iter()
                .flat_map(|r| r.start / 64..r.end.div_ceil(64))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        }};
    }

    #[test]
    fn layout_keeps_an_arrival_in_5_lines_and_an_ack_in_4_more() {
        // Every field an in-order data packet, the poll after it, `poll_timeout` and `is_done` read
        // or write: with thousands of flows each arrival finds the receiver cold.
        let arrival = lines!(
            clock: Clock,
            policy: AnyAckPolicy,
            largest_unacked: u64,
            received: RangeSet,
            stream: RangeSet,
            trace: TraceLog,
            ack_deadline: Option<Time>,
            largest_acked: Option<u64>,
            first_unacked: Time,
            largest_time: Time,
            receive_window: u64,
            last_now: Time,
            bytes_delivered: u64,
            handshake: Option<Box<HandshakeServer>>,
            fin_offset: Option<u64>,
            profile: Profile,
            ack_now: bool,
            prev_ce: bool,
        );
        assert_eq!(arrival, [0, 1, 2, 3, 4]);
        // What an ACK sent reads besides them: of the counters the four `emit_ack` counts, of the
        // ACK-of-ACK record the PING awaited and the floor (line 8 holds its record of PINGs).
        let mut ack = lines!(
            ecn_reporting: bool,
            pn_len: u8,
            next_pn: u64,
            max_ack_ranges: usize,
            lower_ranges_len: u32,
            flow: FlowId,
            ecn_counts: [u64; 3],
            frame_ranges: FrameRanges,
        );
        let (stats, acked_acks) = (offset_of!(Receiver, stats), offset_of!(Receiver, acked_acks));
        let per_ack = crate::ack::ack_of_ack::PER_ACK_BYTES;
        let parts = [
            stats + offset_of!(EndpointStats, datagrams_sent)..stats + offset_of!(EndpointStats, bytes_sent) + 8,
            stats + offset_of!(EndpointStats, acks_sent)..stats + offset_of!(EndpointStats, ack_bytes) + 8,
            acked_acks + per_ack.start..acked_acks + per_ack.end,
        ];
        ack.extend(parts.iter().flat_map(|r| r.start / 64..r.end.div_ceil(64)));
        ack.sort_unstable();
        ack.dedup();
        assert_eq!(ack, [4, 5, 6, 7, 9]);
        assert_eq!(offset_of!(Receiver, next_pn), 5 * 64);
        assert_eq!(size_of::<Receiver>(), 10 * 64);
    }
}
