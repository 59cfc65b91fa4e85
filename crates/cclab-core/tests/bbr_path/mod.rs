//! A tiny model of one bottleneck for driving BBR without the simulator.
//!
//! ```text
//!   sender ──(no delay)──▶ [FIFO, rate R] ──(base RTT, all of the propagation)──▶ ACK at sender
//! ```
//!
//! A packet sent at `s` leaves the bottleneck at `d = max(s, d_prev + mss/R)` and is
//! acknowledged at `d + base_rtt(s)`. So an unqueued packet sees an RTT of exactly the base RTT,
//! packets leave at most at rate R, and every delivery-rate sample is at most R: back-to-back
//! ACKs are `mss/R` apart. One ACK per packet, no loss. The sender paces at BBR's rate
//! (`next_send = now + size / pacing_rate`, draft-00 §4.2.1), respects its window, and takes
//! rate samples from the real `DeliveryRate` estimator.
//!
//! With `aggregation` set, the receiver acknowledges only at multiples of an interval I: one ACK
//! at `ceil(x / I) · I` covers every packet whose own ACK time `x` fell since the previous one.
//! A delivery-rate sample may then exceed R by up to one packet per interval.
// Each test file uses a different part of the driver.
#![allow(dead_code)]

use cclab_core::cc::{AckedPacket, Bbr, BbrConfig, CongestionController, CongestionEvent, RateSample};
use cclab_core::recovery::delivery_rate::{DeliveryRate, PacketDelivery};
use cclab_core::recovery::rtt::{RttEstimator, INITIAL_RTT};
use cclab_core::time::{Dur, Time};
use std::collections::VecDeque;

/// Packet size, bytes.
pub(crate) const MSS: u64 = 1200;
/// Bottleneck rate R, bytes/s (10 Mbit/s).
pub(crate) const RATE: f64 = 1.25e6;
/// Default base RTT T.
pub(crate) const RTT: Dur = Dur::from_millis(40);
/// Serialisation time of one packet at R: 1200 B / 1.25 MB/s = 0.96 ms.
pub(crate) const SER: Dur = Dur::from_micros(960);

/// What the application offers.
#[derive(Clone, Copy, Debug)]
pub(crate) enum App {
    /// Always has data.
    Bulk,
    /// One packet every `every`; `mark` says whether the sender tells the rate estimator it is
    /// application limited when it runs out of data (draft-cheng §3.4).
    Periodic { every: Dur, next: Time, mark: bool },
}

struct InFlight {
    pn: u64,
    sent: Time,
    ack_at: Time,
    snap: PacketDelivery,
}

/// Aggregated ACKs: one every `every`, for packets whose own ACK time is before `until`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Aggregation {
    pub(crate) every: Dur,
    /// A multiple of `every`, so that ACK times stay in order when aggregation stops.
    pub(crate) until: Time,
}

/// What one ACK did.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ack {
    /// Bytes in flight before this ACK.
    pub(crate) prior_in_flight: u64,
    /// The rate sample handed to BBR.
    pub(crate) rs: Option<RateSample>,
    /// `state()` before this ACK.
    pub(crate) state_before: &'static str,
    /// Bytes delivered so far, this ACK included (`C.delivered`).
    pub(crate) delivered: u64,
}

/// One BBR flow over the bottleneck.
pub(crate) struct Path {
    pub(crate) bbr: Bbr,
    pub(crate) now: Time,
    pub(crate) bytes_in_flight: u64,
    pub(crate) app: App,
    /// Base RTT of the path (default `RTT`).
    pub(crate) base_rtt: Dur,
    /// From this send time on, the base RTT is the second value (a route change).
    pub(crate) rtt_change: Option<(Time, Dur)>,
    /// ACKs arrive in aggregates (default: one ACK per packet).
    pub(crate) aggregation: Option<Aggregation>,
    rtt: RttEstimator,
    rate: DeliveryRate,
    flight: VecDeque<InFlight>,
    next_pn: u64,
    next_send: Time,
    last_departure: Option<Time>,
}

impl Path {
    /// A bulk flow with the default BBR parameters and `seed`.
    pub(crate) fn new(seed: u64) -> Path {
        Path::with_config(&BbrConfig {
            seed,
            ..BbrConfig::default()
        })
    }

    /// A bulk flow with BBR configured by `cfg`.
    pub(crate) fn with_config(cfg: &BbrConfig) -> Path {
        Path {
            bbr: Bbr::new(cfg, Time::ZERO, MSS),
            now: Time::ZERO,
            bytes_in_flight: 0,
            app: App::Bulk,
            base_rtt: RTT,
            rtt_change: None,
            aggregation: None,
            rtt: RttEstimator::new(INITIAL_RTT),
            rate: DeliveryRate::new(),
            flight: VecDeque::new(),
            next_pn: 0,
            next_send: Time::ZERO,
            last_departure: None,
        }
    }

