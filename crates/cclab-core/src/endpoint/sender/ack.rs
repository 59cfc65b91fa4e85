//! ACK frames and timers: newly acknowledged packets, RTT samples (RFC 9002 §5), loss detection
//! and the PTO (§6), ECN (§7.3.2, §B.7), persistent congestion (§7.6), and the one controller
//! call per ACK frame or loss timeout.

use super::stream::AckedJoin;
use super::{Sender, PTO_PROBES};
use crate::cc::{AckedPacket, CcState, CongestionEvent, LostPacket};
use crate::endpoint::TraceEvent;
use crate::recovery::delivery_rate::Rate;
use crate::recovery::loss::LossTimer;
use crate::recovery::prr::Prr;
use crate::time::{Dur, Time};
use crate::wire::packet::{AckFrame, DataChunk, Ecn};

impl Sender {
    /// RFC 9002 §A.7 `OnAckReceived` for an ACK frame arriving at true time `now`.
    pub(super) fn on_ack_frame(&mut self, now: Time, ack: &AckFrame) {
        // Checked before anything is iterated: a range reaching 2^62 must cost O(ranges), not O(2^62).
        let Ok((ranges, largest)) = ack.checked_ranges(self.sent.next_pn()) else {
            self.stats.protocol_violations += 1;
            return;
        };
        let t = self.clock.read(now);
        // Read only for `cumulative_ack_growth`: every other sender skips the ranges' front line.
        let prior_prefix = self.cumulative_ack_growth.then(|| self.stream.acked_prefix());
        let prr_before = self.prr_enabled.then(|| self.prr_before());
        // The per-ACK lists stay in place (the controller call borrows them beside the controller), not
        // moved out and back on every ACK.
        self.acked_buf.clear();
        // Send time of the largest acknowledged, if newly acknowledged.
        let mut largest_newly: Option<Time> = None;
        // The stream's side of the walk, joining the acknowledged chunks into runs.
        let mut join = AckedJoin {
            stream: &mut self.stream,
            run: None,
        };
        // The newest packet's rate interval and bytes, for a controller that reads no rate sample.
        let mut rate_only = (0, Dur::ZERO);
        // Bytes in flight the ACK newly acknowledged: with those after the walk, the bytes in flight before it,
        // where the value read before the walk was held across it.
        let mut acked_bytes = 0;
        self.sent
            .on_ack(ranges, &mut self.acked_buf, &mut join, |pn, p, bytes| {
                acked_bytes = bytes;
                // The newest packet newly acknowledged is the largest acknowledged if that one is.
                if pn == largest {
                    largest_newly = Some(p.time_sent());
                }
                if self.cc_reads_rate_samples {
                    self.rate.on_ack(t, bytes, p.time_sent(), p.bytes(), &p.delivery());
                } else {
                    rate_only = self.rate.on_ack_rate_only(t, bytes, p.time_sent(), &p.delivery());
                }
            });
        if let Some(run) = join.run {
            self.stream.on_acked(run);
        }
        if !self.af_sent.is_empty() {
            self.on_ack_frequency_frames_acked();
        }
        if self.acked_buf.is_empty() {
            // §A.7: nothing newly acknowledged, nothing to do.
            return;
        }
        // The walk took `acked_bytes` from the bytes in flight it read: adding them back cannot overflow.
        let prior_in_flight = self.sent.bytes_in_flight() + acked_bytes;
        self.loss.on_ack(largest);
        // §5.1: sample only when the largest acknowledged is newly acked and something newly
        // acked is ack-eliciting, which every packet the sender records is (`SentPacket`); §5.3:
        // ack_delay limited to the peer's max_ack_delay.
        if let Some(time_sent) = largest_newly {
            let first = !self.rtt.has_sample();
            let ack_delay = Dur(ack.ack_delay_ns).min(self.max_ack_delay());
            self.rtt.update(t, t.saturating_since(time_sent), ack_delay);
            self.rtt_samples.record(self.rtt.latest());
            if first {
                self.loss.on_first_rtt_sample(self.sent.next_pn());
            }
        }
        if !self.cc_reads_rate_samples {
            // After the RTT sample, whose minimum the rate is checked against, as `generate` is.
            self.last_delivery_rate = Rate::of(rate_only.0, rate_only.1, self.rtt.min());
        }
        // §B.7: an increase of the CE count is a congestion signal.
        let mut ecn_ce = 0;
        if let Some(&[_, _, ce]) = ack.ecn.as_deref().filter(|_| self.ecn != Ecn::NotEct) {
            ecn_ce = ce.saturating_sub(self.ecn_ce_count);
            self.ecn_ce_count = self.ecn_ce_count.max(ce);
        }
        let persistent = self.detect_losses(now, t);
        let lost = !self.lost_buf.is_empty();
        let may_raise_window = self.may_raise_window(prior_prefix, lost);
        self.congestion_event(now, t, true, ecn_ce, prior_in_flight, persistent, may_raise_window);
        if let Some(before) = prr_before {
            self.update_prr(before, acked_bytes, lost || ecn_ce > 0, persistent);
        }
        if self.stats.completion_time.is_none() && self.stream.is_complete() {
            self.stats.completion_time = Some(now);
        }
    }

