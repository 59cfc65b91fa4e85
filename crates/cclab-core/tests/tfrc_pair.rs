//! TFRC sender and receiver over a fixed-delay, lossless path (seed 004: CCID-3 on loopback).
//!
//! ```text
//!   TfrcSender ── data, one-way delay d ──▶ TfrcReceiver
//!              ◀── feedback, delay d ─────
//! ```
//!
//! The application writes s = 22 B at 225 B/s (one write per 97.78 ms), as in the seed; both
//! hosts read time in whole microseconds.

use std::collections::VecDeque;

use cclab_core::clock::ClockConfig;
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::tfrc::{SlowStartFloor, TfrcConfig, TfrcReceiver, TfrcSender, T_MBI};
use cclab_core::endpoint::Endpoint;
use cclab_core::units::{Bytes, Rate};
use cclab_core::wire::packet::{Datagram, FlowId};
use cclab_core::wire::size::{DccpProfile, Profile};
use cclab_core::{Dur, Time};

const S: f64 = 22.0;

/// Two endpoints, one virtual clock and a FIFO of datagrams in flight each way.
struct Pair {
    tx: TfrcSender,
    rx: TfrcReceiver,
    now: Time,
    delay: Dur,
    to_rx: VecDeque<(Time, Datagram)>,
    to_tx: VecDeque<(Time, Datagram)>,
    /// `(time, X in bytes/s)` at every change of X.
    x: Vec<(Time, f64)>,
}

impl Pair {
    fn new(one_way: Dur, cfg: TfrcConfig) -> Pair {
        let profile = Profile::Dccp(DccpProfile { ipv6: false });
        let source = SourceConfig::Cbr {
            packet_size: Bytes(22),
            rate: Rate(1800),
            duration: None,
        };
        Pair {
            tx: TfrcSender::new(FlowId(0), profile, &cfg, &source, Time::ZERO),
            rx: TfrcReceiver::new(FlowId(0), profile, &cfg, Time::ZERO),
            now: Time::ZERO,
            delay: one_way,
            to_rx: VecDeque::new(),
            to_tx: VecDeque::new(),
            x: Vec::new(),
        }
    }

    /// Runs every event up to `end`, jumping from one wake-up to the next.
    fn run_until(&mut self, end: Time) {
        let mut spins = 0;
        loop {
            while let Some(d) = self.tx.poll_transmit(self.now) {
                self.to_rx.push_back((self.now + self.delay, d));
            }
            while let Some(d) = self.rx.poll_transmit(self.now) {
                self.to_tx.push_back((self.now + self.delay, d));
            }
            let x = self.tx.x_bytes_per_sec();
            if self.x.last().is_none_or(|&(_, last)| last != x) {
                self.x.push((self.now, x));
            }
            let arrivals = [self.to_rx.front().map(|a| a.0), self.to_tx.front().map(|a| a.0)];
            let Some(next) = [self.tx.poll_timeout(), self.rx.poll_timeout()]
                .into_iter()
                .chain(arrivals)
                .flatten()
                .min()
            else {
                return;
            };
            if next > end {
                self.now = end;
                return;
            }
            if next <= self.now {
                spins += 1;
                assert!(spins < 1000, "no progress at {}", self.now);
            } else {
                spins = 0;
                self.now = next;
            }
            while self.to_rx.front().is_some_and(|a| a.0 <= self.now) {
                let (_, d) = self.to_rx.pop_front().unwrap();
                self.rx.handle_datagram(self.now, d);
            }
            while self.to_tx.front().is_some_and(|a| a.0 <= self.now) {
                let (_, d) = self.to_tx.pop_front().unwrap();
                self.tx.handle_datagram(self.now, d);
            }
            self.tx.handle_timeout(self.now);
            self.rx.handle_timeout(self.now);
        }
    }

    /// X in bytes/s in force at `t`.
    fn x_at(&self, t: Time) -> f64 {
        self.x
            .iter()
            .take_while(|&&(at, _)| at <= t)
            .last()
            .map_or(0.0, |&(_, x)| x)
    }

