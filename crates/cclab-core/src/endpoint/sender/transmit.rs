//! Building packets: the congestion window, the pacer, the controller's pause, PTO probes,
//! packet-number lengths and ACK_FREQUENCY frames.

use super::kept_gate::KeptGate;
use super::stream::NextChunk;
use super::{Sender, TsoView};
use crate::cc::{CcState, SendGate};
use crate::endpoint::TraceEvent;
use crate::recovery::pacer::Bucket;
use crate::recovery::sent::SentPacket;
use crate::time::Time;
use crate::wire::packet::{AckFrame, AckFrequencyFrame, DataChunk, Datagram, Ecn, Packet, RareFrames, MAX_VARINT};
use crate::wire::size::{stream_offset_len, Framing, Profile};

/// An ACK_FREQUENCY frame with every field at the largest varint bounds the frame's size before the real
/// frame is chosen.
pub(super) const AF_BOUND: AckFrequencyFrame = AckFrequencyFrame {
    sequence: MAX_VARINT,
    ack_eliciting_threshold: MAX_VARINT,
    request_max_ack_delay_us: MAX_VARINT,
    reordering_threshold: MAX_VARINT,
};

/// A packet's rare frames holding only [`AF_BOUND`], for a sender to reuse in every size bound.
pub(super) fn af_bound() -> Box<RareFrames> {
    Box::new(RareFrames {
        ack_frequency: Some(AF_BOUND),
        ..RareFrames::default()
    })
}

/// Encoded packet-number length (RFC 9000 §17.1, §A.2): the fewest bytes whose range exceeds
/// twice the number of packets since the largest acknowledged one, i.e. `2^(8·len) ≥ 2·n`.
pub(crate) fn pn_len(pn: u64, largest_acked: Option<u64>) -> u8 {
    let n = largest_acked.map_or(pn + 1, |l| pn.saturating_sub(l)) as u128;
    // The four bounds compared in turn: a search over `k` cost a loop per packet.
    match 2 * n {
        m if m <= 1 << 8 => 1,
        m if m <= 1 << 16 => 2,
        m if m <= 1 << 24 => 3,
        _ => 4,
    }
}

/// What `transmit` already worked out for a data packet, handed to `send` so that it does not
/// work it out a second time.
#[derive(Clone, Copy)]
struct Plan {
    /// Encoded packet-number length of the packet.
    pn_len: u8,
    /// Largest payload at the chunk's offset of a packet with no frame but STREAM.
    max: u32,
    /// `Framing::sizes` of that packet carrying `max` bytes.
    full: (u32, u32),
}

/// The largest payload and the sizes of a packet with no frame but STREAM carrying it, for one
/// packet-number length and one length of the stream offset field: all they depend on. Kept by
/// the sender and worked out again only when either changes (the offset field grows at 2^6, 2^14
/// and 2^30 bytes), not on each of the ~1.5 send attempts per packet.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct FullPacket {
    /// `(pn_len, stream_offset_len(offset))` these values are for; `(0, 0)` before the first (no
    /// packet-number length is 0), so that no `Option` grows the sender's hot fields.
    key: (u8, u8),
    /// Largest payload, bytes (at most the sender's mss).
    max: u32,
    /// `(in_flight_size, datagram_size)` of the packet carrying `max` bytes.
    sizes: (u32, u32),
}

