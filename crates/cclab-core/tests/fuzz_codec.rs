//! Property fuzzing of the QUIC codec (`wire::quic`), the stable counterpart of `fuzz/fuzz_targets/quic_decode.rs`.
//!
//! `decode` must never panic, whatever the bytes (random, frame-shaped, or mutations of valid packets), and
//! whatever it accepts must survive a round trip: re-encoding gives exactly `QuicProfile::packet_len` bytes that
//! decode to the same packet. Valid packets round-trip exactly. Fixed seed; `PROPTEST_RNG_SEED` and
//! `PROPTEST_CASES` override it and the case count.

use cclab_core::wire::packet::{AckFrame, AckFrequencyFrame, DataChunk, Packet};
use cclab_core::wire::quic::{decode, encode, DecodeError};
use cclab_core::wire::size::{QuicProfile, ACK_DELAY_EXPONENT, ACK_FREQUENCY_TYPE, AEAD_TAG, IMMEDIATE_ACK_TYPE};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Largest QUIC varint value plus one (RFC 9000 §16).
const VARINT_END: u64 = 1 << 62;

mod fuzz_support;
use fuzz_support::config;

/// A varint value, equally likely to need 1, 2, 4 or 8 bytes (RFC 9000 §16).
fn varint() -> impl Strategy<Value = u64> {
    prop_oneof![
        0..1u64 << 6,
        1u64 << 6..1 << 14,
        1u64 << 14..1 << 30,
        1u64 << 30..VARINT_END
    ]
}

fn put_varint(buf: &mut Vec<u8>, v: u64) {
    match v {
        0..0x40 => buf.push(v as u8),
        0x40..0x4000 => buf.extend_from_slice(&(v as u16 | 0x4000).to_be_bytes()),
        0x4000..0x4000_0000 => buf.extend_from_slice(&(v as u32 | 0x8000_0000).to_be_bytes()),
        _ => buf.extend_from_slice(&(v | 0xc000_0000_0000_0000).to_be_bytes()),
    }
}

fn profile() -> impl Strategy<Value = QuicProfile> {
    (1200..=1500u32, 0..=20u32, any::<bool>()).prop_map(|(max_udp_payload, dcid_len, ipv6)| QuicProfile {
        max_udp_payload,
        dcid_len,
        ipv6,
    })
}

/// ACK ranges walked down from `largest`: each next range ends at least 2 below the previous start, so at least
/// one packet number is missing between them (RFC 9000 §19.3.1). The delay is a whole number of 2^3 µs units.
fn ack_frame() -> impl Strategy<Value = AckFrame> {
    let ranges = (varint(), varint(), vec((varint(), varint()), 0..6)).prop_map(|(largest, first, rest)| {
        let mut lo = largest.saturating_sub(first);
        let mut ranges = vec![(lo, largest)];
        for (gap, len) in rest {
            let Some(hi) = lo.checked_sub(gap + 2) else { break };
            lo = hi.saturating_sub(len);
            ranges.push((lo, hi));
        }
        ranges
    });
    (ranges, 0..1u64 << 30, option::of([varint(), varint(), varint()])).prop_map(|(ranges, delay, ecn)| AckFrame {
        ranges: ranges.into(),
        ack_delay_ns: (delay << ACK_DELAY_EXPONENT) * 1000,
        ecn: ecn.map(Box::new),
        sack_blocks: None,
    })
}

fn ack_frequency() -> impl Strategy<Value = AckFrequencyFrame> {
    (varint(), varint(), varint(), varint()).prop_map(|(sequence, threshold, delay_us, reordering)| AckFrequencyFrame {
        sequence,
        ack_eliciting_threshold: threshold,
        request_max_ack_delay_us: delay_us,
        reordering_threshold: reordering,
    })
}

