//! Connection setup before data, for the QUIC and TCP profiles (scenario `[flow] handshake`):
//! the data sender is the client, the data receiver the server.
//!
//! **QUIC** (RFC 9000 §7, §8.1, §14.1; RFC 9002 §5.1, §6.2): the client opens with an Initial
//! padded to 1200 bytes. The server answers with its flight (Initial + Handshake packets, TLS
//! ServerHello to Finished, `server_flight` bytes of UDP payload) in full-sized datagrams, but
//! before the client's address is validated it sends at most three times the bytes it has
//! received (§8.1). The client ACKs every server datagram at once with a datagram padded to
//! 1200 bytes (its Initial ACK, §13.2.1, §14.1), which validates the address (it carries a
//! Handshake packet) and lifts the limit; once it holds the whole flight it sends its Finished
//! and its first data, one RTT after the start when the flight fits the limit. The Initial's
//! round trip is the sender's first RTT sample (RFC 9002 §5.1). A client that hears nothing
//! sends a probe on its PTO, `smoothed_rtt + max(4·rttvar, 1 ms)` (no max_ack_delay in these
//! packet-number spaces, §6.2.1), 999 ms before any sample, doubling on each expiry (§6.2.2.1):
//! its Initial again, or an ACK saying what it holds; the server answers a probe by resending
//! the rest of its flight (it keeps no timer of its own: either side may probe).
//!
//! **TCP** (RFC 9293 §3.5; RFC 6298 §2.1, §5.5): SYN, SYN-ACK, and the first data segment
//! carries the ACK, so data also starts one RTT after the start. The SYN's round trip is the
//! first RTT sample (RFC 6298 §2.2); a SYN without answer is resent after 1 s, doubling. The
//! SYN-ACK says which SYN it answers only through the timestamps option (its TSecr), so without
//! it a SYN-ACK after a resent SYN gives no sample (Karn's rule, RFC 6298 §3), and the data's
//! retransmission timeout is 3 s until the first sample (RFC 6298 §5.7, in the sender's loss
//! detection). A lost SYN or SYN-ACK makes the data sender start from a one-segment window
//! ([`HandshakeClient::setup_lost`]; [`SynLossWindow`] says after how many resent SYNs).
//!
//! Simplified: TLS is sizes only; a lost client Finished is not resent (the server needs it only
//! to validate the address, which the client's ACKs already did); the server's own PTO and
//! 0.5-RTT data are not modelled.

use crate::ack::RangeSet;
use crate::recovery::rtt::{RttEstimator, GRANULARITY};
use crate::time::{Dur, Time};
use crate::units::Bytes;
use crate::wire::packet::{HandshakeFrame, Packet};
use crate::wire::size::Profile;
use core::fmt;
use serde::de::{self, value::MapAccessDeserializer, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

/// Smallest UDP payload of a datagram carrying a client Initial (RFC 9000 §14.1).
pub const MIN_INITIAL_PAYLOAD: u32 = 1200;
/// Anti-amplification factor before address validation (RFC 9000 §8.1).
pub const AMPLIFICATION_FACTOR: u64 = 3;
/// UDP payload of the client's Handshake packet with TLS Finished: long header (1 + 4 version
/// + 1 + 8 DCID + 1 + 8 SCID + 2 length + 4 packet number = 29), ACK (5), CRYPTO header (4) +
///   Finished (36, SHA-256 verify data with its 4-byte header), AEAD tag (16).
pub const CLIENT_FINISHED_PAYLOAD: u32 = 29 + 5 + 4 + 36 + 16;
/// TCP options of a SYN and SYN-ACK: MSS (4), SACK permitted (2), timestamps (10), window
/// scale (3) and one NOP (RFC 9293 §3.2, RFC 7323, RFC 2018): 20 bytes.
pub const TCP_SYN_OPTIONS: u32 = 20;
/// Initial retransmission timeout of a SYN (RFC 6298 §2.1).
pub const TCP_INITIAL_RTO: Dur = Dur::from_secs(1);

/// Handshake parameters (`handshake = true` or `handshake = { server_flight = "5KB" }`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields, remote = "Self")]
pub struct HandshakeConfig {
    /// UDP payload bytes of the QUIC server's flight (Initial + Handshake packets). Default
    /// 3000 B: a TLS 1.3 flight with a compact (ECDSA) certificate chain, under the 3600 bytes
    /// the amplification limit allows in reply to one padded Initial; an RSA chain of 4–6 KB
    /// waits one more round trip for the client's ACK. Ignored by TCP.
    pub server_flight: Bytes,
    /// TCP: which rule cuts the initial window after SYN retransmissions; `None` (unset) =
    /// [`SynLossWindow::Rfc5681`]. The scenario refuses it for QUIC.
    pub syn_loss_window: Option<SynLossWindow>,
}

impl Default for HandshakeConfig {
    fn default() -> Self {
        HandshakeConfig {
            server_flight: Bytes(3000),
            syn_loss_window: None,
        }
    }
}

/// When a TCP sender's initial window is cut to one segment after its SYN or SYN-ACK was lost
/// (`handshake = { syn_loss_window = "..." }`). Named after the source of each rule, since both
/// also keep the window when timestamps show the SYN's timeout was spurious.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SynLossWindow {
    /// After one SYN retransmission: RFC 5681 §3.1 and RFC 6928 §2, "MUST be 1 SMSS".
    #[default]
    Rfc5681,
    /// After more than one, as Linux's `tcp_init_transfer` (`net/ipv4/tcp_input.c`:
    /// `total_retrans > 1 && undo_marker`), which allows for RFC 6298's 1 s initial RTO firing
    /// on a slow path; for a fidelity comparison with the kernel.
    Linux,
}