    fn x_max(&self) -> f64 {
        self.x.iter().map(|&(_, x)| x).fold(0.0, f64::max)
    }
}

/// The seed's Linux: rfc3448bis-00 slow start, 100 ms nofeedback floor, µs clocks.
fn linux_2007() -> TfrcConfig {
    TfrcConfig {
        slow_start_floor: SlowStartFloor::SegmentPerRtt,
        nofeedback_min: Dur::from_millis(100),
        clock: ClockConfig {
            resolution: cclab_core::time::NonZeroDur::from_micros(1),
            ..Default::default()
        },
        ..Default::default()
    }
}

fn secs(s: f64) -> Time {
    Time::ZERO + Dur::from_secs_f64(s)
}

fn rel_err(a: f64, b: f64) -> f64 {
    (a - b).abs() / b
}

#[test]
fn tfrc_loopback_frozen_window_counter_starves_feedback() {
    // RTT 3 µs: the first feedback sets X = W_init/R = 4·22 B / 3 µs = 29.33 MB/s = 234.7 Mbps.
    let mut pair = Pair::new(Dur::from_nanos(1500), linux_2007());
    pair.run_until(secs(300.0));
    let peak = 4.0 * S / 3e-6;
    assert!(rel_err(pair.x_max(), peak) < 0.03, "peak {} B/s", pair.x_max());
    // R/4 = 0 in whole µs: CCVal stays 0, so only the initial feedback is ever sent.
    assert_eq!(pair.tx.ccval(), 0);
    assert_eq!(pair.rx.stats().acks_sent, 1);
    // Nofeedback timer: max(4R, 2s/X, 100 ms) = 100 ms while X > 2s/100 ms = 440 B/s, and
    // p = 0, so X halves every 100 ms: ten halvings by 1.05 s.
    assert!(rel_err(pair.x_at(secs(1.05)), pair.x_max() / 1024.0) < 1e-9);
    // ... down to one packet per t_mbi = 64 s.
    let floor = S / T_MBI.as_secs_f64();
    assert!(
        rel_err(pair.tx.x_bytes_per_sec(), floor) < 1e-9,
        "X = {}",
        pair.tx.x_bytes_per_sec()
    );
}

#[test]
fn tfrc_loopback_rtt_clamp_keeps_feedback_flowing() {
    // Samples clamped to 100 µs: R/4 = 25 µs, every write (97.78 ms apart) moves CCVal by 5 and
    // draws feedback; the sender is not idle for 2R at feedback, so X = max(min(2X, 2·X_recv), s/R)
    // = s/R = 22 B / 100 µs = 220 kB/s.
    let cfg = TfrcConfig {
        rtt_clamp_min: Dur::from_micros(100),
        ..linux_2007()
    };
    let mut pair = Pair::new(Dur::from_nanos(1500), cfg);
    pair.run_until(secs(10.0));
    let (sent, fb) = (pair.tx.stats().data_packets_sent, pair.rx.stats().acks_sent);
    assert!(sent >= 100 && fb == sent, "{sent} packets, {fb} feedbacks");
    let s_per_r = S / 100e-6;
    assert!(pair
        .x
        .iter()
        .filter(|&&(t, _)| t > secs(0.2))
        .all(|&(_, x)| x >= s_per_r));
    assert!(rel_err(pair.tx.x_bytes_per_sec(), s_per_r) < 1e-9);
}

