//! `TraceLog` with a `TraceSink`: events go to the sink as they happen, after any queued before it
//! was attached, in order; nothing is left for `pop`.

use cclab_core::endpoint::{Metrics, TraceEvent, TraceLog, TraceSink};
use cclab_core::time::Time;
use cclab_core::wire::packet::{AckFrame, AckRanges, DataChunk, Packet};
use std::sync::{Arc, Mutex};

/// A sink that keeps a copy of every event it is shown.
struct Recorder(Arc<Mutex<Vec<TraceEvent>>>);

impl TraceSink for Recorder {
    fn event(&mut self, ev: &TraceEvent) {
        self.0.lock().unwrap().push(ev.clone());
    }
    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }
}

fn data(pn: u64) -> Packet {
    Packet {
        pn,
        data: Some(DataChunk {
            offset: 1200 * pn,
            len: 1200,
            fin: false,
        }),
        ..Packet::default()
    }
}

fn ack(pn: u64) -> Packet {
    let mut ranges = AckRanges::default();
    ranges.push((0, pn));
    Packet {
        pn,
        ack: Some(Box::new(AckFrame {
            ranges,
            ..Default::default()
        })),
        ..Packet::default()
    }
}

#[test]
fn trace_sink_sees_queued_then_live_events_in_order() {
    let mut log = TraceLog::default();
    log.set(true);
    // Queued before the sink is attached: a copy goes to the queue.
    log.sent(Time(1), 1250, &data(0));
    log.push(TraceEvent::PtoExpired { time: Time(2) });
    let m = |cwnd| Metrics {
        cwnd,
        ..Metrics::default()
    };
    log.metrics(Time(2), &m(10));
    let seen = Arc::new(Mutex::new(Vec::new()));
    log.set_sink(Box::new(Recorder(seen.clone())));
    assert!(log.is_on());
    // Live: the sink sees each packet by reference.
    log.sent(Time(3), 1250, &data(1));
    log.sent(Time(4), 60, &ack(7));
    log.metrics(Time(4), &m(20));
    log.push(TraceEvent::PacketReceived {
        time: Time(5),
        size: 60,
        packet: ack(8),
    });
    assert!(log.pop().is_none(), "events went to the sink, not the queue");
    let sent = |t, size, packet| TraceEvent::PacketSent {
        time: Time(t),
        size,
        packet,
    };
    let want = vec![
        sent(1, 1250, data(0)),
        TraceEvent::PtoExpired { time: Time(2) },
        TraceEvent::Metrics {
            time: Time(2),
            metrics: m(10),
        },
        sent(3, 1250, data(1)),
        sent(4, 60, ack(7)),
        TraceEvent::Metrics {
            time: Time(4),
            metrics: m(20),
        },
        TraceEvent::PacketReceived {
            time: Time(5),
            size: 60,
            packet: ack(8),
        },
    ];
    assert_eq!(*seen.lock().unwrap(), want);
    // Detached, events queue again.
    assert!(log.take_sink().is_some());
    log.push(TraceEvent::PtoExpired { time: Time(6) });
    assert_eq!(log.pop(), Some(TraceEvent::PtoExpired { time: Time(6) }));
    assert_eq!(seen.lock().unwrap().len(), want.len());
}
