//! `CongestionEvent::next_pn`: the SND.NXT an ACK hands the controller (HyStart's rounds start at it)
//! is the one the sends up to it would have told, through losses, retransmissions and a PTO's probes.
//!
//! A controller that counts its sends, as HyStart++ and Linux's HyStart did before they took SND.NXT
//! from the ACK, wraps CUBIC with HyStart++ and compares the two on every event of a transfer over
//! the driver's path with every 40th data packet and the first packet carrying the FIN dropped.

mod sender_pair;

use cclab_core::cc::{CcConfig, CcState, CongestionController, CongestionEvent, CubicConfig, SendGate};
use cclab_core::endpoint::sender::Sender;
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::{Endpoint, TraceEvent};
use cclab_core::time::{Dur, Time};
use cclab_core::units::Bytes;
use cclab_core::wire::packet::FlowId;
use cclab_core::wire::size::{Profile, QuicProfile};
use sender_pair::{unpaced, Pair, MSS};
use std::sync::{Arc, Mutex};

/// Per event: the SND.NXT it carried and the one the sends told.
type Log = Arc<Mutex<Vec<(u64, u64)>>>;

struct CountsSends {
    inner: Box<dyn CongestionController>,
    next_pn: u64,
    log: Log,
}

impl CongestionController for CountsSends {
    fn on_packet_sent(&mut self, now: Time, pn: u64, bytes: u64, bytes_in_flight: u64) {
        self.next_pn = self.next_pn.max(pn + 1);
        self.inner.on_packet_sent(now, pn, bytes, bytes_in_flight);
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent<'_>) {
        self.log.lock().unwrap().push((ev.next_pn, self.next_pn));
        self.inner.on_congestion_event(ev);
    }
    fn on_persistent_congestion(&mut self, now: Time) {
        self.inner.on_persistent_congestion(now);
    }
    fn on_pto(&mut self, now: Time) {
        self.inner.on_pto(now);
    }
    fn window(&self) -> u64 {
        self.inner.window()
    }
    fn ssthresh(&self) -> u64 {
        self.inner.ssthresh()
    }
    fn send_gate(&self) -> SendGate {
        self.inner.send_gate()
    }
    fn state(&self) -> CcState {
        self.inner.state()
    }
    fn name(&self) -> &'static str {
        "counts-sends"
    }
}

#[test]
fn snd_nxt_at_the_ack_is_what_the_sends_told_through_losses_and_a_pto() {
    let log = Log::default();
    let profile = Profile::Quic(QuicProfile::default());
    let cubic = CcConfig::Cubic(CubicConfig::default()).build(Time::ZERO, MSS);
    let size = 600 * MSS;
    let s = Sender::with_controller(
        FlowId(0),
        profile,
        &unpaced(),
        Box::new(CountsSends {
            inner: cubic,
            next_pn: 0,
            log: log.clone(),
        }),
        &SourceConfig::Bulk { size: Bytes(size) },
        Time::ZERO,
    );
    let mut p = Pair::new(s, Dur::from_millis(10), 100_000_000);
    let mut fin_dropped = false;
    p.drop_data = Box::new(move |_, d| {
        let fin = d.packet.data.is_some_and(|c| c.fin) && !fin_dropped;
        fin_dropped |= fin;
        d.packet.pn % 40 == 39 || fin
    });
    p.run_until(Time(10_000_000_000), |p| p.sender.is_done());
    assert!(
        p.receiver.complete(p.receiver.fin_offset.unwrap()),
        "the transfer completed"
    );
    assert!(p.sender.stats().lost_packets >= 10, "{:?}", p.sender.stats());
    assert!(
        p.events.iter().any(|e| matches!(e, TraceEvent::PtoExpired { .. })),
        "a PTO fired"
    );
    let log = log.lock().unwrap();
    assert!(log.len() > 100, "{} events", log.len());
    let differ: Vec<_> = log.iter().filter(|(ack, sends)| ack != sends).collect();
    assert!(differ.is_empty(), "{differ:?}");
}
