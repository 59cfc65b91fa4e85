//! ProbeRTT (§5.3.4): when no RTT sample has matched or lowered the recent minimum for
//! ProbeRTTInterval (5 s), cap cwnd at 0.5 × BDP for max(ProbeRTTDuration, one round) so that
//! the bottleneck queue drains and min_rtt can be measured again. v1 capped at 4 packets every
//! 10 s; halving inflight keeps most of the throughput on long paths.

use super::{Bbr3, Mode};
use crate::cc::{CongestionEvent, RateSample};
use crate::time::Time;

/// Progress through ProbeRTT.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct ProbeRtt {
    /// BBR.probe_rtt_done_stamp: earliest exit; `None` until inflight first fell to the cap.
    done_stamp: Option<Time>,
    /// BBR.probe_rtt_round_done: a full round passed at low inflight.
    round_done: bool,
}

impl Bbr3 {
    /// `BBRCheckProbeRTT` with `BBRHandleProbeRTT` (§5.3.4). Not entered right after an idle
    /// restart: the idle period already drained the queue.
    pub(super) fn check_probe_rtt(&mut self, ev: &CongestionEvent<'_>) {
        let in_probe_rtt = matches!(self.mode, Mode::ProbeRtt(_));
        if !in_probe_rtt && self.probe_rtt_min.expired() && !self.idle_restart {
            self.save_cwnd();
            self.mode = Mode::ProbeRtt(ProbeRtt::default());
            self.cycle.ack_phase = super::probe_bw::AckPhase::ProbeStopping;
            self.rounds.restart(ev.delivered);
            self.probe_rtt_bubble = Some((ev.delivered, ev.delivered));
        }
        let Mode::ProbeRtt(mut p) = self.mode else {
            return;
        };
        // The draft sets `C.app_limited = C.delivered + inflight` on every ProbeRTT ACK so that
        // the low rate of this phase stays out of the max_bw filter; see `mark_probe_rtt_bubble`.
        if let Some((_, end)) = &mut self.probe_rtt_bubble {
            *end = ev.delivered + ev.bytes_in_flight;
        }
        match p.done_stamp {
            None if ev.bytes_in_flight <= self.probe_rtt_cwnd() => {
                p.done_stamp = Some(ev.now + self.cfg.probe_rtt_duration);
                p.round_done = false;
                self.rounds.restart(ev.delivered);
            }
            None => {}
            Some(_) => {
                p.round_done |= self.rounds.start();
                if p.round_done {
                    self.mode = Mode::ProbeRtt(p);
                    self.check_probe_rtt_done(ev.now, p);
                    return;
                }
            }
        }
        self.mode = Mode::ProbeRtt(p);
    }

    /// `BBRCheckProbeRTTDone` (§5.3.4): once ProbeRTTDuration has passed, schedule the next
    /// ProbeRTT no sooner than ProbeRTTInterval from now, restore cwnd and leave.
    pub(super) fn check_probe_rtt_done(&mut self, now: Time, p: ProbeRtt) {
        if p.done_stamp.is_none_or(|done| now <= done) {
            return;
        }
        self.probe_rtt_min.restamp(now);
        self.restore_cwnd();
        self.exit_probe_rtt(now);
    }

    /// `BBRExitProbeRTT` (§5.3.4): back to ProbeBW via Down and straight to Cruise (inflight is
    /// already below the BDP), with a fresh probe wait; or to Startup if the pipe was never full.
    fn exit_probe_rtt(&mut self, now: Time) {
        self.reset_lower_bounds();
        if self.full_bw.filled_pipe {
            let delivered = self.probe_rtt_bubble.map_or(0, |(_, end)| end);
            self.start_probe_bw_down(now, delivered);
            self.start_probe_bw_cruise();
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// Applies the ProbeRTT app-limited mark to a sample (as v1 does): a packet sent while the
    /// draft's `C.app_limited` mark was set has `prior_delivered` between `C.delivered` at
    /// ProbeRTT entry and the last mark, and the sender would flag its sample app-limited.
    pub(super) fn mark_probe_rtt_bubble(&self, mut rs: RateSample) -> RateSample {
        if let Some((start, end)) = self.probe_rtt_bubble {
            rs.is_app_limited |= (start..=end).contains(&rs.prior_delivered);
        }
        rs
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{bbr_in, BDP, MSS, RTT};
    use super::super::Phase;
    use super::*;
    use crate::cc::test_util::{event, rtt_of};
    use crate::time::Dur;

    fn at(ms: u64) -> Time {
        Time::ZERO + Dur::from_millis(ms)
    }

    #[test]
    fn bbr3_probe_rtt_after_five_seconds_caps_cwnd_at_half_bdp_for_200ms_and_a_round() {
        let mut b = bbr_in(Mode::ProbeBw(Phase::Cruise));
        let cwnd = b.cwnd;
        let r = rtt_of(RTT);
        // bbr_in measured min_rtt at t = 0; 5 s later a higher sample expires the 5 s minimum.
        b.update_min_rtt(at(5001), Some(RTT * 2));
        let ev = CongestionEvent {
            bytes_in_flight: cwnd,
            delivered: 100 * MSS,
            ..event(at(5001), &[], &[], &r)
        };
        b.check_probe_rtt(&ev);
        assert!(matches!(b.mode, Mode::ProbeRtt(_)));
        b.set_cwnd(&ev, MSS);
        assert_eq!(b.cwnd, BDP / 2, "v3 halves the BDP instead of v1's 4 packets");
        assert_eq!(b.min_rtt(), Some(RTT), "the 10 s min_rtt holds");
        // Inflight reaches the cap at 5.1 s: the 200 ms clock starts, and a new round.
        let low = CongestionEvent {
            bytes_in_flight: BDP / 2,
            delivered: 110 * MSS,
            ..event(at(5100), &[], &[], &r)
        };
        b.check_probe_rtt(&low);
        b.rounds.on_sample(111 * MSS, 150 * MSS);
        b.check_probe_rtt(&CongestionEvent { now: at(5200), ..low });
        assert!(matches!(b.mode, Mode::ProbeRtt(_)), "a round passed but not 200 ms");
        b.rounds.no_sample();
        b.check_probe_rtt(&CongestionEvent { now: at(5301), ..low });
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Cruise));
        assert_eq!(b.cwnd, cwnd, "cwnd restored");
    }

    #[test]
    fn bbr3_rtt_samples_at_the_minimum_do_not_postpone_probe_rtt() {
        // No queue: every RTT sample equals the minimum bbr_in measured at t = 0. Only a lower
        // sample refreshes the 5 s minimum (§5.3.4, Linux v3 `bbr_update_min_rtt`), so ProbeRTT
        // still comes 5 s later.
        let mut b = bbr_in(Mode::ProbeBw(Phase::Cruise));
        let r = rtt_of(RTT);
        for ms in (100..=5000).step_by(100) {
            b.update_min_rtt(at(ms), Some(RTT));
            b.check_probe_rtt(&event(at(ms), &[], &[], &r));
            assert_eq!(b.mode, Mode::ProbeBw(Phase::Cruise), "{ms} ms");
        }
        b.update_min_rtt(at(5001), Some(RTT));
        b.check_probe_rtt(&event(at(5001), &[], &[], &r));
        assert!(matches!(b.mode, Mode::ProbeRtt(_)));
        assert_eq!(b.min_rtt(), Some(RTT));
    }
}