/// A packet `encode` accepts, with at least one frame (RFC 9000 §12.4), and a `largest_pn` close enough
/// below its number for the truncated encoding to recover it (RFC 9000 §17.1, Appendix A.3).
fn valid_packet(q: QuicProfile) -> impl Strategy<Value = (Packet, Option<u64>)> {
    let frames = (
        option::of(ack_frame()),
        option::of(ack_frequency()),
        any::<bool>(),
        any::<bool>(),
    );
    let data = option::of((
        prop_oneof![Just(0), 0..VARINT_END - (1 << 32)],
        any::<u32>(),
        any::<bool>(),
    ));
    (0..VARINT_END, 1..=4u8, 1..=64u64, frames, data).prop_map(
        move |(pn, pn_len, distance, (ack, ack_frequency, immediate_ack, ping), data)| {
            let mut p = Packet {
                pn,
                pn_len,
                ack: ack.map(Box::new),
                immediate_ack,
                ping,
                ..Default::default()
            };
            p.set_ack_frequency(ack_frequency);
            if let Some((offset, len_seed, fin)) = data {
                let len = len_seed % (q.max_stream_payload(&p, offset) + 1);
                p.data = Some(DataChunk { offset, len, fin });
            }
            if q.frames_len(&p) == 0 {
                p.ping = true;
            }
            (p, pn.checked_sub(distance))
        },
    )
}

fn encoded(p: &Packet, q: &QuicProfile) -> Vec<u8> {
    let mut buf = Vec::new();
    encode(p, q, &mut buf);
    buf
}

/// Decoding must not panic; an accepted packet re-encodes to `packet_len` bytes that decode to itself.
fn check_decode(bytes: &[u8], q: &QuicProfile, largest: Option<u64>) -> Result<(), TestCaseError> {
    if let Ok(p) = decode(bytes, q, largest) {
        let buf = encoded(&p, q);
        prop_assert_eq!(buf.len(), q.packet_len(&p) as usize, "re-encoding of {:?}", p);
        prop_assert_eq!(decode(&buf, q, largest), Ok(p));
    }
    Ok(())
}

fn largest_pn() -> impl Strategy<Value = Option<u64>> {
    option::of(0..VARINT_END)
}

/// A short header for `q` followed by `frames` and the AEAD tag filler.
fn datagram(q: &QuicProfile, pn_len: u8, pn: u32, frames: &[u8]) -> Vec<u8> {
    let mut b = vec![0x40 | (pn_len - 1)];
    b.resize(1 + q.dcid_len as usize, 0);
    b.extend_from_slice(&pn.to_be_bytes()[4 - pn_len as usize..]);
    b.extend_from_slice(frames);
    b.resize(b.len() + AEAD_TAG as usize, 0xa5);
    b
}

/// Frame-shaped bytes: known frame types (RFC 9000 §19, ACK-frequency draft) and varints of all lengths,
/// mixed with raw bytes, so decoding gets past the frame type far more often than with random bytes.
fn frame_tokens() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        prop::sample::select(vec![
            0x00u64,
            0x01,
            0x02,
            0x03,
            0x08,
            0x0a,
            0x0b,
            0x0e,
            0x0f,
            IMMEDIATE_ACK_TYPE
        ]),
        Just(ACK_FREQUENCY_TYPE),
        varint(),
    ]
    .prop_map(|v| {
        let mut b = Vec::new();
        put_varint(&mut b, v);
        b
    });
    vec(prop_oneof![4 => token, 1 => vec(any::<u8>(), 1..4)], 0..24).prop_map(|t| t.concat())
}

#[derive(Clone, Debug)]
enum Mutation {
    FlipBit(usize),
    Truncate(usize),
    Insert(usize, Vec<u8>),
    Remove(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        3 => any::<usize>().prop_map(Mutation::FlipBit),
        1 => any::<usize>().prop_map(Mutation::Truncate),
        1 => (any::<usize>(), vec(any::<u8>(), 1..9)).prop_map(|(at, b)| Mutation::Insert(at, b)),
        1 => (any::<usize>(), 1..9usize).prop_map(|(at, n)| Mutation::Remove(at, n)),
    ]
}