impl Sender {
    /// `poll_transmit`: a probe if a PTO asked for one, else the next data packet the window,
    /// the pacer and the controller allow.
    pub(super) fn transmit(&mut self, now: Time) -> Option<Datagram> {
        let t = self.clock.read(now);
        self.blocked_until = None;
        self.pump_source(t);
        if self.handshake.is_some() {
            if let Some(answer) = self.handshake_transmit(now, t) {
                return answer;
            }
        }
        if self.probes > 0 {
            return Some(self.probe(now, t));
        }
        let Some(next) = self.stream.peek() else {
            let in_flight = self.sent.bytes_in_flight();
            if in_flight < self.window() {
                // RFC 9002 §7.8; draft-cheng-iccrg-delivery-rate-estimation §3.4.
                self.app_limited = true;
                self.rate.on_app_limited(in_flight);
            }
            return None;
        };
        // A kept gate (`kept_gate.rs`) needs no controller call.
        let mut gate = match self.kept_gate.get() {
            Some(k) => SendGate::of_window(k.window),
            None if self.cc_gate_is_window => SendGate::of_window(self.cc.window()),
            None => self.cc.send_gate(),
        };
        if let Some(prr) = self.prr.as_deref() {
            gate.window = prr.window();
        }
        let in_flight = self.sent.bytes_in_flight();
        if in_flight >= gate.window {
            // RFC 9002 §7: a full window admits no packet, whatever its size, so no packet is sized.
            // (Most window-blocked attempts of a NewReno bulk flow still size one: its window is rarely a
            // whole number of packets, so they end at the check below.)
            self.app_limited = false;
            return None;
        }
        // Sized once for the window, the flow-control and the pacing checks and the packet itself
        // (RFC 9000 §17.1 pn_len).
        let pn_len = pn_len(self.sent.next_pn(), self.loss.largest_acked());
        let full = self.full_packet(pn_len, next.offset);
        let plan = Plan {
            pn_len,
            max: full.max,
            full: full.sizes,
        };
        let bytes = self.size_bound(&next, plan);
        if in_flight + bytes > gate.window {
            // RFC 9002 §7: a packet must not take bytes in flight above the window.
            self.app_limited = false;
            return None;
        }
        if self.flow_control_blocked(&next, plan.max) {
            // RFC 9002 §7.8: a flow-control limit leaves the window underused, like the application.
            self.app_limited = true;
            self.rate.on_app_limited(self.sent.bytes_in_flight());
            return None;
        }
        if gate.pause_until > t {
            self.blocked_until = Some(gate.pause_until);
            self.app_limited = false;
            return None;
        }
        if self.tso.is_some() && !self.tso_admits(t, &next, gate.window) {
            // Linux's deferral waits for the next ACK: window limited, not application limited.
            self.app_limited = false;
            return None;
        }
        if self.paced {
            let rate = match self.kept_gate.get() {
                // The attempt that kept it set the pacer's quantum: a window-gated controller has none.
                Some(k) => k.rate,
                None => {
                    let rate = self.pacing_rate_from(gate.pacing_rate, gate.window);
                    self.pacer.set_quantum(Some(gate.send_quantum));
                    if self.may_keep_gate() {
                        self.kept_gate = KeptGate {
                            window: gate.window,
                            rate,
                        };
                    }
                    rate
                }
            };
            let bucket = Bucket {
                burst: self.pacing.burst,
                max_burst: gate.max_burst,
                train: gate.burst_allowance,
            };
            if let Some(at) = self.pacer.delay(t, bytes, rate, bucket) {
                // §7.8: a pacing delay alone does not make the sender application limited.
                self.blocked_until = Some(at);
                self.app_limited = false;
                return None;
            }
        }
        Some(self.send(now, t, Some(next), Some(plan)))
    }

    /// The handshake's part of `transmit`: `Some` with the answer while the handshake sends or
    /// holds data back, `None` once data may go. Out of line, like the other parts of a send
    /// attempt that a bulk flow's do not reach (the probes, TSO): inline, their registers made
    /// every attempt save and restore more.
    #[inline(never)]
    fn handshake_transmit(&mut self, now: Time, t: Time) -> Option<Option<Datagram>> {
        let h = self.handshake.as_mut()?;
        if let Some((packet, size)) = h.client.poll(t, &self.rtt) {
            return Some(Some(self.emit_handshake(now, packet, size)));
        }
        (!h.client.is_open()).then_some(None)
    }

    /// A PTO's probe (out of line: see `handshake_transmit`).
    #[inline(never)]
    fn probe(&mut self, now: Time, t: Time) -> Datagram {
        // RFC 9002 §6.2.4, §7.5: probes bypass the window and the pacer.
        self.probes -= 1;
        let mut next = self.stream.peek();
        if next.is_none() && matches!(self.profile, Profile::Tcp(_)) {
            // TCP has no PING: with no new data its probe retransmits the most recent segment
            // (tail loss probe, RFC 8985 §7.3).
            if let Some(c) = self.sent.iter().filter_map(|(_, p)| p.data()).last() {
                self.stream.queue_probe(c);
                next = self.stream.peek();
            }
        }
        self.send(now, t, next, None)
    }

