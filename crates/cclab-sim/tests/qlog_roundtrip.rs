//! qlog traces read back by an independent parser: the `qlog` crate 0.15 (what quiche and
//! qvis-compatible tools use) for the 0.3 format, serde_json for the IETF format.
//!
//! Timeline of the synthetic sender trace (ms):
//!   0        parameters_set, recovery:parameters_set
//!   1.000123 pn 0 sent: STREAM 0..1200 + ACK_FREQUENCY
//!   1.5      pn 1 sent: IMMEDIATE_ACK + PING, 1-byte PN → 1 byte of PADDING (RFC 9001 §5.4.2)
//!   21.25    pn 7 received: ACK [0,3] [5,5] [10,12], delay 1.25 ms, ECN (3, 0, 1)
//!   22       pn 1 lost (time threshold); metrics; metrics with only cwnd changed; same again
//!   22       slow_start → recovery → probe_bw

use cclab_core::cc::CcState;
use cclab_core::endpoint::{Metrics, TraceEvent};
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::{AckFrame, AckFrequencyFrame, DataChunk, Packet};
use cclab_core::wire::size::{Profile, QuicProfile};
use cclab_sim::qlog::{QlogFormat, QlogParams, QlogWriter, Vantage};
use qlog::events::quic::{AckedRanges, PacketType, QuicFrame};
use qlog::events::EventData;

const ACK_FREQUENCY_TYPE: u64 = 0xaf;
const IMMEDIATE_ACK_TYPE: u64 = 0x1f;

fn profile() -> Profile {
    Profile::Quic(QuicProfile::default())
}

fn packets() -> [Packet; 3] {
    [
        Packet {
            pn: 0,
            pn_len: 1,
            data: Some(DataChunk {
                offset: 0,
                len: 1200,
                fin: false,
            }),
            ..Default::default()
        }
        .with_ack_frequency(AckFrequencyFrame {
            sequence: 0,
            ack_eliciting_threshold: 9,
            request_max_ack_delay_us: 2_500,
            reordering_threshold: 3,
        }),
        Packet {
            pn: 1,
            pn_len: 1,
            immediate_ack: true,
            ping: true,
            ..Default::default()
        },
        Packet {
            pn: 7,
            pn_len: 1,
            ack: Some(Box::new(AckFrame {
                ranges: vec![(10, 12), (5, 5), (0, 3)].into(),
                ack_delay_ns: 1_250_000,
                ecn: Some(Box::new([3, 0, 1])),
                sack_blocks: None,
            })),
            ..Default::default()
        },
    ]
}

fn metrics() -> Metrics {
    Metrics {
        cwnd: 14_720,
        bytes_in_flight: 2_504,
        smoothed_rtt: Dur::from_micros(20_250),
        min_rtt: Dur::from_millis(20),
        latest_rtt: Dur::from_micros(20_250),
        pacing_rate_bps: 7_180_487,
        delivery_rate_bps: 0,
        ssthresh: u64::MAX,
    }
}

fn events() -> Vec<TraceEvent> {
    let [p0, p1, p7] = packets();
    let size = |p: &Packet| profile().datagram_size(p);
    let t = Time(22_000_000);
    let m = metrics();
    let m2 = Metrics { cwnd: 7_360, ..m };
    vec![
        TraceEvent::PacketSent {
            time: Time(1_000_123),
            size: size(&p0),
            packet: p0,
        },
        TraceEvent::PacketSent {
            time: Time(1_500_000),
            size: size(&p1),
            packet: p1,
        },
        TraceEvent::PacketReceived {
            time: Time(21_250_000),
            size: size(&p7),
            packet: p7,
        },
        TraceEvent::PacketLost {
            time: t,
            pn: 1,
            trigger: "time_threshold",
        },
        TraceEvent::PtoExpired { time: t },
        TraceEvent::Metrics { time: t, metrics: m },
        TraceEvent::Metrics { time: t, metrics: m2 },
        TraceEvent::Metrics { time: t, metrics: m2 },
        TraceEvent::CongestionState {
            time: t,
            old: CcState::SlowStart,
            new: CcState::Recovery,
        },
        TraceEvent::CongestionState {
            time: t,
            old: CcState::Recovery,
            new: CcState::Other("probe_bw"),
        },
    ]
}

fn write(format: QlogFormat) -> Vec<u8> {
    let params = QlogParams {
        format,
        profile: profile(),
        max_ack_delay: Dur::from_millis(25),
        min_ack_delay: Some(Dur::from_millis(1)),
        cc_algorithm: Some("cubic".into()),
        initial_cwnd_bytes: Some(14_720),
    };
    let mut w = QlogWriter::new(Vec::new(), Vantage::Sender, "roundtrip \"test\"", &params).unwrap();
    for ev in &events() {
        w.write_event(ev).unwrap();
    }
    w.finish().unwrap()
}