impl SynLossWindow {
    /// SYN retransmissions from which the window is one segment.
    fn resends(self) -> usize {
        match self {
            SynLossWindow::Rfc5681 => 1,
            SynLossWindow::Linux => 2,
        }
    }
}

/// `handshake = true` (defaults), `false` (none), or a table of parameters.
pub fn deserialize_handshake<'de, D: Deserializer<'de>>(d: D) -> Result<Option<HandshakeConfig>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<HandshakeConfig>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("true, false, or a table such as { server_flight = \"5KB\" }")
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(v.then(HandshakeConfig::default))
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
            HandshakeConfig::deserialize(MapAccessDeserializer::new(map)).map(Some)
        }
    }
    d.deserialize_any(V)
}

/// A handshake datagram to send: the packet and its IP-layer size.
pub type HandshakeDatagram = (Packet, u32);

fn packet(pn: u64, frame: HandshakeFrame) -> Packet {
    Packet {
        pn,
        ..Default::default()
    }
    .with_handshake(frame)
}

/// IP-layer bytes of the headers below QUIC's UDP payload, or of a TCP SYN.
fn overhead(profile: &Profile) -> u32 {
    match profile {
        Profile::Quic(q) => q.ip_udp(),
        Profile::Tcp(t) => t.ip_tcp() - if t.timestamps { 12 } else { 0 } + TCP_SYN_OPTIONS,
        Profile::Dccp(_) => 0,
    }
}

/// The client (data sender) side.
#[derive(Clone, Debug)]
pub struct HandshakeClient {
    quic: bool,
    /// TCP with the timestamps option: a SYN-ACK's TSecr names the SYN it answers (RFC 7323 §4.2).
    timestamps: bool,
    overhead: u32,
    /// Handshake packet number of the next packet (its own space).
    next_pn: u64,
    /// Clock reading of each packet sent so far, by packet number (a handful per connection).
    sent_at: Vec<Time>,
    /// Newest client packet a server frame acknowledged.
    largest_echo: Option<u64>,
    /// Server flight bytes received, as inclusive ranges, and the flight's size once known.
    flight: RangeSet,
    total: Option<u32>,
    /// Frame to send at the next poll, and the clock reading since which it waits.
    pending: Option<HandshakeFrame>,
    pending_at: Time,
    /// Probe timeouts since the last progress (the PTO doubles with each).
    backoff: u32,
    /// TCP: the rule for the initial window after SYN retransmissions.
    syn_loss_window: SynLossWindow,
    /// Clock reading at which the probe timer fires.
    timer: Option<Time>,
    open: bool,
}

impl HandshakeClient {
    /// A client configured by `cfg` that opens the connection at clock reading `start`.
    pub fn new(profile: &Profile, cfg: &HandshakeConfig, start: Time) -> HandshakeClient {
        HandshakeClient {
            quic: matches!(profile, Profile::Quic(_)),
            timestamps: matches!(profile, Profile::Tcp(t) if t.timestamps),
            overhead: overhead(profile),
            next_pn: 0,
            sent_at: Vec::new(),
            largest_echo: None,
            flight: RangeSet::new(),
            total: None,
            pending: Some(HandshakeFrame::Client {
                flight_received: 0,
                probe: false,
            }),
            pending_at: start,
            backoff: 0,
            syn_loss_window: cfg.syn_loss_window.unwrap_or_default(),
            timer: None,
            open: false,
        }
    }

