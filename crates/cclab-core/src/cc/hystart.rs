//! HyStart++, RFC 9406 §4.2–4.3 (<https://www.rfc-editor.org/rfc/rfc9406#section-4.2>): slow start
//! that leaves early, through a conservative slow start (CSS), when a round's minimum RTT rises.
//!
//! Rounds are counted by packet number: `windowEnd` is the next packet number to send (SND.NXT)
//! when a round starts, and the round ends when a packet at or above it is acknowledged. SND.NXT
//! comes with each ACK (`CongestionEvent::next_pn`), not from each send. Only the initial slow start
//! uses it (§4.3); [`crate::cc::slow_start::SlowStart`] enforces that.
//!
//! rttSampleCount counts ACKs as a receiver that ACKs every one or two packets sends them: a
//! stretch ACK covering k packets (ACK frequency, ACK thinning) counts as ⌈k/2⌉
//! ([`crate::cc::slow_start::ack_equivalents`]). §4.3 sizes N_RTT_SAMPLE for such receivers; counted
//! per ACK, a round thinned to fewer than 8 ACKs never runs the delay test and slow start only
//! ends on loss.

use crate::time::Dur;
use serde::Deserialize;

/// Lower bound of RttThresh (RFC 9406 §4.3).
pub const MIN_RTT_THRESH: Dur = Dur::from_millis(4);
/// Upper bound of RttThresh (RFC 9406 §4.3).
pub const MAX_RTT_THRESH: Dur = Dur::from_millis(16);
/// RttThresh = lastRoundMinRTT / MIN_RTT_DIVISOR before clamping (RFC 9406 §4.3).
pub const MIN_RTT_DIVISOR: u64 = 8;
/// RTT samples a round needs before the delay test may run (RFC 9406 §4.3).
pub const N_RTT_SAMPLE: u64 = 8;
/// CSS grows the window this many times slower than slow start (RFC 9406 §4.3).
pub const CSS_GROWTH_DIVISOR: u64 = 4;
/// Rounds spent in CSS before congestion avoidance (RFC 9406 §4.3).
pub const CSS_ROUNDS: u64 = 5;
/// Per-ACK growth limit L in segments for a sender that does not pace (RFC 9406 §4.3).
pub const L_NON_PACED: u64 = 8;

/// HyStart++ parameters (the constants are fixed by RFC 9406 §4.3).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HyStartConfig {
    /// The sender paces, so growth per ACK is unlimited (L = ∞, RFC 9406 §4.3 SHOULD); `false`
    /// limits it to L = 8 segments. Default true (RFC 9002 §7.7: senders SHOULD pace).
    pub paced: bool,
}

impl Default for HyStartConfig {
    fn default() -> Self {
        HyStartConfig { paced: true }
    }
}

/// Where HyStart++ is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HyStartPhase {
    /// Standard slow start with the delay-increase test.
    SlowStart,
    /// Conservative slow start since a delay increase.
    Css {
        /// cssBaselineMinRtt: the round minimum that triggered CSS.
        baseline: Dur,
        /// Rounds completed in CSS (the round CSS began in counts as the first, as FreeBSD counts).
        rounds: u64,
    },
    /// Left for congestion avoidance (by CSS_ROUNDS or by the controller's loss response).
    Done,
}

/// Where an ACK leaves the packet numbers: what it newly acknowledges up to, and what is sent up to.
#[derive(Clone, Copy, Debug)]
pub struct AckedUpTo {
    /// The largest newly acknowledged packet number.
    pub largest: u64,
    /// SND.NXT: the next packet number to be sent.
    pub next_pn: u64,
}

/// HyStart++ state of one connection.
#[derive(Clone, Debug)]
pub struct HyStart {
    /// L in bytes; `None` = ∞.
    limit: Option<u64>,
    /// lastRoundMinRTT (`None` = ∞).
    last_round_min: Option<Dur>,
    /// currentRoundMinRTT (`None` = ∞).
    current_round_min: Option<Dur>,
    phase: HyStartPhase,
    /// windowEnd.
    window_end: u64,
    /// rttSampleCount.
    samples: u64,
}

impl HyStart {
    /// HyStart++ for a sender whose full-sized packet is `mss` bytes; windowEnd starts at SND.NXT = 0.
    pub fn new(cfg: &HyStartConfig, mss: u64) -> HyStart {
        HyStart {
            limit: (!cfg.paced).then_some(L_NON_PACED * mss),
            window_end: 0,
            last_round_min: None,
            current_round_min: None,
            samples: 0,
            phase: HyStartPhase::SlowStart,
        }
    }

    /// Current phase.
    pub fn phase(&self) -> HyStartPhase {
        self.phase
    }