/// Splits a JSON-SEQ file (RFC 7464 §2.2: RS, JSON text, LF) into its JSON texts.
fn records(bytes: &[u8]) -> Vec<&str> {
    let text = std::str::from_utf8(bytes).unwrap();
    assert!(text.starts_with('\u{1e}'), "file must start with a record separator");
    text.split('\u{1e}')
        .skip(1)
        .map(|r| {
            let body = r.strip_suffix('\n').expect("every record ends with a newline");
            assert!(!body.contains('\n'), "one line per record: {body}");
            serde_json::from_str::<serde_json::Value>(body).expect("every record is JSON");
            body
        })
        .collect()
}

/// Header, then 2 parameter events, 3 packets, 1 loss, 2 metrics (the third changes nothing),
/// 2 state changes.
const EXPECTED_EVENTS: usize = 11;

#[test]
fn qlog_v03_events_parse_as_typed_qlog_015_events() {
    let bytes = write(QlogFormat::V03);
    let recs = records(&bytes);
    assert_eq!(recs.len(), 1 + EXPECTED_EVENTS);

    let header: qlog::QlogSeq = serde_json::from_str(recs[0]).unwrap();
    assert_eq!(
        (header.qlog_version.as_str(), header.qlog_format.as_str()),
        ("0.3", "JSON-SEQ")
    );
    assert_eq!(header.title.as_deref(), Some("roundtrip \"test\""));
    assert_eq!(header.trace.vantage_point.ty, qlog::VantagePointType::Client);
    let common = header.trace.common_fields.unwrap();
    assert_eq!(common.time_format.as_deref(), Some("relative"));
    // Non-zero (qvis reads 0 as "no reference" and realigns each trace on its first event), and the
    // same for every trace so the sender's and receiver's events share one time line.
    assert_eq!(common.reference_time, Some(946_684_800_000.0));

    // Every record is a typed event: no top-level leftovers, and the crate's reader never
    // falls back to its untyped `JsonEvent` (it would skip records that fit neither).
    let evs: Vec<qlog::events::Event> = recs[1..]
        .iter()
        .map(|r| serde_json::from_str(r).unwrap_or_else(|e| panic!("untyped record {r}: {e}")))
        .collect();
    assert!(evs.iter().all(|e| e.ex_data.is_empty()));
    let reader = qlog::reader::QlogSeqReader::new(Box::new(std::io::Cursor::new(bytes.clone()))).unwrap();
    let read: Vec<_> = reader.collect();
    assert_eq!(read.len(), EXPECTED_EVENTS);
    assert!(read.iter().all(|e| matches!(e, qlog::reader::Event::Qlog(_))));

    let sizes = packets().map(|p| profile().datagram_size(&p) as u64);
    match &evs[0].data {
        EventData::TransportParametersSet(p) => {
            assert_eq!(
                (p.max_ack_delay, p.max_udp_payload_size, p.ack_delay_exponent),
                (Some(25), Some(1472), Some(3))
            );
            // min_ack_delay 1000 µs as a 2-byte varint: 0x4000 | 1000 = 0x43e8.
            assert_eq!(p.unknown_parameters[0].id, 0xff04de1b);
            assert_eq!(p.unknown_parameters[0].value, "43e8");
        }
        d => panic!("expected parameters_set, got {d:?}"),
    }
    match &evs[1].data {
        EventData::RecoveryParametersSet(p) => {
            assert_eq!(
                (p.initial_congestion_window, p.max_datagram_size),
                (Some(14_720), Some(1472))
            )
        }
        d => panic!("expected recovery parameters_set, got {d:?}"),
    }
    match &evs[2].data {
        EventData::PacketSent(p) => {
            assert_eq!(p.header.packet_type, PacketType::OneRtt);
            assert_eq!(p.header.packet_number, Some(0));
            assert_eq!(p.raw.as_ref().unwrap().length, Some(sizes[0]));
            let frames = p.frames.as_ref().unwrap();
            assert_eq!(frames.len(), 2);
            assert!(matches!(
                frames[0],
                QuicFrame::Unknown {
                    raw_frame_type: ACK_FREQUENCY_TYPE,
                    ..
                }
            ));
            assert!(matches!(
                frames[1],
                QuicFrame::Stream {
                    stream_id: 0,
                    offset: 0,
                    length: 1200,
                    ..
                }
            ));
        }
        d => panic!("expected packet_sent, got {d:?}"),
    }
    assert!((evs[2].time - 1.000123).abs() < 1e-6);
    match &evs[3].data {
        EventData::PacketSent(p) => {
            assert_eq!(p.header.packet_number, Some(1));
            assert_eq!(p.raw.as_ref().unwrap().length, Some(sizes[1]));
            let f = p.frames.as_ref().unwrap();
            assert!(matches!(
                f[0],
                QuicFrame::Unknown {
                    raw_frame_type: IMMEDIATE_ACK_TYPE,
                    ..
                }
            ));
            assert!(matches!(f[1], QuicFrame::Ping { .. }));
            // pn_len 1 + IMMEDIATE_ACK 1 + PING 1 = 3 < 4 → one byte of padding.
            assert!(matches!(f[2], QuicFrame::Padding { payload_length: 1, .. }));
        }
        d => panic!("expected packet_sent, got {d:?}"),
    }
    match &evs[4].data {
        EventData::PacketReceived(p) => {
            assert_eq!(p.header.packet_number, Some(7));
            assert_eq!(p.raw.as_ref().unwrap().length, Some(sizes[2]));
            let Some(QuicFrame::Ack {
                ack_delay,
                acked_ranges,
                ect0,
                ect1,
                ce,
                ..
            }) = p.frames.as_ref().unwrap().first()
            else {
                panic!("expected an ACK frame")
            };
            assert_eq!(*ack_delay, Some(1.25));
            let ranges: Vec<(u64, u64)> = match acked_ranges.as_ref().unwrap() {
                AckedRanges::Single(v) => v.iter().map(|r| (r[0], r[1])).collect(),
                AckedRanges::Double(v) => v.clone(),
            };
            assert_eq!(ranges, vec![(0, 3), (5, 5), (10, 12)]);
            assert_eq!((*ect0, *ect1, *ce), (Some(3), Some(0), Some(1)));
        }
        d => panic!("expected packet_received, got {d:?}"),
    }
    match &evs[5].data {
        EventData::PacketLost(p) => {
            assert_eq!(p.header.as_ref().unwrap().packet_number, Some(1));
            assert_eq!(p.trigger, Some(qlog::events::quic::PacketLostTrigger::TimeThreshold));
        }
        d => panic!("expected packet_lost, got {d:?}"),
    }
    match &evs[6].data {
        EventData::LossTimerUpdated(l) => {
            assert_eq!(l.timer_type, Some(qlog::events::quic::TimerType::Pto));
            assert_eq!(l.event_type, qlog::events::quic::LossTimerEventType::Expired);
        }
        d => panic!("expected loss_timer_updated, got {d:?}"),
    }
    match (&evs[7].data, &evs[8].data) {
        (EventData::MetricsUpdated(a), EventData::MetricsUpdated(b)) => {
            assert_eq!(
                (a.congestion_window, a.bytes_in_flight, a.pacing_rate),
                (Some(14_720), Some(2_504), Some(7_180_487))
            );
            assert_eq!((a.min_rtt, a.smoothed_rtt, a.ssthresh), (Some(20.0), Some(20.25), None));
            let only_cwnd = qlog::events::quic::MetricsUpdated {
                congestion_window: Some(7_360),
                ..Default::default()
            };
            assert_eq!(b, &only_cwnd);
        }
        d => panic!("expected two metrics_updated, got {d:?}"),
    }
    match &evs[10].data {
        EventData::CongestionStateUpdated(c) => {
            assert_eq!((c.old.as_deref(), c.new.as_str()), (Some("recovery"), "probe_bw"))
        }
        d => panic!("expected congestion_state_updated, got {d:?}"),
    }
}