    /// Hands the ACK_FREQUENCY frames the packets in `acked_buf` carried to the policy, in packet-number
    /// order, before the RTT sample reads the peer's max ACK delay. Once an ACK, when a frame is outstanding,
    /// rather than a look-up in the walk for every packet: a policy sends about one frame a round trip.
    #[inline(never)]
    fn on_ack_frequency_frames_acked(&mut self) {
        for p in &self.acked_buf {
            if let (Some(seq), Some(af)) = (self.af_sent.take(p.pn), self.ack_frequency.as_mut()) {
                af.on_frame_acked(seq);
            }
        }
    }

    /// RFC 9002 §A.9 `OnLossDetectionTimeout` (plus the application's write timer); re-arms the
    /// loss timer if it fired.
    pub(super) fn on_timeout(&mut self, now: Time) {
        let t = self.clock.read(now);
        self.pump_source(t);
        // Every input re-arms `loss_deadline`, so it is the armed timer's deadline: the many wake-ups
        // for the pacer (it binds at large BDPs) or the application cost no timer computation.
        if self.loss_deadline.is_none_or(|d| d > t) {
            return;
        }
        self.on_loss_timer(now, t);
    }

    /// `on_timeout` once the loss-detection timer is due at clock reading `t`. Out of line: the pacer's
    /// wake-ups (one per packet at large BDPs) end before it, and with it inline each saved and restored
    /// the registers it needs.
    #[inline(never)]
    fn on_loss_timer(&mut self, now: Time, t: Time) {
        let Some((deadline, kind)) = self.loss.timer(&self.sent, &self.rtt, self.pto_max_ack_delay()) else {
            return;
        };
        debug_assert!(deadline <= t, "loss_deadline is the armed timer");
        match kind {
            LossTimer::TimeThreshold => {
                let prior_in_flight = self.sent.bytes_in_flight();
                let prr_before = self.prr_enabled.then(|| self.prr_before());
                let persistent = self.detect_losses(now, t);
                let lost = !self.lost_buf.is_empty();
                let prefix = self.cumulative_ack_growth.then(|| self.stream.acked_prefix());
                let may_raise_window = self.may_raise_window(prefix, lost);
                self.congestion_event(now, t, false, 0, prior_in_flight, persistent, may_raise_window);
                if let Some(before) = prr_before {
                    self.update_prr(before, 0, lost, persistent);
                }
            }
            LossTimer::Pto => {
                // §6.2.4: back off and send probes; nothing is declared lost.
                if self.trace.is_on() {
                    self.trace.push(TraceEvent::PtoExpired { time: now });
                }
                self.loss.on_pto();
                self.cc.on_pto(t);
                self.probes = PTO_PROBES;
                if !self.stream.has_retransmissions() && !self.stream.has_new_data() {
                    // Nothing new to carry: probe with the oldest unacknowledged data (distinct
                    // chunks: earlier probes may have copied it already).
                    let mut chunks: [Option<DataChunk>; PTO_PROBES as usize] = [None; PTO_PROBES as usize];
                    let mut n = 0;
                    for c in self.sent.iter().filter_map(|(_, p)| p.data()) {
                        if n == chunks.len() {
                            break;
                        }
                        if !chunks[..n].contains(&Some(c)) {
                            chunks[n] = Some(c);
                            n += 1;
                        }
                    }
                    for c in chunks.into_iter().flatten() {
                        self.stream.queue_retransmission(c);
                    }
                }
            }
        }
        self.update_loss_deadline();
    }

