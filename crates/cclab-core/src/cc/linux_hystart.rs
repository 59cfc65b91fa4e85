//! Linux CUBIC's slow start: HyStart with ACK-train and delay-increase detection, as
//! `net/ipv4/tcp_cubic.c` implements it (`hystart_update`, `bictcp_hystart_reset`,
//! `hystart_ack_delay`; Ha & Rhee, "Taming the Elephants: New TCP Slow Start", 2011).
//!
//! A round starts with the first ACK beyond `end_seq` (SND.NXT when the previous round started;
//! here the next packet number). Within a round, once the window is at least `low_window`
//! packets, every ACK with an RTT sample runs two tests; either sets `ssthresh = cwnd`, which
//! ends slow start at once (no conservative phase, unlike HyStart++, RFC 9406 §4.2):
//! - **ACK train**: ACKs arriving at most `ack_delta` apart form a train from the round's
//!   start; when it lasts longer than `delay_min + ack_delay` (paced senders) or half that
//!   (unpaced), the window has filled the path's minimum RTT.
//! - **Delay increase**: after `HYSTART_MIN_SAMPLES` samples, the round's minimum RTT exceeds
//!   `delay_min + clamp(delay_min/8, 4 ms, 16 ms)`.
//!
//! Thinned ACKs: an ACK covering k > 2 packets counts as ⌈k/2⌉ samples, and its gap to the
//! previous ACK as that many gaps ([`crate::cc::slow_start::ack_equivalents`]); Linux counts
//! each ACK once, so under ACK frequency its train breaks at the first gap above 2 ms and its
//! delay test waits for 8 ACKs a round may never bring. With ACKs of one or two packets this
//! is exactly `tcp_cubic.c`.
//!
//! Simplified: Linux re-arms HyStart after a retransmission timeout (`cubictcp_state` on
//! `TCP_CA_Loss`); here it runs in the initial slow start only, as HyStart++ does.

use crate::time::{Dur, Time};
use serde::Deserialize;

/// `HYSTART_MIN_SAMPLES`: RTT samples a round needs before the delay test runs.
pub const MIN_SAMPLES: u64 = 8;
/// `HYSTART_DELAY_MIN`: lower clamp of the delay threshold.
pub const DELAY_MIN: Dur = Dur::from_millis(4);
/// `HYSTART_DELAY_MAX`: upper clamp of the delay threshold.
pub const DELAY_MAX: Dur = Dur::from_millis(16);
/// `GSO_MAX_SIZE`: the aggregate whose transmission time `hystart_ack_delay` allows for.
const GSO_MAX_SIZE: u64 = 65_536;
/// `tcp_pacing_ss_ratio` (200 %): Linux's pacing rate in slow start is 2·cwnd/srtt.
const PACING_SS_RATIO: u64 = 2;

/// Parameters of Linux HyStart (the `tcp_cubic` module parameters and their defaults).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LinuxHyStartConfig {
    /// ACK-train detection (`hystart_detect` bit 1). Default true.
    pub ack_train: bool,
    /// Delay-increase detection (`hystart_detect` bit 2). Default true.
    pub delay: bool,
    /// No detection below this window, packets (`hystart_low_window`, 16).
    pub low_window: u64,
    /// Largest gap between ACKs of one train (`hystart_ack_delta_us`, 2 ms).
    pub ack_delta: Dur,
    /// The sender paces (`sk_pacing_status != SK_PACING_NONE`): the train must last
    /// `delay_min + ack_delay` rather than half of it. Default false: Linux CUBIC without the
    /// fq qdisc does not pace, so model it with `[flow.sender] pacing = { enabled = false }`.
    /// A paced sender's rounds open after a lull with a drained queue, so with `true` both
    /// tests fire late (on 100 Mbit/s / 20 ms only once the queue is lost, as Linux with fq).
    pub paced: bool,
}

impl Default for LinuxHyStartConfig {
    fn default() -> Self {
        LinuxHyStartConfig {
            ack_train: true,
            delay: true,
            low_window: 16,
            ack_delta: Dur::from_micros(2000),
            paced: false,
        }
    }
}

/// One ACK as Linux HyStart sees it.
#[derive(Clone, Copy, Debug)]
pub struct HyStartAck {
    /// Arrival time (`tcp_mstamp`).
    pub now: Time,
    /// Largest newly acknowledged packet number.
    pub largest_acked: u64,
    /// SND.NXT: the next packet number to be sent.
    pub next_pn: u64,
    /// Samples it stands for: 1, or ⌈k/2⌉ for a stretch ACK of k packets.
    pub samples: u64,
    /// Its RTT sample (`ca_rtt_us`: the newest acknowledged packet's).
    pub rtt: Dur,
    /// Minimum RTT of the connection (`ca->delay_min`).
    pub min_rtt: Dur,
    /// Smoothed RTT, for Linux's pacing rate in `hystart_ack_delay`.
    pub srtt: Dur,
}

