//! Arbitrary bytes read as a script of datagrams and timer calls for one endpoint: the input interpreter
//! shared by `fuzz/fuzz_targets/endpoints.rs` and `tests/fuzz_endpoints.rs` (included with `#[path]`).
//!
//! Byte 0 picks the endpoint (modulo 6: QUIC, TCP or TFRC; sender or receiver, the sender with 100 kB to send;
//! the quotient's two low bits turn on the QUIC and TCP senders' `cumulative_ack_growth` and PRR). Then
//! each operation starts with a byte whose low two bits say what follows:
//! 0 = time advances by the next two bytes × 10 µs; 1 = a semantic packet (see `Reader::packet`);
//! 2 = a length byte and that many bytes decoded by the QUIC codec; 3 = `handle_timeout` now.
//! After every operation the endpoint runs its due timers and sends until `poll_transmit` is `None`.
//!
//! The invariant is bounded work per datagram: every call returns (a hang is a libFuzzer timeout), and no
//! call sequence at one instant sends more than `MAX_BURST` datagrams; nothing panics.

use cclab_core::cc::{CcConfig, NewRenoConfig};
use cclab_core::endpoint::receiver::{Receiver, ReceiverConfig};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::tfrc::{TfrcConfig, TfrcReceiver, TfrcSender};
use cclab_core::endpoint::Endpoint;
use cclab_core::units::Bytes;
use cclab_core::wire::packet::{
    AckFrame, AckFrequencyFrame, DataChunk, Datagram, Ecn, FlowId, HandshakeFrame, Packet, RareFrames, TfrcFeedback,
};
use cclab_core::wire::quic::decode;
use cclab_core::wire::size::{DccpProfile, Profile, QuicProfile, TcpProfile};
use cclab_core::{Dur, Time};

/// Bytes the senders have to send.
const SOURCE_BYTES: u64 = 100_000;
/// Most datagrams one endpoint may send at one instant: far above a 100 kB window of small packets.
const MAX_BURST: usize = 10_000;

/// Reads fields from the input; past its end every field is 0.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl Reader<'_> {
    fn byte(&mut self) -> u8 {
        let Some((&b, rest)) = self.bytes.split_first() else {
            return 0;
        };
        self.bytes = rest;
        b
    }

    fn u64(&mut self) -> u64 {
        (0..8).fold(0, |v, _| (v << 8) | u64::from(self.byte()))
    }

    /// Small numbers are one byte (below 128); a set top bit reads a full 8-byte number, so both the
    /// plausible and the extreme are a few mutations away.
    fn num(&mut self) -> u64 {
        let b = self.byte();
        if b < 0x80 {
            u64::from(b)
        } else {
            self.u64()
        }
    }

    /// ACK ranges as QUIC encodes them (RFC 9000 §19.3.1): largest, first range length, then (gap, length)
    /// pairs; saturating, so malformed frames come out too.
    fn ack(&mut self) -> AckFrame {
        let largest = self.num();
        let mut lo = largest.saturating_sub(self.num());
        let mut ranges = vec![(lo, largest)];
        for _ in 0..self.byte() % 8 {
            let hi = lo.saturating_sub(self.num().saturating_add(2));
            lo = hi.saturating_sub(self.num());
            ranges.push((lo, hi));
        }
        let ack_delay_ns = self.num().saturating_mul(1000);
        let ecn = (self.byte() & 1 == 1).then(|| Box::new([self.num(), self.num(), self.num()]));
        AckFrame {
            ranges: ranges.into(),
            ack_delay_ns,
            ecn,
            sack_blocks: None,
        }
    }

    /// A packet: pn, a flags byte (data, ACK, FIN, TFRC feedback, IMMEDIATE_ACK, PING, ACK_FREQUENCY), the
    /// frames it flags, CCVal.
    fn packet(&mut self) -> Packet {
        let pn = self.num();
        let flags = self.byte();
        let data = (flags & 1 != 0).then(|| DataChunk {
            offset: self.num(),
            len: u32::from(self.byte()) << (self.byte() % 9),
            fin: flags & 4 != 0,
        });
        let ack = (flags & 2 != 0).then(|| self.ack());
        let tfrc = (flags & 8 != 0).then(|| {
            let x_recv_bps = self.num();
            let p = if self.byte() & 1 == 0 {
                f64::from(self.byte()) / 255.0
            } else {
                f64::from_bits(self.u64())
            };
            TfrcFeedback {
                x_recv_bps,
                p,
                elapsed_ns: self.num(),
            }
        });
        let ack_frequency = (flags & 0x40 != 0).then(|| AckFrequencyFrame {
            sequence: self.num(),
            ack_eliciting_threshold: self.num(),
            request_max_ack_delay_us: self.num(),
            reordering_threshold: self.num(),
        });
        // Handshake frames arrive out of place too (a server flight at a server, a huge offset).
        let handshake = (flags & 0x40 != 0).then(|| match self.byte() % 3 {
            0 => HandshakeFrame::Client {
                flight_received: self.num() as u32,
                probe: flags & 0x80 != 0,
            },
            1 => HandshakeFrame::Finished,
            _ => HandshakeFrame::Server {
                echo: self.num(),
                offset: self.num() as u32,
                len: self.num() as u32,
                total: self.num() as u32,
            },
        });
        let mut p = Packet {
            pn,
            pn_len: 4,
            data,
            ack: ack.map(Box::new),
            immediate_ack: flags & 0x10 != 0,
            ping: flags & 0x20 != 0,
            ccval: self.byte(),
            rare: None,
        };
        if ack_frequency.is_some() || tfrc.is_some() || handshake.is_some() {
            p.rare = Some(Box::new(RareFrames {
                ack_frequency,
                tfrc,
                handshake,
                bytes: Vec::new(),
            }));
        }
        p
    }
}