    /// Whether Linux's TSO deferral lets the data packet carrying `next` leave under `window`
    /// (out of line: see `handshake_transmit`).
    #[inline(never)]
    fn tso_admits(&mut self, t: Time, next: &NextChunk, window: u64) -> bool {
        let v = self.tso_view(t, next, window);
        self.tso.as_deref_mut().is_some_and(|tso| tso.admits(&v))
    }

    /// What Linux's TSO deferral looks at for the data packet carrying `next` (`tso.rs`).
    fn tso_view(&self, t: Time, next: &NextChunk, window: u64) -> TsoView {
        let sampled = self.rtt.has_sample();
        let new_data = !next.retransmission;
        TsoView {
            now: t,
            cwnd: window,
            ssthresh: self.cc.ssthresh(),
            in_flight: self.sent.bytes_in_flight(),
            mss: self.mss,
            srtt: sampled.then(|| self.rtt.smoothed()),
            min_rtt: sampled.then(|| self.rtt.min()),
            oldest_sent: self.sent.iter().next().map(|(_, p)| p.time_sent()),
            in_recovery: self.cc.state() == CcState::Recovery,
            retransmission: next.retransmission,
            send_window: self
                .receive_window
                .map(|w| (self.stream.acked_prefix() + w).saturating_sub(next.offset)),
            peer_window: self.receive_window,
            final_rest: (new_data && self.source.is_finished()).then_some(next.available),
        }
    }

    /// Upper bound of the in-flight size of the next data packet, before its ACK_FREQUENCY
    /// frame (if any) is chosen: the real packet never counts more.
    fn size_bound(&mut self, next: &NextChunk, plan: Plan) -> u64 {
        let chunk = |max: u32| DataChunk {
            offset: next.offset,
            len: next.available.min(max as u64) as u32,
            fin: false,
        };
        let Some(af) = self.af_bound.take() else {
            if next.available >= plan.max as u64 {
                return plan.full.0 as u64;
            }
            // A packet with nothing but data, short of a full one.
            let plain = self.profile.data_framing(plan.pn_len);
            return plain.sizes(Some(chunk(plan.max))).0 as u64;
        };
        let mut p = Packet {
            pn: self.sent.next_pn(),
            pn_len: plan.pn_len,
            rare: Some(af),
            ..Default::default()
        };
        let framing = self.profile.framing(&p);
        self.af_bound = p.rare.take();
        framing.sizes(Some(chunk(self.max_payload(&framing, next.offset)))).0 as u64
    }

    /// New data in `next` would pass the peer's flow-control limit: a full chunk must end within
    /// `receive_window` bytes of the acknowledged prefix. Retransmissions are below it already.
    /// `max` is the payload a packet with nothing but data can carry at `next.offset`.
    fn flow_control_blocked(&self, next: &NextChunk, max: u32) -> bool {
        let Some(window) = self.receive_window else {
            return false;
        };
        if next.retransmission {
            return false;
        }
        let len = next.available.min(max as u64);
        next.offset + len > self.stream.acked_prefix() + window
    }

    fn max_payload(&self, framing: &Framing, offset: u64) -> u32 {
        framing.max_payload(offset).min(self.mss as u32)
    }

    /// The full packet with no frame but STREAM and `pn_len` at `offset`, from the one kept if it is for
    /// the same key: its framing is built only when the key changes (copying the profile into it cost
    /// each send attempt ~12 instructions).
    #[inline]
    fn full_packet(&mut self, pn_len: u8, offset: u64) -> FullPacket {
        // At most 8 (RFC 9000 §16).
        let key = (pn_len, stream_offset_len(offset) as u8);
        match self.full_packet {
            f if f.key == key => f,
            _ => {
                let plain = self.profile.data_framing(pn_len);
                let max = self.max_payload(&plain, offset);
                let sizes = plain.sizes(Some(DataChunk {
                    offset,
                    len: max,
                    fin: false,
                }));
                let f = FullPacket { key, max, sizes };
                self.full_packet = f;
                f
            }
        }
    }

