//! The text of each packet-record shape, in both schemas: the writer builds packet records from
//! merged fragments (a frame's opener closes the previous frame) and memoised numbers, so every
//! frame combination is pinned here to the text the field-by-field writer produced.

use cclab_core::endpoint::TraceEvent;
use cclab_core::time::Time;
use cclab_core::wire::packet::{AckFrame, DataChunk, Packet};
use cclab_core::wire::size::{Profile, QuicProfile};
use cclab_sim::qlog::{QlogFormat, QlogParams, QlogWriter, Vantage};

/// Record texts (RS and newline stripped) of `packets`, sent at 1 ms steps; the header and
/// parameter records are skipped.
fn records(format: QlogFormat, packets: Vec<Packet>) -> Vec<String> {
    let params = QlogParams {
        format,
        profile: Profile::Quic(QuicProfile::default()),
        ..Default::default()
    };
    let mut w = QlogWriter::new(Vec::new(), Vantage::Sender, "shapes", &params).unwrap();
    for (i, packet) in packets.into_iter().enumerate() {
        let time = Time(1_000_000 * i as u64 + 7);
        w.write_event(&TraceEvent::PacketSent {
            time,
            size: 1500,
            packet,
        })
        .unwrap();
    }
    let text = String::from_utf8(w.finish().unwrap()).unwrap();
    text.split('\u{1e}').skip(3).map(|r| r.trim_end().to_string()).collect()
}

fn ack(ranges: Vec<(u64, u64)>, ecn: bool) -> Option<Box<AckFrame>> {
    Some(Box::new(AckFrame {
        ranges: ranges.into(),
        ack_delay_ns: 1_250_000,
        ecn: ecn.then(|| Box::new([3, 0, 1])),
        sack_blocks: None,
    }))
}

fn shapes() -> Vec<Packet> {
    let data = |offset, len, fin| Some(DataChunk { offset, len, fin });
    vec![
        // A data packet, then the next one (number + 1, same length), then a carry (19 → 20).
        Packet {
            pn: 18,
            pn_len: 4,
            data: data(123_456_789_012, 1200, false),
            ..Default::default()
        },
        Packet {
            pn: 19,
            pn_len: 4,
            data: data(123_456_790_212, 1200, true),
            ..Default::default()
        },
        Packet {
            pn: 20,
            pn_len: 4,
            ack: ack(vec![(10, 12), (5, 5), (0, 3)], true),
            ping: true,
            data: data(5, 3, false),
            ..Default::default()
        },
        Packet {
            pn: 21,
            pn_len: 1,
            ack: ack(vec![], false),
            ..Default::default()
        },
        Packet {
            pn: 22,
            pn_len: 1,
            immediate_ack: true,
            ..Default::default()
        },
        Packet {
            pn: 23,
            pn_len: 4,
            ..Default::default()
        },
    ]
}

const HEAD_V03: &str =
    r#"{"time":{T},"name":"transport:packet_sent","data":{"header":{"packet_type":"1RTT","packet_number":"#;
const HEAD_IETF: &str =
    r#"{"time":{T},"name":"quic:packet_sent","data":{"header":{"packet_type":"1RTT","packet_number":"#;

/// Each record after its packet number, the time filled in.
fn expected(head: &str, tails: [&str; 6]) -> Vec<String> {
    let times = ["0.000007", "1.000007", "2.000007", "3.000007", "4.000007", "5.000007"];
    tails
        .iter()
        .zip(times)
        .map(|(tail, t)| format!("{}{tail}", head.replace("{T}", t)))
        .collect()
}

