//! QUIC v1 1-RTT packet codec (RFC 9000 §17.3.1 header, §19 frames, §16 varints), producing exactly
//! `QuicProfile::packet_len` bytes for a `Packet`.
//!
//! Packets are not encrypted: the 16-byte AEAD tag is a fixed filler and header protection is not
//! applied, so sizes are exact and contents readable. Stream bytes follow a pattern derived from
//! their offset, which `decode` checks: a transfer that arrives intact proves the bytes did.
//! `decode` never panics on arbitrary input.
//!
//! Real mode carries every profile's packets in this codec, so private-use frames carry what only
//! TCP and DCCP packets hold (the DCCP CCVal, TFRC feedback, the TCP SACK block count) and the
//! handshake model's frame; data packets never contain them, so QUIC data sizes stay exact. [`encode_padded`] pads a packet up to the
//! size its profile models.

use super::packet::{AckFrame, AckFrequencyFrame, DataChunk, HandshakeFrame, Packet, TfrcFeedback};
use super::size::{
    QuicProfile, ACK_DELAY_EXPONENT, ACK_FREQUENCY_TYPE, AEAD_TAG, CCVAL_TYPE, HANDSHAKE_TYPE, IMMEDIATE_ACK_TYPE,
    SACK_BLOCKS_TYPE, TFRC_FEEDBACK_TYPE,
};
use core::fmt;

const FRAME_PADDING: u64 = 0x00;
const FRAME_PING: u64 = 0x01;
const FRAME_ACK: u64 = 0x02;
const FRAME_ACK_ECN: u64 = 0x03;
const STREAM_BASE: u64 = 0x08;
const STREAM_OFF: u64 = 0x04;
const STREAM_LEN: u64 = 0x02;
const STREAM_FIN: u64 = 0x01;
const TAG_FILL: u8 = 0xa5;

/// Period of the stream byte pattern (a prime, so the pattern never lines up with packet sizes).
const PATTERN_PERIOD: usize = 251;
/// The pattern from offset 0, long enough that any STREAM payload is one slice of it: encoding
/// and checking a payload is a copy and a compare, not a division per byte.
static PATTERN: [u8; PATTERN_PERIOD + 65536] = {
    let mut t = [0u8; PATTERN_PERIOD + 65536];
    let mut i = 0;
    while i < t.len() {
        t[i] = (i % PATTERN_PERIOD) as u8;
        i += 1;
    }
    t
};

/// The stream byte at `offset` (what `encode` writes and `decode` checks).
pub fn pattern_byte(offset: u64) -> u8 {
    (offset % PATTERN_PERIOD as u64) as u8
}

/// The pattern bytes of `len` (≤ 65,536) stream bytes from `offset`.
fn pattern(offset: u64, len: usize) -> &'static [u8] {
    let start = (offset % PATTERN_PERIOD as u64) as usize;
    &PATTERN[start..start + len]
}

/// Why a datagram could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The datagram ended inside a field.
    Truncated,
    /// The first byte is not a 1-RTT short header (fixed bit clear or long header).
    NotShortHeader,
    /// A frame type this codec does not know.
    UnknownFrame(u64),
    /// A field holds an impossible value (e.g. an ACK range below zero).
    Malformed(&'static str),
    /// Stream bytes differ from the pattern at this offset.
    CorruptData(u64),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Truncated => write!(f, "datagram truncated"),
            DecodeError::NotShortHeader => write!(f, "not a QUIC 1-RTT short-header packet"),
            DecodeError::UnknownFrame(t) => write!(f, "unknown frame type {t:#x}"),
            DecodeError::Malformed(what) => write!(f, "malformed {what}"),
            DecodeError::CorruptData(o) => write!(f, "stream data corrupt at offset {o}"),
        }
    }
}

impl std::error::Error for DecodeError {}

