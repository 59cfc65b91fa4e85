//! A two-endpoint driver for sender tests, with one virtual clock:
//!
//! ```text
//!   Sender ──[FIFO, rate_bps, latency]──▶ FakeReceiver
//!      ▲                                      │ one ACK per packet, at once, all ranges
//!      └──────────────[latency]───────────────┘
//! ```
//!
//! The driver tracks every packet's fate (in flight, acked, lost) from the wire and the
//! sender's trace, and checks conservation of packets and bytes in flight at every step.
#![allow(dead_code)]

use cclab_core::cc::{CcConfig, NewRenoConfig};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::{Endpoint, TraceEvent};
use cclab_core::time::{transmission_time, Dur, Time};
use cclab_core::wire::packet::{AckFrame, Datagram, Ecn, FlowId, Packet};
use cclab_core::wire::size::{Profile, QuicProfile};
use std::collections::VecDeque;

/// Full-sized packet bytes in flight with the default QUIC profile (max_udp_payload).
pub(crate) const MSS: u64 = 1472;

/// Fate of one sent packet, as the driver sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fate {
    InFlight,
    Acked,
    Lost,
}

/// One sent packet.
#[derive(Clone, Debug)]
pub(crate) struct SentLog {
    pub time: Time,
    pub pn: u64,
    pub bytes: u64,
    pub packet: Packet,
    pub ecn: Ecn,
    pub fate: Fate,
}

/// One ACK delivered to the sender.
#[derive(Clone, Debug)]
pub(crate) struct AckLog {
    pub time: Time,
    pub cwnd_before: u64,
    pub cwnd_after: u64,
    /// Newly acknowledged packet numbers.
    pub acked: Vec<u64>,
    /// Packet numbers the sender declared lost while processing it.
    pub lost: Vec<u64>,
}

/// Receives data packets, reassembles the stream, ACKs every packet at once.
#[derive(Default)]
pub(crate) struct FakeReceiver {
    /// Received packet numbers, inclusive ranges, lowest first.
    pub pns: Vec<(u64, u64)>,
    /// Received stream bytes, half-open ranges, lowest first.
    pub bytes: Vec<(u64, u64)>,
    pub fin_offset: Option<u64>,
    pub ecn_counts: [u64; 3],
}

fn insert(r: &mut Vec<(u64, u64)>, lo: u64, hi: u64, adjacent: u64) {
    r.push((lo, hi));
    r.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(r.len());
    for &(a, b) in r.iter() {
        match out.last_mut() {
            Some(l) if a <= l.1 + adjacent => l.1 = l.1.max(b),
            _ => out.push((a, b)),
        }
    }
    *r = out;
}

impl FakeReceiver {
    fn on_packet(&mut self, d: &Datagram) -> Packet {
        let p = &d.packet;
        insert(&mut self.pns, p.pn, p.pn, 1);
        if let Some(c) = p.data {
            if c.len > 0 {
                insert(&mut self.bytes, c.offset, c.offset + c.len as u64, 0);
            }
            if c.fin {
                self.fin_offset = Some(c.offset + c.len as u64);
            }
        }
        match d.ecn {
            Ecn::Ect0 => self.ecn_counts[0] += 1,
            Ecn::Ect1 => self.ecn_counts[1] += 1,
            Ecn::Ce => self.ecn_counts[2] += 1,
            Ecn::NotEct => {}
        }
        let ranges = self.pns.iter().rev().copied().collect();
        let ecn = (d.ecn != Ecn::NotEct || self.ecn_counts != [0; 3]).then(|| Box::new(self.ecn_counts));
        Packet {
            pn: 0,
            pn_len: 1,
            ack: Some(Box::new(AckFrame {
                ranges,
                ack_delay_ns: 0,
                ecn,
                sack_blocks: None,
            })),
            ..Default::default()
        }
    }

    /// Whether the stream arrived complete: bytes `0..size` and the FIN at `size`.
    pub(crate) fn complete(&self, size: u64) -> bool {
        self.fin_offset == Some(size) && (size == 0 || self.bytes == vec![(0, size)])
    }
}

type Filter = Box<dyn FnMut(Time, &Datagram) -> bool>;