    /// The ACK_FREQUENCY frame for the next ack-eliciting packet: a lost newest frame again,
    /// else whatever the policy wants to send now.
    fn next_ack_frequency(&mut self, t: Time) -> Option<AckFrequencyFrame> {
        if self.af_resend {
            self.af_resend = false;
            return self.last_af_frame;
        }
        // The policy is checked first: most senders have none, and the window is a controller call.
        self.ack_frequency.as_ref()?;
        let cwnd = self.window();
        let af = self.ack_frequency.as_mut()?;
        af.set_in_slow_start(self.cc.ssthresh() == u64::MAX);
        let frame = af.poll_frame(t, cwnd, self.mss, &self.rtt)?;
        self.last_af_frame = Some(frame);
        Some(frame)
    }

    /// Counts, traces and wraps a handshake packet of `size` IP-layer bytes.
    fn emit_handshake(&mut self, now: Time, packet: Packet, size: u32) -> Datagram {
        self.stats.datagrams_sent += 1;
        self.stats.bytes_sent += size as u64;
        self.trace(|| TraceEvent::PacketSent {
            time: now,
            size,
            packet: packet.clone(),
        });
        Datagram {
            flow: self.flow,
            size,
            ecn: Ecn::NotEct,
            packet,
        }
    }

    /// Builds, records and returns one ack-eliciting packet carrying `next` (or a PING); `plan`
    /// is `transmit`'s sizing of a data packet (none for probes).
    fn send(&mut self, now: Time, t: Time, next: Option<NextChunk>, plan: Option<Plan>) -> Datagram {
        let pn = self.sent.next_pn();
        let mut p = Packet {
            pn,
            pn_len: plan.map_or_else(|| pn_len(pn, self.loss.largest_acked()), |s| s.pn_len),
            ..Default::default()
        };
        p.set_ack_frequency(self.next_ack_frequency(t));
        if let Some(since) = self.peer_ack_due.take() {
            // RFC 9000 §13.2.1: acknowledge the receiver's ack-eliciting packet (its PING) on the next
            // packet; the receiver learns from it which ranges to stop reporting (§13.2.4).
            p.ack = Some(Box::new(AckFrame {
                ranges: self.peer_received.iter_desc().collect(),
                ack_delay_ns: t.saturating_since(since).as_nanos(),
                ..Default::default()
            }));
        }
        let retransmission = next.is_some_and(|n| n.retransmission);
        // The frames other than STREAM are known now: one pass over them sizes the payload and the packet.
        p.ping = next.is_none();
        let plain = p.ack.is_none() && p.ack_frequency().is_none() && !p.ping;
        // A plain packet's framing is built only when the plan does not answer (a full data packet of a
        // bulk flow never needs it); another's once, as it walks the other frames.
        let framing = (!plain).then(|| self.profile.framing(&p));
        let framing = || framing.unwrap_or_else(|| self.profile.data_framing(p.pn_len));
        if let Some(n) = next {
            let max = match plan {
                Some(s) if plain => s.max,
                _ => self.max_payload(&framing(), n.offset),
            };
            p.data = Some(self.stream.take(&n, max));
        }
        let (bytes, size) = match (plan, p.data) {
            (Some(s), Some(d)) if plain && d.len == s.max => s.full,
            _ => framing().sizes(p.data),
        };
        let in_flight_before = self.sent.bytes_in_flight();
        let delivery = self.rate.on_packet_sent(t, in_flight_before);
        self.sent.push(SentPacket::new(t, bytes, p.data, delivery));
        if let Some(f) = p.ack_frequency() {
            self.af_sent.push(pn, f.sequence);
        }
        self.loss.on_ack_eliciting_sent(t);
        self.update_loss_deadline_after_send();
        if self.cc_reads_sends {
            self.cc.on_packet_sent(t, pn, bytes as u64, self.sent.bytes_in_flight());
        }
        self.pacer.on_sent(bytes as u64);
        if let Some(prr) = self.prr.as_deref_mut() {
            prr.on_sent(bytes as u64);
        }
        if let Some(tso) = self.tso.as_deref_mut() {
            tso.on_sent(t, plan.is_some() && !retransmission);
        }
        let st = &mut self.stats;
        st.datagrams_sent += 1;
        st.bytes_sent += size as u64;
        st.data_packets_sent += p.data.is_some() as u64;
        st.retransmitted_packets += retransmission as u64;
        if self.trace.is_on() {
            self.trace.sent(now, size, &p);
        }
        Datagram {
            flow: self.flow,
            size,
            ecn: self.ecn,
            packet: p,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::pn_len;
    use crate::cc::{CcConfig, NewRenoConfig};
    use crate::endpoint::sender::{Sender, SenderConfig};
    use crate::endpoint::source::SourceConfig;
    use crate::time::Time;
    use crate::units::Bytes;
    use crate::wire::packet::{DataChunk, FlowId};
    use crate::wire::size::{DccpProfile, Profile, QuicProfile, TcpProfile};

    #[test]
    fn full_packet_kept_matches_the_sizes_worked_out_afresh() {
        // Offsets walk up across the offset field's bounds (2^6, 2^14, 2^30) and back down, with every
        // pn_len, so the kept value is both reused and replaced; each answer must be the one computed anew.
        let quic = |max_udp_payload, ipv6| QuicProfile {
            max_udp_payload,
            ipv6,
            ..Default::default()
        };
        let tcp = TcpProfile {
            mss: 1448,
            timestamps: true,
            ipv6: false,
            accecn: false,
        };
        let profiles = [
            Profile::Quic(QuicProfile::default()),
            Profile::Quic(quic(1200, true)),
            Profile::Quic(quic(9000, false)),
            Profile::Tcp(tcp),
            Profile::Dccp(DccpProfile { ipv6: false }),
        ];
        let mut offsets = vec![
            0u64,
            1,
            63,
            64,
            65,
            (1 << 14) - 1,
            1 << 14,
            (1 << 30) - 1,
            1 << 30,
            1 << 40,
        ];
        offsets.extend(offsets.clone().into_iter().rev());
        for profile in profiles {
            let source = SourceConfig::Bulk { size: Bytes(1 << 20) };
            let cc = CcConfig::NewReno(NewRenoConfig::default());
            let mut s = Sender::new(FlowId(0), profile, &SenderConfig::default(), &cc, &source, Time(0));
            for pn_len in [1u8, 2, 4, 2] {
                let plain = profile.data_framing(pn_len);
                for &offset in &offsets {
                    let kept = s.full_packet(pn_len, offset);
                    let max = plain.max_payload(offset).min(profile.mss());
                    let chunk = DataChunk {
                        offset,
                        len: max,
                        fin: false,
                    };
                    assert_eq!(
                        (kept.max, kept.sizes),
                        (max, plain.sizes(Some(chunk))),
                        "{profile:?} pn_len {pn_len} offset {offset}"
                    );
                }
            }
        }
    }

    #[test]
    fn pn_len_covers_twice_the_unacked_distance() {
        // RFC 9000 §A.2 example: largest acked 0xabe8b3, sending 0xac5c02 -> 29519 unacked -> 2 bytes.
        assert_eq!(pn_len(0xac5c02, Some(0xabe8b3)), 2);
        // 2^8 >= 2·128 but not 2·129.
        assert_eq!(pn_len(128, Some(0)), 1);
        assert_eq!(pn_len(129, Some(0)), 2);
        assert_eq!(pn_len(0, None), 1);
        assert_eq!(pn_len(1 << 23, Some(0)), 3);
        assert_eq!(pn_len((1 << 23) + 1, Some(0)), 4);
    }

    #[test]
    fn pn_len_matches_the_definition_around_every_bound() {
        // The smallest k with 2^(8k) >= 2n, searched, against the comparisons `pn_len` makes.
        let by_definition = |n: u128| (1..=4u8).find(|&k| 1u128 << (8 * k as u32) >= 2 * n).unwrap_or(4);
        for edge in [0u64, 1 << 7, 1 << 15, 1 << 23, 1 << 31, u64::MAX / 2, u64::MAX - 3] {
            for n in edge.saturating_sub(2)..=edge.saturating_add(2) {
                assert_eq!(pn_len(n, Some(0)), by_definition(n as u128), "{n} unacked");
                assert_eq!(pn_len(n, None), by_definition(n as u128 + 1), "{n} sent, none acked");
            }
        }
    }
}