/// Linux HyStart state of one connection.
#[derive(Clone, Debug)]
pub struct LinuxHyStart {
    cfg: LinuxHyStartConfig,
    mss: u64,
    /// `end_seq`: the round ends when a packet at or above it is acknowledged (`None`: at once).
    end_pn: Option<u64>,
    /// `round_start`.
    round_start: Time,
    /// `last_ack`: the newest ACK of the current train.
    last_ack: Time,
    /// `curr_rtt`: this round's minimum RTT.
    curr_rtt: Option<Dur>,
    /// `sample_cnt`.
    samples: u64,
    /// `found`: slow start has been ended.
    found: bool,
}

impl LinuxHyStart {
    /// HyStart for a sender whose full-sized packet is `mss` bytes.
    pub fn new(cfg: &LinuxHyStartConfig, mss: u64) -> LinuxHyStart {
        LinuxHyStart {
            cfg: cfg.clone(),
            mss: mss.max(1),
            end_pn: None,
            round_start: Time::ZERO,
            last_ack: Time::ZERO,
            curr_rtt: None,
            samples: 0,
            found: false,
        }
    }

    /// Slow start has been ended by one of the tests.
    pub fn found(&self) -> bool {
        self.found
    }

    /// One ACK with an RTT sample while `cwnd < ssthresh`; true when it ends slow start (the
    /// caller then sets `ssthresh = cwnd`).
    pub fn on_ack(&mut self, a: &HyStartAck, cwnd: u64) -> bool {
        // cubictcp_cong_avoid / hystart_update: an ACK beyond end_seq starts a new round.
        if self.end_pn.is_none_or(|end| a.largest_acked >= end) {
            self.round_start = a.now;
            self.last_ack = a.now;
            self.end_pn = Some(a.next_pn);
            self.curr_rtt = None;
            self.samples = 0;
        }
        // cubictcp_acked: detection only from hystart_low_window on, and until found.
        if self.found || cwnd < self.cfg.low_window * self.mss {
            return false;
        }
        let samples = a.samples.max(1);
        if self.cfg.ack_train && a.now - self.last_ack <= self.cfg.ack_delta * samples {
            self.last_ack = a.now;
            let mut threshold = a.min_rtt + self.ack_delay(cwnd, a.srtt);
            // "Pacing might have delayed packets up to RTT/2 during slow start."
            if !self.cfg.paced {
                threshold = threshold / 2;
            }
            if a.now - self.round_start > threshold {
                self.found = true;
            }
        }
        if self.cfg.delay {
            self.curr_rtt = Some(self.curr_rtt.map_or(a.rtt, |m| m.min(a.rtt)));
            if self.samples < MIN_SAMPLES {
                self.samples += samples;
            } else if self.curr_rtt.expect("set above") > a.min_rtt + (a.min_rtt / 8).clamp(DELAY_MIN, DELAY_MAX) {
                self.found = true;
            }
        }
        self.found
    }

