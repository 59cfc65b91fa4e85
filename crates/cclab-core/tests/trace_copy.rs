//! `TraceLog::copy_packet` reuses ACK frame boxes of drained events: a reused box must hold exactly the
//! new frame (no ranges, ECN counts or SACK count left from the frame it held before).

use cclab_core::endpoint::{TraceEvent, TraceLog};
use cclab_core::time::Time;
use cclab_core::wire::packet::{AckFrame, AckRanges, DataChunk, Packet};

fn ack_packet(pn: u64, ranges: &[(u64, u64)], ecn: Option<[u64; 3]>, sack: Option<u8>) -> Packet {
    let mut r = AckRanges::default();
    for &x in ranges {
        r.push(x);
    }
    Packet {
        pn,
        pn_len: 2,
        ack: Some(Box::new(AckFrame {
            ranges: r,
            ack_delay_ns: 25_000 * pn,
            ecn: ecn.map(Box::new),
            sack_blocks: sack,
        })),
        ping: pn % 2 == 1,
        ..Packet::default()
    }
}

fn sent(pn: u64, packet: Packet) -> TraceEvent {
    TraceEvent::PacketSent {
        time: Time(pn),
        size: 50,
        packet,
    }
}

#[test]
fn reused_ack_boxes_copy_exactly_and_drain_keeps_order() {
    let mut log = TraceLog::default();
    log.set(true);
    // Frames with many ranges (on the heap), ECN counts and a SACK count leave their boxes behind.
    let big: Vec<(u64, u64)> = (0..9).rev().map(|i| (10 * i, 10 * i + 5)).collect();
    for pn in 0..3 {
        let p = ack_packet(pn, &big, Some([pn, 2, 3]), Some(3));
        let copy = log.copy_packet(&p);
        assert_eq!(copy, p);
        log.push(sent(pn, copy));
    }
    let mut seen = Vec::new();
    log.drain(|ev| seen.push(ev.clone()));
    let want: Vec<TraceEvent> = (0..3)
        .map(|pn| sent(pn, ack_packet(pn, &big, Some([pn, 2, 3]), Some(3))))
        .collect();
    assert_eq!(seen, want);
    // Smaller frames now go into those boxes; each copy must equal the original, also after a drain.
    for pn in 3..10 {
        let p = ack_packet(pn, &[(pn, pn + 1)], None, None);
        let copy = log.copy_packet(&p);
        assert_eq!(copy, p);
        log.push(sent(pn, copy));
        if pn % 3 == 0 {
            log.drain(|_| {});
        }
    }
    // A packet without an ACK frame, and one with data, copy as they are.
    let data = Packet {
        pn: 11,
        data: Some(DataChunk {
            offset: 1200,
            len: 1200,
            fin: false,
        }),
        ..Packet::default()
    };
    assert_eq!(log.copy_packet(&data), data);
}