fn apply(buf: &mut Vec<u8>, m: &Mutation) {
    let n = buf.len();
    match m {
        Mutation::FlipBit(i) if n > 0 => buf[i / 8 % n] ^= 1 << (i % 8),
        Mutation::Truncate(i) => buf.truncate(i % (n + 1)),
        Mutation::Insert(at, b) => drop(buf.splice(at % (n + 1)..at % (n + 1), b.iter().copied())),
        Mutation::Remove(at, k) if n > 0 => drop(buf.drain(at % n..(at % n + k).min(n))),
        _ => {}
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn codec_valid_packets_round_trip_at_packet_len((q, (p, largest)) in profile().prop_flat_map(|q| (Just(q), valid_packet(q)))) {
        let buf = encoded(&p, &q);
        prop_assert_eq!(buf.len(), q.packet_len(&p) as usize);
        prop_assert_eq!(decode(&buf, &q, largest), Ok(p));
    }

    #[test]
    fn codec_random_bytes_never_panic(bytes in vec(any::<u8>(), 0..300), q in profile(), largest in largest_pn()) {
        check_decode(&bytes, &q, largest)?;
    }

    #[test]
    fn codec_frame_shaped_bytes_never_panic(
        q in profile(), pn_len in 1..=4u8, pn in any::<u32>(), frames in frame_tokens(), largest in largest_pn(),
    ) {
        check_decode(&datagram(&q, pn_len, pn, &frames), &q, largest)?;
    }

    #[test]
    fn codec_mutated_packets_never_panic(
        (q, (p, largest)) in profile().prop_flat_map(|q| (Just(q), valid_packet(q))),
        mutations in vec(mutation(), 1..4),
    ) {
        let mut buf = encoded(&p, &q);
        for m in &mutations {
            apply(&mut buf, m);
        }
        check_decode(&buf, &q, largest)?;
    }

    /// RFC 9000 §19.3: ACK Delay is the field times 2^ack_delay_exponent µs; a value too large for the
    /// nanosecond field must be rejected, not wrapped. The strategy aims at the shift overflow (field ≥ 2^61).
    /// Minimal failing input: field = 2^61 (varint `e0 00 00 00 00 00 00 00`) decodes as ack_delay_ns 0.
    #[test]
    fn codec_ack_delay_scales_or_is_rejected(field in prop_oneof![varint(), (0..2u64, 0..1u64 << 51).prop_map(|(h, l)| h << 61 | l)]) {
        let q = QuicProfile::default();
        let mut frame = vec![0x02, 0x00]; // ACK, largest 0
        put_varint(&mut frame, field);
        frame.extend_from_slice(&[0x00, 0x00]); // range count 0, first range 0
        let ns = (field as u128) << ACK_DELAY_EXPONENT;
        match decode(&datagram(&q, 1, 0, &frame), &q, None) {
            Ok(p) => prop_assert_eq!(p.ack.map(|a| a.ack_delay_ns as u128), Some(ns * 1000)),
            Err(e) => {
                prop_assert_eq!(e, DecodeError::Malformed("ACK delay"));
                prop_assert!(ns * 1000 > u64::MAX as u128);
            }
        }
    }
}

/// Found by `codec_frame_shaped_bytes_never_panic` (`PROPTEST_RNG_SEED=2`): short header `0x43`, 8-byte DCID,
/// 4-byte PN 7, one PADDING frame, 16-byte tag. It would decode to a frameless `Packet` whose re-encoding has
/// no frame at all, so the codec rejects PADDING-only packets (no cclab endpoint sends one).
#[test]
fn codec_padding_only_packet_is_rejected() {
    let q = QuicProfile::default();
    assert_eq!(
        decode(&datagram(&q, 4, 7, &[0x00]), &q, None),
        Err(DecodeError::Malformed("packet with only PADDING frames"))
    );
}

/// The hand-written seeds of the `quic_decode` fuzz target (layout in `fuzz/README.md`) are valid packets.
#[test]
fn codec_fuzz_corpus_seeds_decode() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/quic_decode");
    let mut seeds = 0;
    for path in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
        let data = std::fs::read(&path).unwrap();
        let (head, bytes) = data.split_at(10);
        let q = QuicProfile {
            max_udp_payload: 1472,
            dcid_len: u32::from(head[0] % 21),
            ipv6: head[1] & 1 != 0,
        };
        let largest = (head[1] & 2 != 0).then(|| u64::from_be_bytes(head[2..10].try_into().unwrap()));
        let p = decode(bytes, &q, largest).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(encoded(&p, &q), bytes, "{}", path.display());
        seeds += 1;
    }
    assert!(seeds >= 5, "{seeds} seeds");
}