    /// BBR's state name.
    pub(crate) fn state(&self) -> &'static str {
        self.bbr.state().name()
    }

    fn base_rtt(&self, sent: Time) -> Dur {
        match self.rtt_change {
            Some((at, rtt)) if sent >= at => rtt,
            _ => self.base_rtt,
        }
    }

    /// When the ACK of a packet whose own ACK would come at `x` arrives.
    fn ack_time(&self, x: Time) -> Time {
        match self.aggregation {
            Some(a) if x < a.until => {
                let every = a.every.as_nanos();
                assert!(a.until.as_nanos().is_multiple_of(every), "aggregation ends on its grid");
                Time(x.as_nanos().div_ceil(every) * every)
            }
            _ => x,
        }
    }

    /// When the application next has a packet.
    fn data_at(&self) -> Time {
        match self.app {
            App::Bulk => self.now,
            App::Periodic { next, .. } => next.max(self.now),
        }
    }

    /// Runs the next event (a send or an ACK); returns the ACK it processed, if any.
    pub(crate) fn step(&mut self) -> Option<Ack> {
        let room = self.bytes_in_flight + MSS <= self.bbr.window();
        if let App::Periodic { next, mark: true, .. } = self.app {
            if room && next > self.now {
                self.rate.on_app_limited(self.bytes_in_flight);
            }
        }
        let send_at = room.then(|| self.next_send.max(self.data_at()));
        let ack_at = self.flight.front().map(|p| p.ack_at);
        match (send_at, ack_at) {
            (Some(s), a) if a.is_none_or(|a| s < a) => {
                self.send(s);
                None
            }
            (_, a) => {
                assert!(a.is_some(), "no packet in flight and no room to send");
                Some(self.ack())
            }
        }
    }

    /// Steps until `until`, calling `f` after every ACK.
    pub(crate) fn run(&mut self, until: Time, mut f: impl FnMut(&Path, &Ack)) {
        while self.now < until {
            if let Some(a) = self.step() {
                f(self, &a);
            }
        }
    }

    fn send(&mut self, now: Time) {
        self.now = now;
        let snap = self.rate.on_packet_sent(now, self.bytes_in_flight);
        self.bytes_in_flight += MSS;
        let pn = self.next_pn;
        self.next_pn += 1;
        self.bbr.on_packet_sent(now, pn, MSS, self.bytes_in_flight);
        let departure = self.last_departure.map_or(now, |d| now.max(d + SER));
        self.last_departure = Some(departure);
        let ack_at = self.ack_time(departure + self.base_rtt(now));
        assert!(
            self.flight.back().is_none_or(|p| p.ack_at <= ack_at),
            "FIFO with a growing RTT"
        );
        self.flight.push_back(InFlight {
            pn,
            sent: now,
            ack_at,
            snap,
        });
        let pacing = self.bbr.pacing_rate().expect("BBR paces");
        self.next_send = now + Dur::from_secs_f64(MSS as f64 / pacing);
        if let App::Periodic { every, next, .. } = &mut self.app {
            *next += *every;
        }
    }

    /// One ACK: every packet in flight whose ACK time is the front's.
    fn ack(&mut self) -> Ack {
        self.now = self.flight.front().expect("a packet in flight").ack_at;
        let prior_in_flight = self.bytes_in_flight;
        let mut acked = Vec::new();
        while let Some(p) = self.flight.front().filter(|p| p.ack_at == self.now) {
            self.rate.on_packet_acked(self.now, p.sent, MSS, &p.snap);
            acked.push(AckedPacket {
                pn: p.pn,
                bytes: MSS,
                time_sent: p.sent,
            });
            self.flight.pop_front();
        }
        self.bytes_in_flight -= MSS * acked.len() as u64;
        let newest = acked.last().expect("at least the front").time_sent;
        self.rtt.update(self.now, self.now - newest, Dur::ZERO);
        let rs = self.rate.generate(self.rtt.min());
        let app_limited = matches!(self.app, App::Periodic { next, .. } if next > self.now);
        let ev = CongestionEvent {
            now: self.now,
            true_now: self.now,
            tick: cclab_core::time::NonZeroDur::from_millis(1),
            acked: &acked,
            lost: &[],
            ecn_ce: 0,
            rtt: &self.rtt,
            prior_in_flight,
            bytes_in_flight: self.bytes_in_flight,
            app_limited,
            rate_sample: rs,
            delivered: self.rate.delivered(),
            may_raise_window: true,
            next_pn: self.next_pn,
        };
        let state_before = self.state();
        self.bbr.on_congestion_event(&ev);
        Ack {
            prior_in_flight,
            rs,
            state_before,
            delivered: self.rate.delivered(),
        }
    }

    /// `BBRInflight(gain)` (draft-00 §4.2.3.2) from the model BBR currently holds, bytes.
    pub(crate) fn inflight(&self, gain: f64) -> u64 {
        let bdp = gain * self.bbr.btl_bw() * self.bbr.rtprop().expect("an RTT sample").as_secs_f64();
        bdp.ceil() as u64 + 3 * self.bbr.send_quantum()
    }
}
