//! How the sender's `R` and `X` change: on feedback (RFC 5348 §4.3), on the handshake's RTT
//! sample (§4.2), and when the nofeedback timer expires (§4.4).

use super::TfrcSender;
use crate::endpoint::tfrc::{equation, SlowStartFloor, T_MBI};
use crate::endpoint::trace::TraceEvent;
use crate::time::{Dur, NonZeroDur, Time};
use crate::wire::packet::TfrcFeedback;

/// `R = q·R + (1 - q)·R_sample` with q = 0.9 (RFC 5348 §4.3 step 2), computed as Linux
/// `tfrc_ewma(R, R_sample, 9)` does: in whole units of the clock resolution `res`, truncating.
/// In µs, R = 63 decays towards a 3 µs sample as 57, 51, 46, … 5, 4, 3 and stops there; at 1 ns
/// resolution this is the exact average to the nanosecond.
fn rtt_ewma(r: Dur, sample: Dur, res: NonZeroDur) -> Dur {
    let u = res.as_nanos();
    Dur((r.as_nanos() / u * 9 + sample.as_nanos() / u) / 10 * u)
}

impl TfrcSender {
    /// An RTT sample as the sender keeps it: in whole clock units, at least one unit, and at
    /// least `rtt_clamp_min` (Linux `dccp_sample_rtt`).
    fn clamp_sample(&self, sample: Dur) -> Dur {
        let u = self.clock.config().resolution.as_nanos();
        Dur(sample.as_nanos() / u * u).max(Dur(u)).max(self.cfg.rtt_clamp_min)
    }

    /// The Request/Response round trip `sample` is the first `R` (rfc3448bis-00 §4.2).
    pub(super) fn on_handshake_rtt(&mut self, sample: Dur) {
        let r = self.clamp_sample(sample);
        self.latest_rtt = r;
        self.min_rtt = self.min_rtt.min(r);
        self.rtt = Some(r);
    }

    /// RFC 5348 §4.3 steps 1–6 for feedback echoing packet `echo`, at clock reading `t`.
    pub(super) fn on_feedback(&mut self, t: Time, now: Time, fb: TfrcFeedback, echo: u64) {
        while self.sent.front().is_some_and(|&(pn, _)| pn < echo) {
            self.sent.pop_front();
        }
        // Feedback for a packet not in the history gives no RTT sample; ignore it (as Linux does).
        let Some(&(pn, sent_at)) = self.sent.front() else {
            return;
        };
        if pn != echo {
            return;
        }
        // Step 1: R_sample = (t_now - t_recvdata) - t_delay, t_recvdata being the send stamp.
        let sample = self.clamp_sample(t.saturating_since(sent_at).saturating_sub(Dur(fb.elapsed_ns)));
        self.latest_rtt = sample;
        self.min_rtt = self.min_rtt.min(sample);
        // Step 2: R = R_sample first, then the EWMA (from the handshake's R if there was one).
        let first = !self.feedback_received;
        let (r_before, x_before) = (self.rtt, self.x);
        let res = self.clock.config().resolution;
        let r = self.rtt.map_or(sample, |r| rtt_ewma(r, sample, res));
        self.rtt = Some(r);
        self.feedback_received = true;
        // Step 4 (step 3's RTO is the nofeedback interval set below).
        let loss_increase = fb.p > self.p;
        let recv_limit = self
            .x_recv_set
            .on_feedback(t, fb.x_recv_bps as f64, !self.rate_limited, loss_increase, r);
        self.p = fb.p;
        if first {
            // §4.2: the first feedback sets the initial rate W_init/R.
            self.set_x(now, self.initial_rate(r));
            self.tld = Some(t);
        } else {
            self.update_x(t, now, recv_limit);
        }
        if self.x == x_before && self.rtt != r_before {
            self.trace_metrics(now);
        }
        // Step 6: restart the nofeedback timer.
        self.nofeedback_deadline = Some(t + self.nofeedback_interval());
        self.sent_since_nofeedback_set = false;
        self.rate_limited = false;
    }