fn put_varint(buf: &mut Vec<u8>, v: u64) {
    match super::size::varint_len(v) {
        1 => buf.push(v as u8),
        2 => buf.extend_from_slice(&((v as u16) | 0x4000).to_be_bytes()),
        4 => buf.extend_from_slice(&((v as u32) | 0x8000_0000).to_be_bytes()),
        _ => buf.extend_from_slice(&(v | 0xc000_0000_0000_0000).to_be_bytes()),
    }
}

/// Appends the encoding of `p` to `buf`: exactly `q.packet_len(p)` bytes.
///
/// # Panics
/// If `p.pn_len` is not 1..=4 or an ACK frame's ranges are not disjoint and descending.
pub fn encode(p: &Packet, q: &QuicProfile, buf: &mut Vec<u8>) {
    let start = buf.len();
    encode_frames(p, q, buf);
    buf.extend(core::iter::repeat_n(FRAME_PADDING as u8, q.padding_len(p) as usize));
    buf.extend(core::iter::repeat_n(TAG_FILL, AEAD_TAG as usize));
    debug_assert_eq!(buf.len() - start, q.packet_len(p) as usize);
}

/// Appends the encoding of `p` padded with PADDING frames to `len` bytes, or unpadded when the
/// encoding is longer already (real mode sends a TCP- or DCCP-profile packet at its modelled size).
///
/// # Panics
/// As [`encode`].
pub fn encode_padded(p: &Packet, q: &QuicProfile, len: usize, buf: &mut Vec<u8>) {
    let start = buf.len();
    encode_frames(p, q, buf);
    let natural = buf.len() - start + (q.padding_len(p) + AEAD_TAG) as usize;
    let pad = q.padding_len(p) as usize + len.saturating_sub(natural);
    buf.extend(core::iter::repeat_n(FRAME_PADDING as u8, pad));
    buf.extend(core::iter::repeat_n(TAG_FILL, AEAD_TAG as usize));
}

/// The short header and every frame of `p`, without padding and tag.
fn encode_frames(p: &Packet, q: &QuicProfile, buf: &mut Vec<u8>) {
    assert!((1..=4).contains(&p.pn_len), "pn_len must be 1..=4");
    // Short header: 0b01 (fixed bit), spin 0, reserved 0, key phase 0, pn length - 1.
    buf.push(0x40 | (p.pn_len - 1));
    buf.extend(core::iter::repeat_n(0u8, q.dcid_len as usize));
    let pn_bytes = p.pn.to_be_bytes();
    buf.extend_from_slice(&pn_bytes[8 - p.pn_len as usize..]);
    if let Some(f) = p.ack_frequency() {
        put_varint(buf, ACK_FREQUENCY_TYPE);
        put_varint(buf, f.sequence);
        put_varint(buf, f.ack_eliciting_threshold);
        put_varint(buf, f.request_max_ack_delay_us);
        put_varint(buf, f.reordering_threshold);
    }
    if p.immediate_ack {
        put_varint(buf, IMMEDIATE_ACK_TYPE);
    }
    if p.ping {
        put_varint(buf, FRAME_PING);
    }
    if let Some(a) = &p.ack {
        encode_ack(a, buf);
    }
    if let Some(d) = &p.data {
        let ty =
            STREAM_BASE | STREAM_LEN | if d.offset > 0 { STREAM_OFF } else { 0 } | if d.fin { STREAM_FIN } else { 0 };
        put_varint(buf, ty);
        put_varint(buf, 0); // stream id 0
        if d.offset > 0 {
            put_varint(buf, d.offset);
        }
        put_varint(buf, d.len as u64);
        buf.extend_from_slice(pattern(d.offset, d.len as usize));
    }
    if p.ccval != 0 {
        put_varint(buf, CCVAL_TYPE);
        put_varint(buf, p.ccval as u64);
    }
    if let Some(f) = p.tfrc() {
        put_varint(buf, TFRC_FEEDBACK_TYPE);
        put_varint(buf, f.x_recv_bps);
        buf.extend_from_slice(&f.p.to_bits().to_be_bytes());
        put_varint(buf, f.elapsed_ns);
    }
    if let Some(h) = p.handshake() {
        put_varint(buf, HANDSHAKE_TYPE);
        match *h {
            HandshakeFrame::Client { flight_received, probe } => {
                buf.push(0);
                put_varint(buf, flight_received as u64);
                buf.push(probe as u8);
            }
            HandshakeFrame::Finished => buf.push(1),
            HandshakeFrame::Server {
                echo,
                offset,
                len,
                total,
            } => {
                buf.push(2);
                for v in [echo, offset as u64, len as u64, total as u64] {
                    put_varint(buf, v);
                }
            }
        }
    }
    if let Some(n) = p.ack.as_ref().and_then(|a| a.sack_blocks) {
        put_varint(buf, SACK_BLOCKS_TYPE);
        put_varint(buf, n as u64);
    }
}