#[test]
fn qlog_output_is_byte_identical_for_identical_input() {
    assert_eq!(write(QlogFormat::V03), write(QlogFormat::V03));
    assert_eq!(write(QlogFormat::Ietf), write(QlogFormat::Ietf));
}

#[test]
fn qlog_ietf_uses_draft_names_and_fields() {
    let bytes = write(QlogFormat::Ietf);
    let recs: Vec<serde_json::Value> = records(&bytes)
        .iter()
        .map(|r| serde_json::from_str(r).unwrap())
        .collect();
    assert_eq!(recs.len(), 1 + EXPECTED_EVENTS);
    let h = &recs[0];
    assert_eq!(h["file_schema"], "urn:ietf:params:qlog:file:sequential");
    assert_eq!(h["serialization_format"], "application/qlog+json-seq");
    assert_eq!(h["trace"]["common_fields"]["reference_time"]["clock_type"], "monotonic");
    assert_eq!(h["trace"]["event_schemas"][0], "urn:ietf:params:qlog:events:quic-12");
    let names: Vec<&str> = recs[1..].iter().map(|e| e["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "quic:parameters_set",
            "quic:recovery_parameters_set",
            "quic:packet_sent",
            "quic:packet_sent",
            "quic:packet_received",
            "quic:packet_lost",
            "quic:loss_timer_updated",
            "quic:recovery_metrics_updated",
            "quic:recovery_metrics_updated",
            "quic:congestion_state_updated",
            "quic:congestion_state_updated",
        ]
    );
    assert_eq!(recs[1]["data"]["initiator"], "local");
    let sent = &recs[3]["data"]["frames"];
    assert_eq!(sent[0]["frame_type_bytes"], ACK_FREQUENCY_TYPE);
    assert_eq!(sent[0]["request_max_ack_delay"].as_f64(), Some(2.5));
    assert_eq!(sent[1]["raw"]["payload_length"], 1200);
    assert!(sent[1].get("length").is_none());
    // quic-events -12: a one-packet range is written [n].
    let ack = &recs[5]["data"]["frames"][0];
    assert_eq!(ack["acked_ranges"], serde_json::json!([[0, 3], [5], [10, 12]]));
    assert_eq!(recs[4]["data"]["frames"][2]["raw"]["payload_length"], 1);
}