    /// The handshake is complete on the client: data may flow.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// TCP: the SYN or the SYN-ACK was lost, so the data sender's initial window is one segment
    /// (RFC 5681 §3.1, RFC 6928 §2: "MUST be 1 SMSS"); with [`SynLossWindow::Linux`] only once
    /// the SYN was resent twice. The client sees a loss as a resent SYN; the server's own SYN-ACK
    /// retransmissions are not modelled (it answers each SYN instead), and a lost SYN-ACK reaches
    /// the client as its SYN's timeout (Linux's client then resends its SYN too). With timestamps
    /// a SYN-ACK that echoes the first SYN shows the timeout was spurious (the round trip
    /// exceeded the RTO) and nothing was lost, as Linux's `tcp_try_undo_spurious_syn` concludes
    /// from TSecr (`net/ipv4/tcp_input.c`; it clears the `undo_marker` that `tcp_init_transfer`
    /// tests). Always false for QUIC: RFC 9002 §7.2 keeps the initial window after a lost Initial.
    pub fn setup_lost(&self) -> bool {
        let resent = self.sent_at.len().saturating_sub(1) >= self.syn_loss_window.resends();
        let first_answered = self.timestamps && self.largest_echo == Some(0);
        !self.quic && self.open && resent && !first_answered
    }

    /// A handshake packet is waiting to be sent.
    pub fn has_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Clock reading at which the client next has work: a waiting packet, else the probe timer.
    pub fn next_wake(&self) -> Option<Time> {
        if self.pending.is_some() {
            Some(self.pending_at)
        } else {
            self.timer.filter(|_| !self.open)
        }
    }

    fn contiguous(&self) -> u32 {
        self.flight
            .lowest()
            .filter(|r| r.0 == 0)
            .map_or(0, |r| (r.1 + 1) as u32)
    }

    /// The probe timeout (RFC 9002 §6.2.1 without max_ack_delay; TCP: RFC 6298 §2.1), doubled
    /// per expiry.
    fn pto(&self, rtt: &RttEstimator) -> Dur {
        let base = if self.quic {
            rtt.smoothed() + (rtt.var() * 4).max(GRANULARITY)
        } else if rtt.has_sample() {
            // RFC 6298 §2.3, with its 1 s floor (§2.4).
            (rtt.smoothed() + (rtt.var() * 4).max(GRANULARITY)).max(TCP_INITIAL_RTO)
        } else {
            TCP_INITIAL_RTO
        };
        base * (1u64 << self.backoff.min(16))
    }

    /// The next handshake datagram at clock reading `t`, if one is due.
    pub fn poll(&mut self, t: Time, rtt: &RttEstimator) -> Option<HandshakeDatagram> {
        let frame = self.pending.take()?;
        let pn = self.next_pn;
        self.next_pn += 1;
        self.sent_at.push(t);
        let size = match (self.quic, frame) {
            (true, HandshakeFrame::Finished) => self.overhead + CLIENT_FINISHED_PAYLOAD,
            // RFC 9000 §14.1: datagrams carrying a client Initial are padded to 1200 bytes.
            (true, _) => self.overhead + MIN_INITIAL_PAYLOAD,
            (false, _) => self.overhead,
        };
        if !self.open {
            self.timer = Some(t + self.pto(rtt));
        }
        Some((packet(pn, frame), size))
    }

    /// The probe timer fired at clock reading `t`: send the Initial (or SYN) again, or an ACK
    /// of what arrived, and back off.
    pub fn on_timeout(&mut self, t: Time) {
        if self.open || self.timer.is_none_or(|at| t < at) {
            return;
        }
        self.timer = None;
        self.backoff += 1;
        self.pending = Some(HandshakeFrame::Client {
            flight_received: self.contiguous(),
            probe: true,
        });
        self.pending_at = t;
    }

    /// A server frame arrived at clock reading `t`; returns an RTT sample when it acknowledges
    /// a client packet newer than any before (RFC 9002 §5.1).
    pub fn on_server(&mut self, t: Time, frame: &HandshakeFrame) -> Option<Dur> {
        let HandshakeFrame::Server {
            echo,
            offset,
            len,
            total,
        } = *frame
        else {
            return None;
        };
        let sample = match self.sent_at.get(echo as usize) {
            Some(&sent) if self.largest_echo.is_none_or(|l| echo > l) => {
                self.largest_echo = Some(echo);
                // RFC 6298 §3 (Karn): a TCP SYN-ACK without timestamps may answer any of the
                // SYNs sent, so once one was resent it gives no sample; with timestamps its TSecr
                // says which (Linux takes it then, `tcp_ack_update_rtt`). QUIC's packet numbers
                // always say which.
                let ambiguous = !self.quic && !self.timestamps && self.sent_at.len() > 1;
                (!ambiguous).then(|| t.saturating_since(sent))
            }
            _ => None,
        };
        if self.open {
            return sample;
        }
        // Progress: RFC 9002 §6.2.1 resets the PTO backoff on an acknowledgement.
        self.backoff = 0;
        self.pending_at = t;
        self.total = Some(total);
        if len > 0 {
            self.flight.insert(offset as u64, (offset + len) as u64 - 1);
        }
        if self.contiguous() >= total {
            self.open = true;
            self.timer = None;
            // QUIC: the client's Finished goes first; TCP's ACK rides on the first segment.
            self.pending = self.quic.then_some(HandshakeFrame::Finished);
        } else if self.quic {
            // RFC 9000 §13.2.1: Initial and Handshake packets are acknowledged at once.
            self.pending = Some(HandshakeFrame::Client {
                flight_received: self.contiguous(),
                probe: false,
            });
        }
        sample
    }
}