    /// Whether an ACK or timeout that found the acknowledged prefix at `prior_prefix` (read only
    /// with `cumulative_ack_growth`) and declared losses (`lost`) lets the window grow
    /// ([`CongestionEvent::may_raise_window`]).
    /// Without `cumulative_ack_growth` always; with it, as Linux `tcp_ack` does: recovery ends
    /// once the prefix passes its point (`tcp_fastretrans_alert`, after which that same ACK may
    /// grow the window), a loss outside recovery starts one (`tcp_enter_recovery`: `high_seq =
    /// snd_nxt`), and the window grows only outside recovery on an ACK that advanced the prefix.
    fn may_raise_window(&mut self, prior_prefix: Option<u64>, lost: bool) -> bool {
        let Some(prior_prefix) = prior_prefix else {
            return true;
        };
        let prefix = self.stream.acked_prefix();
        if self.recovery_point.is_some_and(|p| prefix >= p) {
            self.recovery_point = None;
        }
        if lost && self.recovery_point.is_none() {
            self.recovery_point = Some(self.stream.sent_end());
        }
        self.recovery_point.is_none() && prefix > prior_prefix
    }

    /// What PRR compares an ACK or loss timeout with, read before it is processed.
    fn prr_before(&self) -> PrrBefore {
        PrrBefore {
            cc_window: self.cc.window(),
            window: self.window(),
            prefix: self.stream.acked_prefix(),
        }
    }

    /// Proportional Rate Reduction after an ACK that newly acknowledged `delivered` bytes (0 for a
    /// loss timeout) and declared losses or CE marks (`congestion`), as Linux runs it toward the
    /// window the controller's reduction set. A reduction starts it, from the window the sender had
    /// (`tcp_init_cwnd_reduction`: RecoverFS is the prior cwnd; a further reduction restarts from
    /// the window then); each ACK in recovery sets the window (`tcp_cwnd_reduction`, RFC 6937 §3);
    /// the end of recovery hands the window back to the controller, at its ssthresh
    /// (`tcp_end_cwnd_reduction`). Recovery lasts while the controller is in it (RFC 9002 §7.3.2)
    /// or, with `cumulative_ack_growth`, until the acknowledged prefix passes the recovery point
    /// (Linux `high_seq`). Persistent congestion collapses the window (RFC 9002 §7.6): nothing to
    /// bring down gradually.
    fn update_prr(&mut self, before: PrrBefore, delivered: u64, congestion: bool, persistent: bool) {
        let cc_window = self.cc.window();
        if persistent {
            self.prr = None;
            return;
        }
        if congestion && cc_window < before.cc_window {
            self.prr = Some(Box::new(Prr::new(before.window, cc_window, self.mss)));
        }
        if self.prr.is_none() {
            return;
        }
        if self.recovery_point.is_none() && self.cc.state() != CcState::Recovery {
            self.prr = None;
            return;
        }
        // Linux adds the slow-start bound's extra segment only on an ACK that advanced snd_una and
        // revealed no loss (RFC 9937's safe ACK).
        let safe = !congestion && self.stream.acked_prefix() > before.prefix;
        let pipe = self.sent.bytes_in_flight();
        if let Some(prr) = self.prr.as_deref_mut() {
            prr.on_ack(delivered, pipe, safe);
        }
    }

