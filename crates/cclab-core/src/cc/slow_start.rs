//! Pluggable slow start, shared by NewReno and CUBIC: classic (RFC 9002 §7.3.1), HyStart++
//! (RFC 9406, [`super::hystart`]), Linux CUBIC's HyStart ([`super::linux_hystart`]), picoquic's
//! delay-based exit ([`super::delay_exit`]) or packet-train bandwidth estimation
//! ([`super::train_ss`]).
//!
//! A controller owns one [`SlowStart`], forwards `on_packet_sent` (called only if
//! [`SlowStart::reads_sends`]), calls [`SlowStart::on_ack`] for every ACK event while
//! `cwnd < ssthresh`, and reports `pause_until`/`burst_allowance` while in slow start. In a scenario: `slow_start = "hystart++"`, or with parameters
//! `slow_start = { kind = "train", pacing_pause_on_failed_estimate = true }`.

use super::delay_exit::DelayExit;
use super::hystart::{AckedUpTo, HyStart, HyStartConfig, HyStartPhase};
use super::linux_hystart::{HyStartAck, LinuxHyStart, LinuxHyStartConfig};
use super::train_ss::{TrainConfig, TrainEstimator};
use super::CongestionEvent;
use crate::time::Time;
use core::fmt;
use serde::de::{self, value::MapAccessDeserializer, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

/// Which slow start a controller uses, with its parameters.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(tag = "kind", deny_unknown_fields, remote = "Self")]
pub enum SlowStartConfig {
    /// `cwnd += acked bytes` until ssthresh (RFC 9002 §7.3.1).
    #[default]
    #[serde(rename = "classic")]
    Classic,
    /// HyStart++ in the initial slow start, classic afterwards (RFC 9406 §4.3).
    #[serde(rename = "hystart++")]
    HyStartPlusPlus(HyStartConfig),
    /// Linux CUBIC's HyStart (ACK train and delay increase) in the initial slow start.
    #[serde(rename = "linux-hystart")]
    LinuxHyStart(LinuxHyStartConfig),
    /// Classic growth; the initial slow start also ends on picoquic's RTT-rise test.
    #[serde(rename = "picoquic")]
    Picoquic,
    /// Classic growth plus jumps to half the BDP measured from packet trains (picoquic, seed 002).
    #[serde(rename = "train")]
    Train(TrainConfig),
}

/// Accepts a bare name (`"hystart++"`, default parameters) or a table with `kind`.
impl<'de> Deserialize<'de> for SlowStartConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SlowStartConfig;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "\"classic\", \"hystart++\", \"linux-hystart\", \"picoquic\", \"train\", or a table with `kind`",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<SlowStartConfig, E> {
                match v {
                    "classic" => Ok(SlowStartConfig::Classic),
                    "hystart++" => Ok(SlowStartConfig::HyStartPlusPlus(HyStartConfig::default())),
                    "linux-hystart" => Ok(SlowStartConfig::LinuxHyStart(LinuxHyStartConfig::default())),
                    "picoquic" => Ok(SlowStartConfig::Picoquic),
                    "train" => Ok(SlowStartConfig::Train(TrainConfig::default())),
                    _ => Err(E::unknown_variant(
                        v,
                        &["classic", "hystart++", "linux-hystart", "picoquic", "train"],
                    )),
                }
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SlowStartConfig, A::Error> {
                SlowStartConfig::deserialize(MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_any(V)
    }
}

/// The ACKs a receiver acknowledging every one or two packets (RFC 9000 §13.2.2, RFC 5681
/// §4.2) would have sent for `packets` newly acknowledged ones: ⌈packets/2⌉, at least 1. The
/// delay-based exits count samples in these units, so a stretch ACK (ACK frequency, thinning)
/// still counts for the round it covers; ACKs of one or two packets count 1, as before.
pub fn ack_equivalents(packets: u64) -> u64 {
    packets.div_ceil(2).max(1)
}

#[derive(Clone, Debug)]
enum Kind {
    Classic,
    HyStart(HyStart),
    Linux(LinuxHyStart),
    DelayExit(DelayExit),
    Train(TrainEstimator),
}

/// Slow-start state of one connection.
#[derive(Clone, Debug)]
pub struct SlowStart {
    kind: Kind,
}

impl SlowStart {
    /// The chosen slow start for a sender whose full-sized packet is `mss` bytes.
    pub fn new(cfg: &SlowStartConfig, mss: u64) -> SlowStart {
        let kind = match cfg {
            SlowStartConfig::Classic => Kind::Classic,
            SlowStartConfig::HyStartPlusPlus(c) => Kind::HyStart(HyStart::new(c, mss)),
            SlowStartConfig::LinuxHyStart(c) => Kind::Linux(LinuxHyStart::new(c, mss)),
            SlowStartConfig::Picoquic => Kind::DelayExit(DelayExit::new()),
            SlowStartConfig::Train(c) => Kind::Train(TrainEstimator::new(c, mss)),
        };
        SlowStart { kind }
    }

    /// Whether this is picoquic's train estimator, the one slow start that pauses the sender and
    /// releases trains (`pause_until`, `burst_allowance`): fixed by the configuration.
    pub fn trains(&self) -> bool {
        matches!(self.kind, Kind::Train(_))
    }

    /// Whether [`SlowStart::on_packet_sent`] does anything: fixed by the configuration (the train estimator).
    pub fn reads_sends(&self) -> bool {
        self.trains()
    }

    /// A packet of `bytes` was sent at `now`: only the train estimator reads it (its post-pause train);
    /// HyStart's rounds take SND.NXT from the ACK ([`CongestionEvent::next_pn`]).
    pub fn on_packet_sent(&mut self, now: Time, bytes: u64) {
        if let Kind::Train(t) = &mut self.kind {
            t.on_packet_sent(now, bytes);
        }
    }

    /// One ACK event while `cwnd < ssthresh`. `acked_bytes` are the bytes that may grow the window
    /// (0 while app-limited: RFC 9002 §7.8). Grows `cwnd`; HyStart++ and picoquic's delay test may
    /// end slow start by setting `ssthresh = cwnd`.
    pub fn on_ack(&mut self, ev: &CongestionEvent<'_>, acked_bytes: u64, cwnd: &mut u64, ssthresh: &mut u64) {
        match &mut self.kind {
            // RFC 9406 §4.3: HyStart++ only while ssthresh is unset (the initial slow start).
            Kind::HyStart(h) if *ssthresh == u64::MAX => {
                if let Some(largest) = ev.acked.last() {
                    let samples = ack_equivalents(ev.acked.len() as u64);
                    let acked = AckedUpTo {
                        largest: largest.pn,
                        next_pn: ev.next_pn,
                    };
                    h.on_ack(acked, samples, ev.rtt.latest(), acked_bytes, cwnd, ssthresh);
                }
            }
            // tcp_cubic.c: the tests run in cubictcp_acked, before cubictcp_cong_avoid grows the
            // window; once they set ssthresh = cwnd the ACK's bytes go to congestion avoidance.
            Kind::Linux(h) if *ssthresh == u64::MAX && !h.found() => {
                if let Some(largest) = ev.acked.last() {
                    let ack = HyStartAck {
                        now: ev.now,
                        largest_acked: largest.pn,
                        next_pn: ev.next_pn,
                        samples: ack_equivalents(ev.acked.len() as u64),
                        rtt: ev.rtt.latest(),
                        min_rtt: ev.rtt.min(),
                        srtt: ev.rtt.smoothed(),
                    };
                    if h.on_ack(&ack, *cwnd) {
                        *ssthresh = *cwnd;
                        return;
                    }
                }
                *cwnd += acked_bytes;
            }
            Kind::DelayExit(d) if *ssthresh == u64::MAX => {
                *cwnd += acked_bytes;
                // cubic.c / newreno.c: the test runs on each RTT measurement while ssthresh is unset.
                if !ev.acked.is_empty() && d.on_rtt_sample(ev.now, ev.rtt.adjusted()) {
                    *ssthresh = *cwnd;
                }
            }
            Kind::Train(t) => {
                *cwnd += acked_bytes;
                t.on_ack(ev, cwnd, *ssthresh);
            }
            _ => *cwnd += acked_bytes,
        }
    }

    /// In HyStart++'s conservative slow start.
    pub fn in_css(&self) -> bool {
        matches!(&self.kind, Kind::HyStart(h) if matches!(h.phase(), HyStartPhase::Css { .. }))
    }

    /// Forced pacing pause after a failed train estimate, if any.
    pub fn pause_until(&self) -> Option<Time> {
        match &self.kind {
            Kind::Train(t) => t.pause_until(),
            _ => None,
        }
    }

    /// Bytes to release back-to-back after the pause, if a train is pending.
    pub fn burst_allowance(&self) -> Option<u64> {
        match &self.kind {
            Kind::Train(t) => t.burst_allowance(),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::{event, rtt_of};
    use crate::cc::AckedPacket;
    use crate::time::Dur;

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Holder {
        slow_start: SlowStartConfig,
    }

    fn parse(s: &str) -> Result<SlowStartConfig, String> {
        toml::from_str::<Holder>(s)
            .map(|h| h.slow_start)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn slow_start_config_accepts_names_and_tables() {
        assert_eq!(parse("slow_start = \"classic\""), Ok(SlowStartConfig::Classic));
        assert_eq!(
            parse("slow_start = \"hystart++\""),
            Ok(SlowStartConfig::HyStartPlusPlus(HyStartConfig::default()))
        );
        assert_eq!(parse("slow_start = \"picoquic\""), Ok(SlowStartConfig::Picoquic));
        assert_eq!(
            parse("slow_start = { kind = \"linux-hystart\", paced = false, ack_delta = \"1ms\" }"),
            Ok(SlowStartConfig::LinuxHyStart(LinuxHyStartConfig {
                paced: false,
                ack_delta: Dur::from_millis(1),
                ..Default::default()
            }))
        );
        assert_eq!(
            parse("slow_start = { kind = \"picoquic\" }"),
            Ok(SlowStartConfig::Picoquic)
        );
        assert_eq!(
            parse("slow_start = { kind = \"hystart++\", paced = false }"),
            Ok(SlowStartConfig::HyStartPlusPlus(HyStartConfig { paced: false }))
        );
        let t = parse(
            "slow_start = { kind = \"train\", pacing_pause_on_failed_estimate = true, min_interval = \"500us\", \
             min_train_packets = 40, long_rtt_initial_window = true }",
        );
        let expect = TrainConfig {
            pacing_pause_on_failed_estimate: true,
            min_interval: Dur::from_micros(500),
            min_train_packets: 40,
            long_rtt_initial_window: true,
            ..Default::default()
        };
        assert_eq!(t, Ok(SlowStartConfig::Train(expect)));
    }

    #[test]
    fn slow_start_config_rejects_unknowns() {
        assert!(parse("slow_start = \"bbr\"").unwrap_err().contains("unknown variant"));
        assert!(parse("slow_start = { kind = \"train\", min_train = 3 }")
            .unwrap_err()
            .contains("unknown field"));
    }

    #[test]
    fn slow_start_hystart_only_in_initial_slow_start() {
        let mss = 1000;
        let mut ss = SlowStart::new(&SlowStartConfig::HyStartPlusPlus(HyStartConfig { paced: false }), mss);
        let rtt = rtt_of(Dur::from_millis(10));
        let p = [AckedPacket {
            pn: 0,
            bytes: 20 * mss,
            time_sent: Time::ZERO,
        }];
        let ev = event(Time(10_000_000), &p, &[], &rtt);
        // Initial slow start: L = 8 segments caps a 20-segment stretch ACK.
        let (mut cwnd, mut ssthresh) = (10 * mss, u64::MAX);
        ss.on_ack(&ev, 20 * mss, &mut cwnd, &mut ssthresh);
        assert_eq!(cwnd, 18 * mss);
        // ssthresh set by a loss: classic slow start grows by all acked bytes.
        let mut ssthresh = 100 * mss;
        ss.on_ack(&ev, 20 * mss, &mut cwnd, &mut ssthresh);
        assert_eq!(cwnd, 38 * mss);
    }
}