    /// The rate update at the end of RFC 5348 §4.3 step 4, given `recv_limit` (bytes/s).
    fn update_x(&mut self, t: Time, now: Time, recv_limit: f64) {
        let Some(r) = self.rtt else { return };
        let initial = self.initial_rate(r);
        // rfc3448bis-00: a sender idle for 2 RTT may restart at the RFC 3390 rate. Linux measured
        // idleness from the window counter's last advance, in whole RTTs:
        // `(now - t_last_win_count) / R >= 2` (ccid3_hc_tx_idle_rtt).
        let idle = self.wc.last_update().is_none_or(|lw| t.saturating_since(lw) >= r * 2);
        let limit = match self.cfg.slow_start_floor {
            SlowStartFloor::SegmentPerRtt if idle => recv_limit.max(initial),
            _ => recv_limit,
        };
        if self.p > 0.0 {
            // Congestion avoidance: X = max(min(X_Bps, recv_limit), s/t_mbi).
            let x_bps = equation::throughput(self.s, r, self.p);
            self.set_x(now, x_bps.min(limit).max(self.s / T_MBI.as_secs_f64()));
        } else if self.tld.is_none_or(|tld| t.saturating_since(tld) >= r) {
            // Slow start: at most one doubling per RTT.
            let floor = match self.cfg.slow_start_floor {
                SlowStartFloor::InitialRate => initial,
                SlowStartFloor::SegmentPerRtt => self.s / r.as_secs_f64(),
            };
            self.set_x(now, (2.0 * self.x).min(limit).max(floor));
            self.tld = Some(t);
        }
    }

    /// Nofeedback timer expiry, RFC 5348 §4.4.
    pub(super) fn on_nofeedback(&mut self, t: Time, now: Time) {
        if self.trace.is_on() {
            self.trace.push(TraceEvent::NofeedbackExpired { time: now });
        }
        let idle = !self.sent_since_nofeedback_set && self.pending() == 0;
        let halved = (self.x / 2.0).max(self.s / T_MBI.as_secs_f64());
        match self.rtt.filter(|_| self.feedback_received) {
            // No feedback yet: halve, unless idle since the timer was set.
            None if !idle => self.set_x(now, halved),
            None => {}
            Some(r) => {
                let recover = self.initial_rate(r);
                let x_recv = self.x_recv_set.max();
                if idle && ((self.p > 0.0 && x_recv < recover) || (self.p == 0.0 && self.x < 2.0 * recover)) {
                    // An idle sender is not cut below the recover rate.
                } else if self.p == 0.0 {
                    self.set_x(now, halved);
                } else {
                    let x_bps = equation::throughput(self.s, r, self.p);
                    // Update_Limits: X_recv if 2·X_recv already limited X, else X_Bps/2.
                    let limit = if x_bps > 2.0 * x_recv { x_recv } else { x_bps / 2.0 };
                    let limit = limit.max(self.s / T_MBI.as_secs_f64());
                    self.x_recv_set.reset(t, limit / 2.0);
                    self.update_x(t, now, limit);
                }
            }
        }
        self.nofeedback_deadline = Some(t + self.nofeedback_interval());
        self.sent_since_nofeedback_set = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rtt_ewma_truncates_in_clock_units() {
        // Linux tfrc_ewma in µs: from the 63 µs handshake sample to the 3 µs link RTT in 24 steps.
        let us = NonZeroDur::from_micros(1);
        let mut r = Dur::from_micros(63);
        let mut seq = vec![63];
        while r > Dur::from_micros(3) {
            r = rtt_ewma(r, Dur::from_micros(3), us);
            seq.push(r.as_micros());
        }
        assert_eq!(
            seq,
            [63, 57, 51, 46, 41, 37, 33, 30, 27, 24, 21, 19, 17, 15, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3]
        );
        // At 1 ns resolution it is the exact average: 0.9·63 µs + 0.1·3 µs = 57 µs.
        assert_eq!(
            rtt_ewma(Dur::from_micros(63), Dur::from_micros(3), NonZeroDur::NANOSECOND),
            Dur::from_micros(57)
        );
        assert_eq!(rtt_ewma(Dur(57_000), Dur(3_000), NonZeroDur::NANOSECOND), Dur(51_600));
    }
}