    /// Runs loss detection at clock reading `t` (true time `now`), collecting the lost packets in
    /// `lost_buf` and re-queueing their data; returns whether they establish persistent congestion.
    /// Inline: with `update_loss_deadline` inlined into the ACK, LLVM left it a call of its own (~13
    /// instructions an ACK with its spills, 0.46 M on the 100 MB run).
    #[inline]
    fn detect_losses(&mut self, now: Time, t: Time) -> bool {
        let max_ack_delay = self.max_ack_delay();
        let lost = &mut self.lost_buf;
        lost.clear();
        let persistent = self
            .loss
            .detect_lost(t, &mut self.sent, &self.rtt, max_ack_delay, |pn, p, trigger| {
                self.rate.on_packet_lost(p.bytes());
                let delivery = p.delivery();
                lost.push(LostPacket {
                    pn,
                    bytes: p.bytes(),
                    time_sent: p.time_sent(),
                    tx_in_flight: delivery.in_flight_before + p.bytes(),
                    lost_since_sent: self.rate.lost() - delivery.lost,
                    is_app_limited: delivery.is_app_limited,
                });
                if let Some(c) = p.data() {
                    self.stream.queue_retransmission(c);
                }
                let seq = self.af_sent.take(pn);
                if seq.is_some() && seq == self.last_af_frame.map(|f| f.sequence) {
                    self.af_resend = true;
                }
                if self.trace.is_on() {
                    self.trace.push(TraceEvent::PacketLost {
                        time: now,
                        pn,
                        trigger: trigger.name(),
                    });
                }
            });
        self.stats.lost_packets += self.lost_buf.len() as u64;
        persistent
    }

    /// One controller call for one ACK frame (`acked`: with the packets in `acked_buf` and the
    /// ACK's delivery-rate sample, taken here so that it is written straight into the event) or loss
    /// timeout, with the packets in `lost_buf`, then persistent congestion, counters and traces;
    /// `may_raise_window` as [`CongestionEvent::may_raise_window`]. Inlined into its two callers (the loss
    /// timer's is out of line itself): as a call of its own, saving and restoring registers and passing
    /// seven arguments cost an ACK 28 instructions of the ~880 its handling takes.
    #[inline(always)]
    fn congestion_event(
        &mut self,
        now: Time,
        t: Time,
        acked: bool,
        ecn_ce: u64,
        prior_in_flight: u64,
        persistent: bool,
        may_raise_window: bool,
    ) {
        let with_acked = acked;
        let acked: &[AckedPacket] = if with_acked { &self.acked_buf } else { &[] };
        let lost = &self.lost_buf;
        if acked.is_empty() && lost.is_empty() {
            return;
        }
        let mut ev = CongestionEvent {
            now: t,
            true_now: now,
            tick: self.clock.tick(),
            acked,
            lost,
            ecn_ce,
            rtt: &self.rtt,
            prior_in_flight,
            bytes_in_flight: self.sent.bytes_in_flight(),
            app_limited: self.app_limited,
            rate_sample: None,
            delivered: self.rate.delivered(),
            may_raise_window,
            // Every numbered packet went through `send`, so this is the SND.NXT a send would have told.
            next_pn: self.sent.next_pn(),
        };
        if with_acked && self.cc_reads_rate_samples {
            // Taken once the event is there, so that the sample is written straight into it (without
            // a controller that reads it, `on_ack_frame` kept only the rate).
            ev.rate_sample = self.rate.generate(self.rtt.min());
            if let Some(s) = &ev.rate_sample {
                self.last_delivery_rate = Rate::of(s.delivered, s.interval, self.rtt.min());
            }
        }
        self.cc.on_congestion_event(&ev);
        if persistent {
            // §7.6.2: collapse the window; §5.2: min_rtt restarts from the latest sample.
            self.cc.on_persistent_congestion(t);
            self.rtt.reset_min();
        }
        self.stats.cwnd_max_bytes = self.stats.cwnd_max_bytes.max(self.cc.window());
        if self.trace.is_on() {
            let metrics = crate::endpoint::Endpoint::metrics(self);
            self.trace.metrics(now, &metrics);
            let state = self.cc.state();
            if state != self.cc_state {
                self.trace.push(TraceEvent::CongestionState {
                    time: now,
                    old: self.cc_state,
                    new: state,
                });
            }
            // Kept only for the trace (`set_tracing` catches it up): untraced, a controller call per ACK less.
            self.cc_state = state;
        }
    }
}

/// The sender's windows and acknowledged prefix before an ACK or loss timeout, for PRR.
#[derive(Clone, Copy)]
struct PrrBefore {
    /// The controller's window, bytes.
    cc_window: u64,
    /// The sender's window (PRR's while one runs), bytes.
    window: u64,
    /// The acknowledged prefix of the stream, bytes.
    prefix: u64,
}