#[test]
fn qlog_packet_shapes_v03_write_every_frame_combination() {
    let want = expected(
        HEAD_V03,
        [
            r#"18},"raw":{"length":1500},"frames":[{"frame_type":"stream","stream_id":0,"offset":123456789012,"length":1200}]}}"#,
            r#"19},"raw":{"length":1500},"frames":[{"frame_type":"stream","stream_id":0,"offset":123456790212,"length":1200,"fin":true}]}}"#,
            r#"20},"raw":{"length":1500},"frames":[{"frame_type":"ack","ack_delay":1.250000,"acked_ranges":[[0,3],[5,5],[10,12]],"ect1":0,"ect0":3,"ce":1},{"frame_type":"ping"},{"frame_type":"stream","stream_id":0,"offset":5,"length":3}]}}"#,
            r#"21},"raw":{"length":1500},"frames":[{"frame_type":"ack","ack_delay":1.250000,"acked_ranges":[]},{"frame_type":"padding","payload_length":3}]}}"#,
            r#"22},"raw":{"length":1500},"frames":[{"frame_type":"unknown","raw_frame_type":31},{"frame_type":"padding","payload_length":2}]}}"#,
            r#"23},"raw":{"length":1500},"frames":[]}}"#,
        ],
    );
    assert_eq!(records(QlogFormat::V03, shapes()), want);
}

#[test]
fn qlog_packet_shapes_ietf_write_every_frame_combination() {
    let want = expected(
        HEAD_IETF,
        [
            r#"18},"raw":{"length":1500},"frames":[{"frame_type":"stream","stream_id":0,"offset":123456789012,"raw":{"payload_length":1200}}]}}"#,
            r#"19},"raw":{"length":1500},"frames":[{"frame_type":"stream","stream_id":0,"offset":123456790212,"fin":true,"raw":{"payload_length":1200}}]}}"#,
            r#"20},"raw":{"length":1500},"frames":[{"frame_type":"ack","ack_delay":1.250000,"acked_ranges":[[0,3],[5],[10,12]],"ect1":0,"ect0":3,"ce":1},{"frame_type":"ping"},{"frame_type":"stream","stream_id":0,"offset":5,"raw":{"payload_length":3}}]}}"#,
            r#"21},"raw":{"length":1500},"frames":[{"frame_type":"ack","ack_delay":1.250000,"acked_ranges":[]},{"frame_type":"padding","raw":{"payload_length":3}}]}}"#,
            r#"22},"raw":{"length":1500},"frames":[{"frame_type":"unknown","frame_type_bytes":31},{"frame_type":"padding","raw":{"payload_length":2}}]}}"#,
            r#"23},"raw":{"length":1500},"frames":[]}}"#,
        ],
    );
    assert_eq!(records(QlogFormat::Ietf, shapes()), want);
}

/// A run with thousands of traces gives each a small buffer (`buffered_chunk_bytes`): the same text
/// comes out whatever the chunk, even for records larger than the buffer's room past its chunk (an
/// ACK of 2,000 ranges is ~30 KB: the buffer grows for it).
#[test]
fn small_trace_buffers_write_the_same_text() {
    use cclab_sim::qlog::buffered_chunk_bytes;
    assert_eq!(buffered_chunk_bytes(2), 256 * 1024);
    assert_eq!(buffered_chunk_bytes(2_000), (64 << 20) / 2_000);
    assert_eq!(buffered_chunk_bytes(20_000), 16 * 1024);
    let mut packets = shapes();
    let wide: Vec<(u64, u64)> = (0..2_000u64).rev().map(|k| (10 * k, 10 * k + 3)).collect();
    packets.insert(
        3,
        Packet {
            pn: 30_000,
            pn_len: 4,
            ack: ack(wide, false),
            ..Default::default()
        },
    );
    let write = |chunk: usize| {
        let params = QlogParams {
            format: QlogFormat::V03,
            profile: Profile::Quic(QuicProfile::default()),
            ..Default::default()
        };
        let mut w = QlogWriter::with_chunk(Vec::new(), Vantage::Sender, "shapes", &params, chunk).unwrap();
        for _ in 0..50 {
            for (i, packet) in packets.iter().enumerate() {
                let ev = TraceEvent::PacketSent {
                    time: Time(1_000_000 * i as u64 + 7),
                    size: 1500,
                    packet: packet.clone(),
                };
                w.write_event(&ev).unwrap();
            }
        }
        w.finish().unwrap()
    };
    let whole = write(256 * 1024);
    assert!(whole.len() > 1_000_000, "{} bytes", whole.len());
    for chunk in [1, 4096, 16 * 1024] {
        assert!(write(chunk) == whole, "chunk {chunk}");
    }
}