/// The driver.
pub(crate) struct Pair {
    pub now: Time,
    pub sender: Sender,
    pub profile: Profile,
    pub latency: Dur,
    pub rate_bps: u64,
    pub receiver: FakeReceiver,
    /// Drops a data packet on the forward link when it returns true.
    pub drop_data: Filter,
    /// Drops an ACK on the return path when it returns true.
    pub drop_ack: Filter,
    /// CE-marks a data packet when it returns true.
    pub mark_ce: Filter,
    pub sent: Vec<SentLog>,
    pub acks: Vec<AckLog>,
    pub events: Vec<TraceEvent>,
    pub steps: u64,
    link_free: Time,
    to_receiver: VecDeque<(Time, Datagram)>,
    to_sender: VecDeque<(Time, Datagram)>,
    in_flight_bytes: u64,
    counts: [u64; 3],
}

/// A sender with NewReno and the default QUIC profile.
pub(crate) fn sender(cfg: &SenderConfig, cc: &NewRenoConfig, source: &SourceConfig) -> Sender {
    let profile = Profile::Quic(QuicProfile::default());
    Sender::new(
        FlowId(0),
        profile,
        cfg,
        &CcConfig::NewReno(cc.clone()),
        source,
        Time::ZERO,
    )
}

/// Sender config with pacing off (bursts at the window, simple closed forms).
pub(crate) fn unpaced() -> SenderConfig {
    let mut c = SenderConfig::default();
    c.pacing.enabled = false;
    c
}

impl Pair {
    pub(crate) fn new(mut sender: Sender, latency: Dur, rate_bps: u64) -> Pair {
        sender.set_tracing(true);
        Pair {
            now: Time::ZERO,
            sender,
            profile: Profile::Quic(QuicProfile::default()),
            latency,
            rate_bps,
            receiver: FakeReceiver::default(),
            drop_data: Box::new(|_, _| false),
            drop_ack: Box::new(|_, _| false),
            mark_ce: Box::new(|_, _| false),
            sent: Vec::new(),
            acks: Vec::new(),
            events: Vec::new(),
            steps: 0,
            link_free: Time::ZERO,
            to_receiver: VecDeque::new(),
            to_sender: VecDeque::new(),
            in_flight_bytes: 0,
            counts: [0; 3],
        }
    }

    fn cwnd(&self) -> u64 {
        self.sender.metrics().cwnd
    }

    fn fate(&mut self, pn: u64, to: Fate) {
        let s = &mut self.sent[pn as usize];
        assert_eq!(s.fate, Fate::InFlight, "pn {pn} -> {to:?}");
        s.fate = to;
        self.in_flight_bytes -= s.bytes;
        self.counts[0] -= 1;
        self.counts[if to == Fate::Acked { 1 } else { 2 }] += 1;
    }

    /// Drains the sender's trace; returns the packets it declared lost.
    fn drain_events(&mut self) -> Vec<u64> {
        let mut lost = Vec::new();
        while let Some(e) = self.sender.poll_event() {
            if let TraceEvent::PacketLost { pn, .. } = e {
                lost.push(pn);
            }
            self.events.push(e);
        }
        for &pn in &lost {
            self.fate(pn, Fate::Lost);
        }
        lost
    }

    fn on_send(&mut self, mut d: Datagram) {
        let bytes = self.profile.in_flight_size(&d.packet) as u64;
        assert_eq!(d.packet.pn, self.sent.len() as u64, "packet numbers are consecutive");
        self.sent.push(SentLog {
            time: self.now,
            pn: d.packet.pn,
            bytes,
            packet: d.packet.clone(),
            ecn: d.ecn,
            fate: Fate::InFlight,
        });
        self.in_flight_bytes += bytes;
        self.counts[0] += 1;
        if (self.drop_data)(self.now, &d) {
            return;
        }
        if (self.mark_ce)(self.now, &d) {
            d.ecn = Ecn::Ce;
        }
        let depart = self.link_free.max(self.now) + transmission_time(d.size as u64, self.rate_bps);
        self.link_free = depart;
        self.to_receiver.push_back((depart + self.latency, d));
    }