fn endpoint(kind: u8) -> Box<dyn Endpoint> {
    let (flow, now) = (FlowId(0), Time::ZERO);
    let source = SourceConfig::Bulk {
        size: Bytes(SOURCE_BYTES),
    };
    let cc = CcConfig::NewReno(NewRenoConfig::default());
    let quic = Profile::Quic(QuicProfile::default());
    let tcp = Profile::Tcp(TcpProfile {
        mss: 1448,
        timestamps: true,
        ipv6: false,
        accecn: false,
    });
    let dccp = Profile::Dccp(DccpProfile { ipv6: false });
    let tfrc = TfrcConfig::default();
    // The rest of the kind byte picks the sender's recovery options, off by default and so never
    // reached by a default sender: Linux's window growth and its PRR.
    let sender = SenderConfig {
        cumulative_ack_growth: (kind / 6) & 1 != 0,
        proportional_rate_reduction: (kind / 6) & 2 != 0,
        ..SenderConfig::default()
    };
    match kind % 6 {
        0 => Box::new(Sender::new(flow, quic, &sender, &cc, &source, now)),
        1 => Box::new(Receiver::new(flow, quic, &ReceiverConfig::default(), now)),
        2 => Box::new(Sender::new(flow, tcp, &sender, &cc, &source, now)),
        3 => Box::new(Receiver::new(flow, tcp, &ReceiverConfig::default(), now)),
        4 => Box::new(TfrcSender::new(flow, dccp, &tfrc, &source, now)),
        _ => Box::new(TfrcReceiver::new(flow, dccp, &tfrc, now)),
    }
}

/// Runs due timers and sends everything due at `now`, within `MAX_BURST` datagrams.
fn drive(e: &mut dyn Endpoint, now: Time) {
    if e.poll_timeout().is_some_and(|t| t <= now) {
        e.handle_timeout(now);
    }
    let sent = std::iter::from_fn(|| e.poll_transmit(now)).take(MAX_BURST + 1).count();
    assert!(sent <= MAX_BURST, "more than {MAX_BURST} datagrams at one instant");
}

/// Interprets `input` (see the module doc). Panics on a broken invariant.
pub(crate) fn run(input: &[u8]) {
    let mut r = Reader { bytes: input };
    let kind = r.byte();
    let mut e = endpoint(kind);
    let mut now = Time::ZERO;
    drive(e.as_mut(), now);
    while !r.bytes.is_empty() {
        let op = r.byte();
        match op & 3 {
            0 => now += Dur::from_micros(10) * u64::from(u16::from_be_bytes([r.byte(), r.byte()])),
            1 => {
                let ecn = [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce][usize::from(op >> 2 & 3)];
                let packet = r.packet();
                e.handle_datagram(
                    now,
                    Datagram {
                        flow: FlowId(0),
                        size: 1500,
                        ecn,
                        packet,
                    },
                );
            }
            2 => {
                let n = usize::from(r.byte()).min(r.bytes.len());
                let (bytes, rest) = r.bytes.split_at(n);
                r.bytes = rest;
                if let Ok(packet) = decode(bytes, &QuicProfile::default(), None) {
                    e.handle_datagram(
                        now,
                        Datagram {
                            flow: FlowId(0),
                            size: 1500,
                            ecn: Ecn::NotEct,
                            packet,
                        },
                    );
                }
            }
            _ => e.handle_timeout(now),
        }
        drive(e.as_mut(), now);
    }
    let st = e.stats();
    if matches!(kind % 6, 0 | 2 | 4) {
        assert!(
            st.bytes_delivered <= SOURCE_BYTES,
            "a sender acknowledged more than it sent: {st:?}"
        );
    }
}