    /// One ACK in slow start or CSS: `acked` holds the largest newly acknowledged packet number
    /// and SND.NXT, `samples` the RTT samples it stands for (1, or ⌈k/2⌉ for a stretch ACK of k
    /// packets), `rtt` the ACK's RTT sample (currRTT), `acked_bytes` the N of RFC 9406 (0 when
    /// the window may not grow). Grows `cwnd` and, after CSS_ROUNDS rounds of CSS, sets
    /// `ssthresh = cwnd` to enter congestion avoidance.
    pub fn on_ack(
        &mut self,
        acked: AckedUpTo,
        samples: u64,
        rtt: Dur,
        acked_bytes: u64,
        cwnd: &mut u64,
        ssthresh: &mut u64,
    ) {
        if self.phase == HyStartPhase::Done {
            *cwnd += acked_bytes;
            return;
        }
        // §4.2: when windowEnd is acknowledged the round ends; the new round starts with this ACK.
        if acked.largest >= self.window_end {
            if let HyStartPhase::Css { rounds, .. } = &mut self.phase {
                *rounds += 1;
                if *rounds >= CSS_ROUNDS {
                    // §4.2: enter congestion avoidance by setting ssthresh to the current cwnd.
                    self.phase = HyStartPhase::Done;
                    *ssthresh = *cwnd;
                    return;
                }
            }
            self.last_round_min = self.current_round_min;
            self.current_round_min = None;
            self.samples = 0;
            self.window_end = acked.next_pn;
        }
        // §4.2: cwnd += min(N, L·SMSS) in slow start, that divided by CSS_GROWTH_DIVISOR in CSS.
        let grow = self.limit.map_or(acked_bytes, |l| acked_bytes.min(l));
        *cwnd += match self.phase {
            HyStartPhase::Css { .. } => grow / CSS_GROWTH_DIVISOR,
            _ => grow,
        };
        let current = self.current_round_min.map_or(rtt, |m| m.min(rtt));
        self.current_round_min = Some(current);
        self.samples += samples.max(1);
        if self.samples < N_RTT_SAMPLE {
            return;
        }
        match self.phase {
            HyStartPhase::SlowStart => {
                let Some(last) = self.last_round_min else { return };
                // RttThresh = max(MIN_RTT_THRESH, min(lastRoundMinRTT / MIN_RTT_DIVISOR, MAX_RTT_THRESH))
                let thresh = (last / MIN_RTT_DIVISOR).min(MAX_RTT_THRESH).max(MIN_RTT_THRESH);
                if current >= last + thresh {
                    self.phase = HyStartPhase::Css {
                        baseline: current,
                        rounds: 0,
                    };
                }
            }
            HyStartPhase::Css { baseline, .. } => {
                // §4.2: a round minimum below the baseline means the exit was spurious.
                if current < baseline {
                    self.phase = HyStartPhase::SlowStart;
                }
            }
            HyStartPhase::Done => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// Sends `n` packets as one round, then acknowledges each with `rtt`, one ACK per packet.
    fn round(h: &mut HyStart, next_pn: &mut u64, n: u64, rtt: Dur, cwnd: &mut u64, ssthresh: &mut u64) {
        let first = *next_pn;
        *next_pn += n;
        for pn in first..first + n {
            h.on_ack(up_to(pn, *next_pn), 1, rtt, MSS, cwnd, ssthresh);
        }
    }

    /// An ACK up to `largest` with packets up to `next_pn` sent.
    fn up_to(largest: u64, next_pn: u64) -> AckedUpTo {
        AckedUpTo { largest, next_pn }
    }

    fn ms(x: u64) -> Dur {
        Dur::from_millis(x)
    }

    #[test]
    fn hystart_enters_css_on_rtt_threshold_then_ca_after_css_rounds() {
        let mut h = HyStart::new(&HyStartConfig::default(), MSS);
        let (mut pn, mut cwnd, mut ss) = (0, 10 * MSS, u64::MAX);
        for _ in 0..3 {
            round(&mut h, &mut pn, 10, ms(100), &mut cwnd, &mut ss);
        }
        assert_eq!(h.phase(), HyStartPhase::SlowStart);
        assert_eq!(cwnd, 40 * MSS, "slow start: +1 MSS per acked MSS");
        // RttThresh = clamp(100 ms / 8, 4 ms, 16 ms) = 12.5 ms: 112 ms stays in slow start.
        round(&mut h, &mut pn, 10, Dur::from_micros(112_400), &mut cwnd, &mut ss);
        assert_eq!(h.phase(), HyStartPhase::SlowStart);
        // The next round's minimum must beat 112.4 + clamp(112.4/8 = 14.05) = 126.45 ms.
        round(&mut h, &mut pn, 10, ms(126), &mut cwnd, &mut ss);
        assert_eq!(h.phase(), HyStartPhase::SlowStart);
        // 126 + clamp(126/8 = 15.75) = 141.75 ms: 141 ms is below it, 142 ms is not.
        round(&mut h, &mut pn, 10, ms(141), &mut cwnd, &mut ss);
        assert_eq!(h.phase(), HyStartPhase::SlowStart);
        // 141 + min(141/8 = 17.6, MAX_RTT_THRESH = 16) = 157 ms: CSS.
        let before = cwnd;
        round(&mut h, &mut pn, 10, ms(157), &mut cwnd, &mut ss);
        // Samples 1–8 grow at full rate (the 8th then triggers CSS); samples 9–10 grow at 1/4.
        assert_eq!(
            h.phase(),
            HyStartPhase::Css {
                baseline: ms(157),
                rounds: 0
            }
        );
        assert_eq!(cwnd - before, 8 * MSS + 2 * MSS / CSS_GROWTH_DIVISOR);
        // Four more rounds in CSS grow 10 · MSS/4 each.
        for r in 1..CSS_ROUNDS {
            let before = cwnd;
            round(&mut h, &mut pn, 10, ms(157), &mut cwnd, &mut ss);
            assert_eq!(
                h.phase(),
                HyStartPhase::Css {
                    baseline: ms(157),
                    rounds: r
                }
            );
            assert_eq!(cwnd - before, 10 * MSS / CSS_GROWTH_DIVISOR);
        }
        assert_eq!(ss, u64::MAX);
        // The fifth CSS round ends with the first ACK of the next flight: congestion avoidance.
        let before = cwnd;
        h.on_ack(up_to(pn, pn + 1), 1, ms(157), MSS, &mut cwnd, &mut ss);
        assert_eq!(h.phase(), HyStartPhase::Done);
        assert_eq!((cwnd, ss), (before, before), "CSS_ROUNDS complete: ssthresh = cwnd");
    }

    #[test]
    fn hystart_css_returns_to_slow_start_on_spurious_exit() {
        let mut h = HyStart::new(&HyStartConfig::default(), MSS);
        let (mut pn, mut cwnd, mut ss) = (0, 10 * MSS, u64::MAX);
        round(&mut h, &mut pn, 10, ms(40), &mut cwnd, &mut ss);
        // RttThresh = max(4 ms, 40/8 = 5 ms) = 5 ms.
        round(&mut h, &mut pn, 10, ms(45), &mut cwnd, &mut ss);
        assert!(matches!(h.phase(), HyStartPhase::Css { .. }));
        // Seven samples below the baseline are not enough; the eighth proves the exit spurious.
        for (i, p) in (pn..pn + 10).enumerate() {
            h.on_ack(up_to(p, pn + 10), 1, ms(42), MSS, &mut cwnd, &mut ss);
            let expect_css = i + 1 < N_RTT_SAMPLE as usize;
            assert_eq!(
                matches!(h.phase(), HyStartPhase::Css { .. }),
                expect_css,
                "sample {}",
                i + 1
            );
        }
        assert_eq!(h.phase(), HyStartPhase::SlowStart);
    }

    #[test]
    fn hystart_needs_n_rtt_samples_and_limits_growth_when_not_paced() {
        let mut h = HyStart::new(&HyStartConfig { paced: false }, MSS);
        let (mut pn, mut cwnd, mut ss) = (0, 10 * MSS, u64::MAX);
        round(&mut h, &mut pn, 10, ms(100), &mut cwnd, &mut ss);
        // Seven-packet round far above the threshold: too few samples to leave slow start.
        round(&mut h, &mut pn, 7, ms(200), &mut cwnd, &mut ss);
        assert_eq!(h.phase(), HyStartPhase::SlowStart);
        // A stretch ACK of 20 MSS grows by at most L = 8 MSS.
        let before = cwnd;
        h.on_ack(up_to(pn, pn + 1), 1, ms(100), 20 * MSS, &mut cwnd, &mut ss);
        assert_eq!(cwnd - before, L_NON_PACED * MSS);
    }

    #[test]
    fn hystart_exits_under_ack_frequency_with_a_large_gap() {
        // ACK frequency with one ACK per 10 packets: a 40-packet round brings 4 ACKs. Counted
        // per ACK (the RFC's rttSampleCount for an every-other-packet receiver) 4 < N_RTT_SAMPLE
        // and the delay test never runs; each stretch ACK stands for 5, so it runs from the
        // second ACK of the round on.
        let stretch_round = |h: &mut HyStart, pn: &mut u64, rtt: Dur, per_ack: u64, cwnd: &mut u64, ss: &mut u64| {
            for k in 1..=4 {
                h.on_ack(up_to(*pn + 10 * k - 1, *pn + 40), per_ack, rtt, 10 * MSS, cwnd, ss);
            }
            *pn += 40;
        };
        for (per_ack, exits) in [(1, false), (10u64.div_ceil(2), true)] {
            let mut h = HyStart::new(&HyStartConfig::default(), MSS);
            let (mut pn, mut cwnd, mut ss) = (0, 40 * MSS, u64::MAX);
            stretch_round(&mut h, &mut pn, ms(600), per_ack, &mut cwnd, &mut ss);
            // RttThresh = min(600/8, 16 ms) = 16 ms: 630 ms is a delay increase.
            stretch_round(&mut h, &mut pn, ms(630), per_ack, &mut cwnd, &mut ss);
            assert_eq!(
                matches!(h.phase(), HyStartPhase::Css { .. }),
                exits,
                "{per_ack} samples per ACK"
            );
        }
    }
}