fn encode_ack(a: &AckFrame, buf: &mut Vec<u8>) {
    let Some(&(first_lo, largest)) = a.ranges.first() else {
        return;
    };
    put_varint(buf, if a.ecn.is_some() { FRAME_ACK_ECN } else { FRAME_ACK });
    put_varint(buf, largest);
    put_varint(buf, (a.ack_delay_ns / 1000) >> ACK_DELAY_EXPONENT);
    put_varint(buf, a.ranges.len() as u64 - 1);
    put_varint(buf, largest - first_lo);
    let mut prev_lo = first_lo;
    for &(lo, hi) in &a.ranges[1..] {
        put_varint(buf, prev_lo - hi - 2); // RFC 9000 §19.3.1
        put_varint(buf, hi - lo);
        prev_lo = lo;
    }
    if let Some(c) = &a.ecn {
        for &v in c.iter() {
            put_varint(buf, v);
        }
    }
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn byte(&mut self) -> Result<u8, DecodeError> {
        let v = *self.b.get(self.pos).ok_or(DecodeError::Truncated)?;
        self.pos += 1;
        Ok(v)
    }
    fn take(&mut self, n: usize) -> Result<&[u8], DecodeError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or(DecodeError::Truncated)?;
        let s = &self.b[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn varint(&mut self) -> Result<u64, DecodeError> {
        let first = self.byte()?;
        let len = 1usize << (first >> 6);
        let mut v = (first & 0x3f) as u64;
        for &b in self.take(len - 1)? {
            v = (v << 8) | b as u64;
        }
        Ok(v)
    }
}

/// Reconstructs a full packet number from its truncated encoding (RFC 9000 Appendix A.3).
pub fn decode_pn(largest_pn: Option<u64>, truncated: u64, pn_nbits: u32) -> u64 {
    let expected = largest_pn.map_or(0, |l| l + 1);
    let win = 1u64 << pn_nbits;
    let hwin = win / 2;
    let mask = win - 1;
    let candidate = (expected & !mask) | truncated;
    if candidate + hwin <= expected && candidate < (1u64 << 62) - win {
        candidate + win
    } else if candidate > expected + hwin && candidate >= win {
        candidate - win
    } else {
        candidate
    }
}

/// Decodes one datagram's QUIC packet; `largest_pn` is the largest packet number received so far.
pub fn decode(bytes: &[u8], q: &QuicProfile, largest_pn: Option<u64>) -> Result<Packet, DecodeError> {
    let body_end = bytes
        .len()
        .checked_sub(AEAD_TAG as usize)
        .ok_or(DecodeError::Truncated)?;
    let mut r = Reader {
        b: &bytes[..body_end],
        pos: 0,
    };
    let first = r.byte()?;
    if first & 0xc0 != 0x40 {
        return Err(DecodeError::NotShortHeader);
    }
    let pn_len = (first & 0x03) + 1;
    r.take(q.dcid_len as usize)?;
    let truncated = r.take(pn_len as usize)?.iter().fold(0u64, |v, &b| (v << 8) | b as u64);
    let mut p = Packet {
        pn: decode_pn(largest_pn, truncated, 8 * pn_len as u32),
        pn_len,
        ..Default::default()
    };
    if r.pos == r.b.len() {
        // RFC 9000 §12.4: a packet must contain at least one frame.
        return Err(DecodeError::Malformed("packet with no frames"));
    }
    let mut only_padding = true;
    while r.pos < r.b.len() {
        let ty = r.varint()?;
        only_padding &= ty == FRAME_PADDING;
        match ty {
            FRAME_PADDING => {}
            FRAME_PING => p.ping = true,
            IMMEDIATE_ACK_TYPE => p.immediate_ack = true,
            ACK_FREQUENCY_TYPE => p.set_ack_frequency(Some(AckFrequencyFrame {
                sequence: r.varint()?,
                ack_eliciting_threshold: r.varint()?,
                request_max_ack_delay_us: r.varint()?,
                reordering_threshold: r.varint()?,
            })),
            t @ (FRAME_ACK | FRAME_ACK_ECN) => p.ack = Some(Box::new(decode_ack(&mut r, t == FRAME_ACK_ECN)?)),
            t @ 0x08..=0x0f => p.data = Some(decode_stream(&mut r, t)?),
            CCVAL_TYPE => {
                // 1..=15: a window counter of 0 is never written (no frame means 0), which keeps
                // decode ∘ encode the identity.
                p.ccval = u8::try_from(r.varint()?)
                    .ok()
                    .filter(|&c| (1..=15).contains(&c))
                    .ok_or(DecodeError::Malformed("CCVal"))?
            }
            TFRC_FEEDBACK_TYPE => {
                let x_recv_bps = r.varint()?;
                let loss = f64::from_bits(u64::from_be_bytes(r.take(8)?.try_into().expect("8 bytes")));
                if !(0.0..=1.0).contains(&loss) {
                    return Err(DecodeError::Malformed("TFRC loss event rate"));
                }
                p.set_tfrc(TfrcFeedback {
                    x_recv_bps,
                    p: loss,
                    elapsed_ns: r.varint()?,
                })
            }
            HANDSHAKE_TYPE => p.set_handshake(decode_handshake(&mut r)?),
            SACK_BLOCKS_TYPE => {
                let n = u8::try_from(r.varint()?).map_err(|_| DecodeError::Malformed("SACK block count"))?;
                // The ACK frame comes first in a packet (see `encode_frames`).
                p.ack
                    .as_mut()
                    .ok_or(DecodeError::Malformed("SACK blocks without an ACK"))?
                    .sack_blocks = Some(n);
            }
            t => return Err(DecodeError::UnknownFrame(t)),
        }
    }
    if only_padding {
        // Valid QUIC, but no cclab endpoint sends it and it carries nothing to act on; rejecting
        // it keeps decode ∘ encode the identity.
        return Err(DecodeError::Malformed("packet with only PADDING frames"));
    }
    Ok(p)
}

fn decode_ack(r: &mut Reader<'_>, ecn: bool) -> Result<AckFrame, DecodeError> {
    let largest = r.varint()?;
    let delay = r.varint()?;
    let count = r.varint()?;
    let first = r.varint()?;
    let mut lo = largest
        .checked_sub(first)
        .ok_or(DecodeError::Malformed("ACK first range"))?;
    let mut ranges = vec![(lo, largest)];
    for _ in 0..count {
        let gap = r.varint()?;
        let len = r.varint()?;
        let hi = lo.checked_sub(gap + 2).ok_or(DecodeError::Malformed("ACK gap"))?;
        lo = hi.checked_sub(len).ok_or(DecodeError::Malformed("ACK range"))?;
        ranges.push((lo, hi));
    }
    let ecn = if ecn {
        Some(Box::new([r.varint()?, r.varint()?, r.varint()?]))
    } else {
        None
    };
    let ack_delay_ns = delay
        .checked_mul(1 << ACK_DELAY_EXPONENT)
        .and_then(|us| us.checked_mul(1000))
        .ok_or(DecodeError::Malformed("ACK delay"))?;
    Ok(AckFrame {
        ranges: ranges.into(),
        ack_delay_ns,
        ecn,
        sack_blocks: None,
    })
}

fn decode_handshake(r: &mut Reader<'_>) -> Result<HandshakeFrame, DecodeError> {
    let u32_of = |v: u64| u32::try_from(v).map_err(|_| DecodeError::Malformed("handshake field"));
    Ok(match r.byte()? {
        0 => HandshakeFrame::Client {
            flight_received: u32_of(r.varint()?)?,
            probe: r.byte()? != 0,
        },
        1 => HandshakeFrame::Finished,
        2 => HandshakeFrame::Server {
            echo: r.varint()?,
            offset: u32_of(r.varint()?)?,
            len: u32_of(r.varint()?)?,
            total: u32_of(r.varint()?)?,
        },
        _ => return Err(DecodeError::Malformed("handshake kind")),
    })
}

fn decode_stream(r: &mut Reader<'_>, ty: u64) -> Result<DataChunk, DecodeError> {
    let _stream_id = r.varint()?;
    let offset = if ty & STREAM_OFF != 0 { r.varint()? } else { 0 };
    let len = if ty & STREAM_LEN != 0 {
        r.varint()?
    } else {
        (r.b.len() - r.pos) as u64
    };
    let len32 = u32::try_from(len).map_err(|_| DecodeError::Malformed("STREAM length"))?;
    let data = r.take(len32 as usize)?;
    if data != pattern(offset, data.len()) {
        let i = data.iter().zip(pattern(offset, data.len())).position(|(a, b)| a != b);
        return Err(DecodeError::CorruptData(offset + i.unwrap_or(0) as u64));
    }
    Ok(DataChunk {
        offset,
        len: len32,
        fin: ty & STREAM_FIN != 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    fn random_packet(rng: &mut Xoshiro256PlusPlus, q: &QuicProfile) -> Packet {
        let pn = rng.random_range(0..1u64 << 40);
        let mut p = Packet {
            pn,
            pn_len: rng.random_range(1..=4),
            ..Default::default()
        };
        if rng.random_bool(0.5) {
            let mut hi = pn;
            let mut ranges = Vec::new();
            for _ in 0..rng.random_range(1..6) {
                let lo = hi.saturating_sub(rng.random_range(0..1000));
                ranges.push((lo, hi));
                if lo < 1002 {
                    break;
                }
                hi = lo - 2 - rng.random_range(0..1000);
            }
            let delay_us: u64 = rng.random_range(0..100_000);
            let ecn = rng
                .random_bool(0.3)
                .then(|| Box::new([rng.random_range(0..1 << 20), 0, rng.random_range(0..99)]));
            p.ack = Some(Box::new(AckFrame {
                ranges: ranges.into(),
                ack_delay_ns: (delay_us >> 3 << 3) * 1000,
                ecn,
                sack_blocks: None,
            }));
        }
        if rng.random_bool(0.2) {
            p.set_ack_frequency(Some(AckFrequencyFrame {
                sequence: rng.random_range(0..100),
                ack_eliciting_threshold: rng.random_range(0..300),
                request_max_ack_delay_us: rng.random_range(1000..30_000),
                reordering_threshold: rng.random_range(0..4),
            }));
        }
        p.immediate_ack = rng.random_bool(0.1);
        p.ping = rng.random_bool(0.1);
        if rng.random_bool(0.7) {
            let offset = if rng.random_bool(0.2) {
                0
            } else {
                rng.random_range(0..1u64 << 34)
            };
            let len = rng.random_range(0..=q.max_stream_payload(&p, offset));
            p.data = Some(DataChunk {
                offset,
                len,
                fin: rng.random_bool(0.1),
            });
        }
        if q.frames_len(&p) == 0 {
            p.ping = true; // a packet carries at least one frame (RFC 9000 §12.4)
        }
        p
    }

    #[test]
    fn codec_private_frames_count_in_the_packet_length() {
        // Found by the quic_decode fuzz target: a decoded CCVal, TFRC, SACK-count or handshake frame
        // re-encoded to more bytes than `packet_len` said.
        use crate::wire::packet::{HandshakeFrame, TfrcFeedback};
        let q = QuicProfile::default();
        let packets = [
            Packet {
                pn_len: 2,
                ccval: 7,
                ping: true,
                ..Default::default()
            },
            Packet {
                pn_len: 2,
                ..Default::default()
            }
            .with_tfrc(TfrcFeedback {
                x_recv_bps: 1 << 40,
                p: 0.25,
                elapsed_ns: 12_345,
            }),
            Packet {
                pn_len: 1,
                ack: Some(Box::new(AckFrame {
                    ranges: vec![(0, 9)].into(),
                    sack_blocks: Some(3),
                    ..Default::default()
                })),
                ..Default::default()
            },
            Packet {
                pn_len: 4,
                ..Default::default()
            }
            .with_handshake(HandshakeFrame::Server {
                echo: 1 << 33,
                offset: 1200,
                len: 1180,
                total: 3000,
            }),
        ];
        for p in packets {
            let mut buf = Vec::new();
            encode(&p, &q, &mut buf);
            assert_eq!(buf.len(), q.packet_len(&p) as usize, "{p:?}");
            assert_eq!(decode(&buf, &q, None), Ok(p));
        } // A CCVal frame of 0 is never written (no frame means 0): refused, so decode ∘ encode stays the identity.
        let mut zero = vec![0x40];
        zero.extend([0u8; 8]);
        zero.extend([1, 0x7c, 0xc0, 0x00, 0x01]);
        zero.extend([TAG_FILL; AEAD_TAG as usize]);
        assert_eq!(decode(&zero, &q, None), Err(DecodeError::Malformed("CCVal")));
    }

    #[test]
    fn codec_round_trips_with_exact_size() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
        for q in [
            QuicProfile::default(),
            QuicProfile {
                max_udp_payload: 1200,
                dcid_len: 0,
                ipv6: true,
            },
        ] {
            for _ in 0..2000 {
                let p = random_packet(&mut rng, &q);
                let mut buf = Vec::new();
                encode(&p, &q, &mut buf);
                assert_eq!(buf.len(), q.packet_len(&p) as usize, "{p:?}");
                let largest = p.pn.checked_sub(rng.random_range(1..100));
                assert_eq!(decode(&buf, &q, largest).unwrap(), p);
            }
        }
    }

    #[test]
    fn decode_rejects_corruption_and_truncation() {
        let q = QuicProfile::default();
        let p = Packet {
            pn: 5,
            pn_len: 1,
            data: Some(DataChunk {
                offset: 0,
                len: 100,
                fin: false,
            }),
            ..Default::default()
        };
        let mut buf = Vec::new();
        encode(&p, &q, &mut buf);
        let mut bad = buf.clone();
        bad[1 + 8 + 1 + 4 + 10] ^= 1; // stream byte 10: after header (10), type, id and 2-byte length
        assert_eq!(decode(&bad, &q, None), Err(DecodeError::CorruptData(10)));
        for cut in 0..buf.len() - 16 {
            assert!(decode(&buf[..cut], &q, None).is_err(), "cut {cut}");
        }
    }

    #[test]
    fn decode_survives_random_bytes() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        let q = QuicProfile::default();
        for _ in 0..20_000 {
            let n = rng.random_range(0..200);
            let bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
            let _ = decode(&bytes, &q, Some(rng.random_range(0..1 << 30)));
        }
    }

    #[test]
    fn pn_decoding_matches_rfc_example() {
        // RFC 9000 A.3: largest 0xa82f30ea, truncated 0x9b32 (16 bits) -> 0xa82f9b32.
        assert_eq!(decode_pn(Some(0xa82f30ea), 0x9b32, 16), 0xa82f9b32);
    }
}
