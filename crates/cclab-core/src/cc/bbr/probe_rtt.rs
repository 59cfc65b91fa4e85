//! ProbeRTT (§4.3.5): when no RTT sample has matched or lowered RTprop for RTpropFilterLen,
//! cap inflight at BBRMinPipeCwnd for max(ProbeRTTDuration, one round) so that the bottleneck
//! queue drains and the propagation delay can be measured again.

use super::{Bbr, Mode};
use crate::cc::{CongestionEvent, RateSample};
use crate::time::Time;

/// Progress through ProbeRTT.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ProbeRtt {
    /// BBR.probe_rtt_done_stamp: earliest exit; `None` until inflight first fell to BBRMinPipeCwnd.
    done_stamp: Option<Time>,
    /// BBR.probe_rtt_round_done: a full round passed at low inflight.
    round_done: bool,
}

impl Bbr {
    /// `BBRCheckProbeRTT` with `BBRHandleProbeRTT` (§4.3.5). Not entered right after an idle
    /// restart: the idle period already drained the queue.
    pub(super) fn check_probe_rtt(&mut self, ev: &CongestionEvent<'_>) {
        if !matches!(self.mode, Mode::ProbeRtt(_)) && self.model.rtprop.expired() && !self.idle_restart {
            self.save_cwnd();
            self.mode = Mode::ProbeRtt(ProbeRtt::default());
            self.probe_rtt_bubble = Some((ev.delivered, ev.delivered));
        }
        let Mode::ProbeRtt(mut p) = self.mode else {
            return;
        };
        // The draft sets `C.app_limited = C.delivered + inflight` on every ProbeRTT ACK so that
        // the low rate of this phase does not enter the BtlBw filter; see `mark_probe_rtt_bubble`.
        if let Some((_, end)) = &mut self.probe_rtt_bubble {
            *end = ev.delivered + ev.bytes_in_flight;
        }
        match p.done_stamp {
            None if ev.bytes_in_flight <= self.min_pipe_cwnd() => {
                p.done_stamp = Some(ev.now + self.cfg.probe_rtt_duration);
                p.round_done = false;
                self.model.rounds.restart(ev.delivered);
            }
            None => {}
            Some(done) => {
                p.round_done |= self.model.rounds.start();
                if p.round_done && ev.now > done {
                    // Next ProbeRTT no sooner than RTpropFilterLen from now.
                    self.model.rtprop.restamp(ev.now);
                    self.restore_cwnd();
                    self.exit_probe_rtt(ev.now);
                    return;
                }
            }
        }
        self.mode = Mode::ProbeRtt(p);
    }

    /// `BBRExitProbeRTT`: back to ProbeBW, or to Startup if the pipe was never filled.
    fn exit_probe_rtt(&mut self, now: Time) {
        if self.full_pipe.reached() {
            self.enter_probe_bw(now);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// Applies the ProbeRTT app-limited mark to a sample. The draft marks the sender's delivery
    /// state (`C.app_limited`), which the controller cannot reach; the effect is the same: a
    /// packet sent while the mark was set has `prior_delivered` between the `C.delivered` at
    /// ProbeRTT entry and the last mark (`C.delivered + inflight`), and the sender would flag
    /// its sample app-limited.
    pub(super) fn mark_probe_rtt_bubble(&self, mut rs: RateSample) -> RateSample {
        if let Some((start, end)) = self.probe_rtt_bubble {
            rs.is_app_limited |= (start..=end).contains(&rs.prior_delivered);
        }
        rs
    }
}