/// The server (data receiver) side.
#[derive(Clone, Debug)]
pub struct HandshakeServer {
    quic: bool,
    overhead: u32,
    /// Largest UDP payload of a server datagram.
    max_payload: u32,
    /// Flight size (QUIC; 0 for TCP's SYN-ACK).
    total: u32,
    /// Next flight byte to send.
    next_offset: u32,
    /// A SYN-ACK (or, in QUIC, a flight datagram) may be sent.
    armed: bool,
    /// Newest client packet number received (echoed for its RTT sample).
    echo: u64,
    /// UDP payload bytes received from and sent to the client, for the §8.1 limit.
    received: u64,
    sent: u64,
    /// The client's address is validated (a Handshake packet from it arrived).
    validated: bool,
    next_pn: u64,
}

impl HandshakeServer {
    /// A server waiting for the client's first packet.
    pub fn new(profile: &Profile, cfg: &HandshakeConfig) -> HandshakeServer {
        let quic = matches!(profile, Profile::Quic(_));
        HandshakeServer {
            quic,
            overhead: overhead(profile),
            max_payload: profile.mss(),
            total: if quic {
                cfg.server_flight.0.min(u32::MAX as u64) as u32
            } else {
                0
            },
            next_offset: 0,
            armed: false,
            echo: 0,
            received: 0,
            sent: 0,
            validated: false,
            next_pn: 0,
        }
    }

    /// Flight bytes sent under the amplification limit so far, and whether it is lifted.
    pub fn amplification(&self) -> (u64, u64, bool) {
        (self.sent, self.received, self.validated)
    }

    /// A client handshake packet of `size` IP-layer bytes arrived.
    pub fn on_client(&mut self, pn: u64, size: u32, frame: &HandshakeFrame) {
        self.received += size.saturating_sub(self.overhead) as u64;
        self.echo = self.echo.max(pn);
        match *frame {
            HandshakeFrame::Client { flight_received, probe } => {
                // RFC 9000 §8.1: an ACK of the server's Handshake packets is itself a Handshake
                // packet, which validates the address.
                self.validated |= flight_received > 0;
                if probe || flight_received == 0 {
                    // A probe or a repeated Initial: resend what the client lacks.
                    self.next_offset = flight_received;
                } else {
                    self.next_offset = self.next_offset.max(flight_received);
                }
                self.armed = true;
            }
            HandshakeFrame::Finished => self.validated = true,
            HandshakeFrame::Server { .. } => {}
        }
    }

    /// The next handshake datagram, if one may be sent now.
    pub fn poll(&mut self) -> Option<HandshakeDatagram> {
        if !self.armed {
            return None;
        }
        if !self.quic {
            self.armed = false;
            let frame = HandshakeFrame::Server {
                echo: self.echo,
                offset: 0,
                len: 0,
                total: 0,
            };
            return Some((packet(self.take_pn(), frame), self.overhead));
        }
        if self.next_offset >= self.total {
            self.armed = false;
            return None;
        }
        let len = self.max_payload.min(self.total - self.next_offset);
        if !self.validated && self.sent + len as u64 > AMPLIFICATION_FACTOR * self.received {
            // RFC 9000 §8.1: blocked until the client sends more.
            return None;
        }
        let frame = HandshakeFrame::Server {
            echo: self.echo,
            offset: self.next_offset,
            len,
            total: self.total,
        };
        self.next_offset += len;
        self.sent += len as u64;
        Some((packet(self.take_pn(), frame), self.overhead + len))
    }

    /// A datagram could be sent now (`poll` would return one).
    pub fn wants_to_send(&self) -> bool {
        if !self.armed {
            return false;
        }
        if !self.quic {
            return true;
        }
        let len = self.max_payload.min(self.total.saturating_sub(self.next_offset));
        len > 0 && (self.validated || self.sent + len as u64 <= AMPLIFICATION_FACTOR * self.received)
    }

    fn take_pn(&mut self) -> u64 {
        self.next_pn += 1;
        self.next_pn - 1
    }
}