    /// Conservation: sent = acked + in flight + lost, and the sender's bytes in flight and
    /// lost count match the driver's view.
    pub(crate) fn check_conservation(&self) {
        let [f, a, l] = self.counts;
        assert_eq!(f + a + l, self.sent.len() as u64);
        assert_eq!(self.sender.stats().datagrams_sent, self.sent.len() as u64);
        assert_eq!(self.sender.bytes_in_flight(), self.in_flight_bytes, "t={}", self.now);
        assert_eq!(self.sender.stats().lost_packets, l);
        // The window and pacing rate the sender keeps between inputs (`kept_gate.rs`) never go stale.
        assert_ne!(self.sender.kept_gate_matches(), Some(false), "t={}", self.now);
    }

    /// One step: send what the sender allows, jump to the next event, deliver, fire timers.
    /// Returns false when nothing is pending.
    pub(crate) fn step(&mut self) -> bool {
        self.steps += 1;
        while let Some(d) = self.sender.poll_transmit(self.now) {
            self.on_send(d);
        }
        self.drain_events();
        self.check_conservation();
        let next = [
            self.to_receiver.front().map(|x| x.0),
            self.to_sender.front().map(|x| x.0),
            self.sender.poll_timeout(),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(next) = next else { return false };
        self.now = self.now.max(next);
        while self.to_receiver.front().is_some_and(|x| x.0 <= self.now) {
            let (_, d) = self.to_receiver.pop_front().unwrap();
            let ack = self.receiver.on_packet(&d);
            let a = Datagram {
                flow: d.flow,
                size: self.profile.datagram_size(&ack),
                ecn: Ecn::NotEct,
                packet: ack,
            };
            if !(self.drop_ack)(self.now, &a) {
                self.to_sender.push_back((self.now + self.latency, a));
            }
        }
        while self.to_sender.front().is_some_and(|x| x.0 <= self.now) {
            let (_, d) = self.to_sender.pop_front().unwrap();
            self.deliver_ack(d);
        }
        if self.sender.poll_timeout().is_some_and(|t| t <= self.now) {
            self.sender.handle_timeout(self.now);
            self.drain_events();
        }
        self.check_conservation();
        true
    }

    fn deliver_ack(&mut self, d: Datagram) {
        let mut acked = Vec::new();
        for &(lo, hi) in d.packet.ack.as_ref().unwrap().ranges.iter().rev() {
            for pn in lo..=hi {
                if self.sent[pn as usize].fate == Fate::InFlight {
                    acked.push(pn);
                }
            }
        }
        for &pn in &acked {
            self.fate(pn, Fate::Acked);
        }
        let cwnd_before = self.cwnd();
        self.sender.handle_datagram(self.now, d);
        let lost = self.drain_events();
        self.acks.push(AckLog {
            time: self.now,
            cwnd_before,
            cwnd_after: self.cwnd(),
            acked,
            lost,
        });
    }

    /// Steps until `done` holds; panics past `limit` of virtual time or on a stall.
    pub(crate) fn run_until(&mut self, limit: Time, mut done: impl FnMut(&Pair) -> bool) {
        let mut same_time = 0;
        while !done(self) {
            let before = self.now;
            assert!(self.step(), "nothing pending at {}", self.now);
            assert!(self.now <= limit, "time limit {} reached", limit);
            same_time = if self.now == before { same_time + 1 } else { 0 };
            assert!(same_time < 10_000, "livelock at {}", self.now);
        }
    }
}

/// The random seed of a randomised test: `CCLAB_SEED`, default 7; printed so a failure can be replayed.
pub(crate) fn seed() -> u64 {
    let s = std::env::var("CCLAB_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    println!("seed {s}");
    s
}

/// An ACK-only datagram acknowledging `ranges` (inclusive, highest first, with gaps between them).
pub(crate) fn ack_of(ranges: &[(u64, u64)]) -> Datagram {
    Datagram {
        flow: FlowId(0),
        size: 64,
        ecn: Ecn::NotEct,
        packet: Packet {
            ack: Some(Box::new(AckFrame {
                ranges: ranges.to_vec().into(),
                ..AckFrame::default()
            })),
            ..Default::default()
        },
    }
}