#[test]
fn tfrc_millisecond_rtts_converge_to_a_segment_per_rtt() {
    // Seed §4: with 1 ms and 2 ms RTT, X settles at s/RTT = 176 and 88 kbit/s.
    for (one_way_us, bps) in [(500, 176_000.0), (1000, 88_000.0)] {
        let mut pair = Pair::new(Dur::from_micros(one_way_us), linux_2007());
        pair.run_until(secs(20.0));
        for &(t, x) in pair.x.iter().filter(|&&(t, _)| t > secs(1.0)) {
            assert!(
                rel_err(x * 8.0, bps) < 0.03,
                "RTT {} µs: X = {} bit/s at {t}",
                2 * one_way_us,
                x * 8.0
            );
        }
        let m = pair.tx.metrics();
        assert!(rel_err(m.pacing_rate_bps as f64, bps) < 0.03);
        assert_eq!(m.smoothed_rtt, Dur::from_micros(2 * one_way_us));
    }
}

#[test]
fn tfrc_rfc5348_floor_holds_the_initial_rate() {
    // RFC 5348 §4.3: with p = 0 the floor is W_init/R = 88 B / 1 ms = 88 kB/s = 704 kbit/s.
    let cfg = TfrcConfig {
        slow_start_floor: SlowStartFloor::InitialRate,
        ..linux_2007()
    };
    let mut pair = Pair::new(Dur::from_micros(500), cfg);
    pair.run_until(secs(20.0));
    assert!(rel_err(pair.tx.x_bytes_per_sec(), 4.0 * S / 1e-3) < 1e-9);
}

#[test]
fn tfrc_loopback_handshake_rtt_decays_while_x_climbs_to_the_peak() {
    // The Request is decided at 0 and leaves at 54 µs; the server reads its arrival (55.5 µs) as
    // 55 µs and answers at 62 µs; the Response arrives at 63.5 µs, read as 63: R = 63 µs, and the
    // first data packet gets X = W_init/R = 88 B / 63 µs (the report's 11.17 Mbit/s).
    let cfg = TfrcConfig {
        handshake: true,
        response_delay: Dur::from_micros(7),
        send_path: Dur::from_micros(54),
        ..linux_2007()
    };
    let mut pair = Pair::new(Dur::from_nanos(1500), cfg);
    pair.run_until(secs(0.000_1));
    assert!(rel_err(pair.x_max(), 4.0 * S / 63e-6) < 1e-9, "X = {}", pair.x_max());
    pair.run_until(secs(3.0));
    // Write k goes at k·T (T = 176 bit / 1800 bit/s); its feedback arrives 54 + 3 µs later and
    // gives a 3 µs sample, while the idle test sees 57 µs since the counter's stamp. R after
    // feedback k: 57, 51, 46, 41, 37, 33, 30, 27, 24, 21, … (integer EWMA in µs).
    let t = 176.0 / 1800.0;
    let after = |k: f64| secs(k * t + 100e-6);
    // Feedback 7 (R = 30, 57 < 2R: not idle): X = s/R. Feedback 8 (R = 27, 57 ≥ 54: idle): X
    // doubles, 9 (R = 24) again, then 10 (R = 21) reaches W_init/R = 4s/R.
    for (k, x) in [
        (6.0, S / 30e-6),
        (7.0, 2.0 * S / 30e-6),
        (8.0, 4.0 * S / 30e-6),
        (9.0, 4.0 * S / 21e-6),
    ] {
        assert!(
            rel_err(pair.x_at(after(k)), x) < 1e-9,
            "after write {k}: {}",
            pair.x_at(after(k))
        );
    }
    // Feedback 24 brings R to 3 µs: X = 4s/3 µs, the peak; then R/4 = 0 and feedback stops.
    let (t_peak, peak) = pair
        .x
        .iter()
        .fold((Time::ZERO, 0.0), |m, &(t, x)| if x > m.1 { (t, x) } else { m });
    assert!(rel_err(peak, 4.0 * S / 3e-6) < 1e-9, "peak {peak}");
    let expect = 23.0 * t + 57e-6;
    assert!(
        (t_peak.as_secs_f64() - expect).abs() < 2e-6,
        "peak at {t_peak}, expected {expect} s"
    );
    assert_eq!(pair.tx.rtt(), Some(Dur::from_micros(3)));
    assert_eq!(pair.rx.stats().acks_sent, 24);
}