    /// `hystart_ack_delay`: time to send four GSO aggregates at Linux's slow-start pacing rate
    /// (2·cwnd/srtt, `tcp_update_pacing_rate`), at most 1 ms: TSO/GRO delays ACKs that much.
    fn ack_delay(&self, cwnd: u64, srtt: Dur) -> Dur {
        let rate_bytes_per_s = (PACING_SS_RATIO * cwnd) as u128 * 1_000_000_000 / srtt.0.max(1) as u128;
        if rate_bytes_per_s == 0 {
            return Dur::ZERO;
        }
        let ns = (GSO_MAX_SIZE as u128 * 4 * 1_000_000_000) / rate_bytes_per_s;
        Dur(u64::try_from(ns).unwrap_or(u64::MAX)).min(Dur::from_millis(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const CWND: u64 = 100 * MSS;

    fn ms(x: u64) -> Dur {
        Dur::from_millis(x)
    }

    /// An ACK at `at_us` µs for packet `pn` with RTT `rtt_us`, min RTT 20 ms, srtt 20 ms, and
    /// packets 0..1000 sent.
    fn ack(at_us: u64, pn: u64, rtt_us: u64, samples: u64) -> HyStartAck {
        HyStartAck {
            now: Time(at_us * 1000),
            largest_acked: pn,
            next_pn: 1000,
            samples,
            rtt: Dur::from_micros(rtt_us),
            min_rtt: ms(20),
            srtt: ms(20),
        }
    }

    fn delay_only() -> LinuxHyStartConfig {
        LinuxHyStartConfig {
            ack_train: false,
            ..Default::default()
        }
    }

    fn train_only(paced: bool) -> LinuxHyStartConfig {
        // `paced` is spelled out: the unpaced default halves the threshold.
        LinuxHyStartConfig {
            delay: false,
            paced,
            ..Default::default()
        }
    }

    #[test]
    fn linux_hystart_delay_test_runs_after_eight_samples() {
        // Threshold: 20 ms + clamp(20/8 = 2.5 ms, 4, 16) = 24 ms. Eight samples of 25 ms only
        // count; the ninth runs the test on the round's minimum (25 ms) and ends slow start.
        let mut h = LinuxHyStart::new(&delay_only(), MSS);
        for k in 0..8 {
            assert!(!h.on_ack(&ack(10_000 * k, k, 25_000, 1), CWND), "sample {}", k + 1);
        }
        assert!(h.on_ack(&ack(80_000, 8, 25_000, 1), CWND));
        assert!(h.found());
        // 24 ms is not above the threshold.
        let mut h = LinuxHyStart::new(&delay_only(), MSS);
        assert!((0..20).all(|k| !h.on_ack(&ack(10_000 * k, k, 24_000, 1), CWND)));
    }

    #[test]
    fn linux_hystart_needs_the_low_window() {
        let mut h = LinuxHyStart::new(&delay_only(), MSS);
        assert!((0..20).all(|k| !h.on_ack(&ack(10_000 * k, k, 30_000, 1), 15 * MSS)));
        assert!(!h.found());
    }

    #[test]
    fn linux_hystart_ack_train_longer_than_min_rtt_ends_slow_start() {
        // ACKs 1 ms apart from the round's first one. Paced: delay_min + ack_delay; at 100 kB
        // per 20 ms Linux paces at 10 MB/s, four 64 KiB aggregates take 26 ms, capped at 1 ms:
        // 21 ms, so the ACK at 22 ms ends slow start. Unpaced: half, 10.5 ms → the ACK at 11 ms.
        for (paced, first) in [(true, 22), (false, 11)] {
            let mut h = LinuxHyStart::new(&train_only(paced), MSS);
            let fired = (0..40).find(|&k| h.on_ack(&ack(1000 * k, k, 20_000, 1), CWND));
            assert_eq!(fired, Some(first), "paced {paced}");
        }
    }

    #[test]
    fn linux_hystart_train_breaks_on_a_gap_unless_the_ack_covers_it() {
        // A 3 ms gap (> ack_delta = 2 ms) after 5 ms ends the train: later ACKs never extend it.
        let mut h = LinuxHyStart::new(&train_only(true), MSS);
        let times = (0..=5).chain(8..40).map(|k| k * 1000);
        assert!(times
            .enumerate()
            .all(|(i, t)| !h.on_ack(&ack(t, i as u64, 20_000, 1), CWND)));
        // The same gap closed by a stretch ACK of 4 packets (2 samples: 4 ms allowed) keeps it.
        let mut h = LinuxHyStart::new(&train_only(true), MSS);
        let fired = (0..=5)
            .chain(8..40)
            .enumerate()
            .find(|&(i, k)| h.on_ack(&ack(k * 1000, i as u64, 20_000, if k == 8 { 2 } else { 1 }), CWND));
        assert_eq!(fired.map(|(_, k)| k), Some(22));
    }

    #[test]
    fn linux_hystart_new_round_restarts_train_and_samples() {
        // Packets 0..10 sent: the round that starts with the first ACK ends at pn 10. Its ACKs
        // 1 ms apart reach 9 ms; the round after restarts the train at the ACK of pn 10.
        let mut h = LinuxHyStart::new(&train_only(true), MSS);
        let first_round = |k| HyStartAck {
            next_pn: 10,
            ..ack(1000 * k, k, 20_000, 1)
        };
        assert!((0..10).all(|k| !h.on_ack(&first_round(k), CWND)));
        // Round two starts at 10 ms; with 1 ms spacing it passes 21 ms at 32 ms.
        let fired = (10..60).find(|&k| h.on_ack(&ack(1000 * k, k, 20_000, 1), CWND));
        assert_eq!(fired, Some(32));
    }
}
