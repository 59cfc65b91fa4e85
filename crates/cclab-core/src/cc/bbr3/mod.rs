//! BBR version 3: draft-ietf-ccwg-bbr, the working group's latest text (editor's copy,
//! <https://github.com/ietf-wg-ccwg/draft-ietf-ccwg-bbr> at 4ce5e87; published revisions at
//! <https://datatracker.ietf.org/doc/draft-ietf-ccwg-bbr/>), with the details the draft leaves
//! open taken from Google's published v3 code (github.com/google/bbr, branch v3,
//! `net/ipv4/tcp_bbr.c`, "Linux v3" below). Section numbers (§) refer to that editor's copy.
//!
//! Like v1 (`cc::bbr`) it paces at a gain times a bandwidth estimate and caps inflight at a gain
//! times the BDP, but its model also has bounds learnt from loss and ECN (§5.5.10, §5.5.10.3):
//! `inflight_hi`, the long-term ceiling that bandwidth probes found safe (cut to
//! `max(tx_in_flight, β · target)` when a probe's loss rate exceeds 2 %), and `bw_lo` /
//! `inflight_lo`, short-term limits cut by β = 0.7 per round with loss (or by the ECN mark
//! fraction) while not probing. (The draft now calls them `inflight_longterm`, `bw_shortterm`
//! and `inflight_shortterm`; the code keeps Linux's names.) ProbeBW is a cycle of four phases
//! (§5.3.3): Down (drain the queue a probe built), Cruise (hold inflight with headroom), Refill
//! (one round at the estimate) and Up (probe with growing `inflight_hi`), with a probe every
//! 2–3 s or every min(63, BDP in packets) rounds, whichever comes first. ProbeRTT runs every 5 s and halves inflight to 0.5 ×
//! BDP rather than v1's 4 packets (§5.3.4).
//!
//! Files: `max_bw` (the two-cycle bandwidth filter), `signals` (per-round loss, ECN and latest
//! delivery), `bounds` (`inflight_hi`, `inflight_lo`, `bw_lo`), `control` (pacing rate, send
//! quantum, cwnd), `startup` (Startup and Drain), `probe_bw`, `probe_rtt`. Shared with v1:
//! round counting and the min-RTT estimate (`bbr::model`) and the ACK-aggregation estimate
//! (`bbr::ack_aggregation`). The sender releases packets in aggregates of up to one send
//! quantum (§5.6.3, `recovery::pacer`), as Linux does with TSO bursts. Not modelled: undo after
//! spurious recovery (§5.5.11), the larger TSO bursts Linux allows below ~3 ms of min RTT
//! (`bbr_tso_rtt_shift`), Linux's PLB and fast path.

mod bounds;
mod config;
mod control;
mod max_bw;
mod probe_bw;
mod probe_rtt;
mod signals;
mod startup;
#[cfg(test)]
mod test_support;

pub use self::config::Bbr3Config;
use self::max_bw::MaxBw;
use self::probe_bw::Cycle;
pub use self::probe_bw::Phase;
use self::probe_rtt::ProbeRtt;
use self::signals::Signals;
use self::startup::FullBw;
use super::bbr::ack_aggregation::AckAggregation;
use super::bbr::model::{Rounds, RtProp};
use super::{CcState, CongestionController, CongestionEvent};
use crate::time::{Dur, Time};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// BBRMinPipeCwnd (§5.6.4.3): 4 packets, two ACKs of two packets each in flight.
const MIN_PIPE_CWND_PACKETS: u64 = 4;

/// The state machine (§5.1).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Startup,
    Drain,
    ProbeBw(Phase),
    ProbeRtt(ProbeRtt),
}

/// The BBRv3 controller. All sizes are bytes counted in flight; rates are bytes/s.
#[derive(Clone, Debug)]
pub struct Bbr3 {
    cfg: Bbr3Config,
    mss: u64,
    rounds: Rounds,
    max_bw: MaxBw,
    /// BBR.min_rtt over MinRTTFilterLen (§5.5.7).
    min_rtt: RtProp,
    /// BBR.probe_rtt_min_delay over ProbeRTTInterval; its expiry schedules ProbeRTT (§5.3.4).
    probe_rtt_min: RtProp,
    aggregation: AckAggregation,
    mode: Mode,
    full_bw: FullBw,
    signals: Signals,
    /// BBR.bw_lo (§5.5.10.3), `None` = ∞.
    bw_lo: Option<f64>,
    /// BBR.inflight_lo (§5.5.10.3), `None` = ∞.
    inflight_lo: Option<u64>,
    /// BBR.inflight_hi (§5.5.10), `None` = ∞.
    inflight_hi: Option<u64>,
    cycle: Cycle,
    rng: Xoshiro256PlusPlus,
    pacing_rate: f64,
    /// The initial pacing rate has been recomputed from a measured RTT.
    has_seen_rtt: bool,
    send_quantum: u64,
    cwnd: u64,
    /// BBR.prior_cwnd: cwnd before recovery or ProbeRTT cut it.
    prior_cwnd: u64,
    ssthresh: u64,
    /// Start of the current loss-recovery period (RFC 9002 §7.3.2), `None` outside recovery.
    recovery_start: Option<Time>,
    /// BBR.idle_restart: sending resumed from idle since the last ACK (§5.4).
    idle_restart: bool,
    /// `C.delivered` range of packets sent during the last ProbeRTT (app-limited samples).
    probe_rtt_bubble: Option<(u64, u64)>,
}

impl Bbr3 {
    /// `BBRInit` (§5.2.1) at `now` for full-sized packets of `mss` bytes.
    pub fn new(cfg: &Bbr3Config, now: Time, mss: u64) -> Bbr3 {
        let mut bbr = Bbr3 {
            cfg: cfg.clone(),
            mss,
            rounds: Rounds::default(),
            max_bw: MaxBw::default(),
            min_rtt: RtProp::lower_only(cfg.min_rtt_filter_len, now),
            probe_rtt_min: RtProp::lower_only(cfg.probe_rtt_interval, now),
            aggregation: AckAggregation::new(cfg.extra_acked_window_rounds, now, mss),
            mode: Mode::Startup,
            full_bw: FullBw::default(),
            signals: Signals::new(cfg.ecn),
            bw_lo: None,
            inflight_lo: None,
            inflight_hi: None,
            cycle: Cycle::default(),
            rng: Xoshiro256PlusPlus::seed_from_u64(cfg.seed),
            pacing_rate: 0.0,
            has_seen_rtt: false,
            send_quantum: 2 * mss,
            cwnd: cfg.start_window_packets.unwrap_or(cfg.initial_window_packets) * mss,
            prior_cwnd: 0,
            ssthresh: u64::MAX,
            recovery_start: None,
            idle_restart: false,
            probe_rtt_bubble: None,
        };
        bbr.init_pacing_rate(cfg.initial_rtt);
        bbr.set_send_quantum();
        bbr
    }

    /// BBR.max_bw: max delivery rate over the last two probe cycles, bytes/s.
    pub fn max_bw(&self) -> f64 {
        self.max_bw.get()
    }
    /// BBR.bw = min(max_bw, bw_lo), the rate the controls use (§5.5.10.3), bytes/s.
    pub fn bw(&self) -> f64 {
        self.bw_lo.map_or(self.max_bw(), |lo| lo.min(self.max_bw()))
    }
    /// BBR.min_rtt, `None` before the first RTT sample.
    pub fn min_rtt(&self) -> Option<Dur> {
        self.min_rtt.get()
    }
    /// BBR.inflight_hi, bytes; `None` while unbounded.
    pub fn inflight_hi(&self) -> Option<u64> {
        self.inflight_hi
    }
    /// BBR.inflight_lo, bytes; `None` while unbounded.
    pub fn inflight_lo(&self) -> Option<u64> {
        self.inflight_lo
    }
    /// BBR.bw_lo, bytes/s; `None` while unbounded.
    pub fn bw_lo(&self) -> Option<f64> {
        self.bw_lo
    }
    /// BBR.filled_pipe: Startup has found the bottleneck bandwidth.
    pub fn filled_pipe(&self) -> bool {
        self.full_bw.filled_pipe
    }
    /// Packet-timed rounds completed (BBR.round_count).
    pub fn round_count(&self) -> u64 {
        self.rounds.count()
    }
    /// The ProbeBW phase, `None` outside ProbeBW.
    pub fn probe_bw_phase(&self) -> Option<Phase> {
        match self.mode {
            Mode::ProbeBw(p) => Some(p),
            _ => None,
        }
    }
    /// BBR.pacing_gain of the current state (§5.6.1).
    pub fn pacing_gain(&self) -> f64 {
        self.gains().0
    }
    /// BBR.cwnd_gain of the current state (§5.6.1).
    pub fn cwnd_gain(&self) -> f64 {
        self.gains().1
    }

    /// (pacing_gain, cwnd_gain) of the current state (§5.3.1–§5.3.4).
    fn gains(&self) -> (f64, f64) {
        let c = &self.cfg;
        match self.mode {
            Mode::Startup => (c.startup_pacing_gain, c.startup_cwnd_gain),
            Mode::Drain => (c.drain_pacing_gain, c.startup_cwnd_gain),
            Mode::ProbeBw(Phase::Down) => (c.probe_bw_down_pacing_gain, c.cwnd_gain),
            Mode::ProbeBw(Phase::Cruise | Phase::Refill) => (1.0, c.cwnd_gain),
            Mode::ProbeBw(Phase::Up) => (c.probe_bw_up_pacing_gain, c.probe_bw_up_cwnd_gain),
            Mode::ProbeRtt(_) => (1.0, c.probe_rtt_cwnd_gain),
        }
    }

    /// C.InitialCwnd (§2.1), bytes: the configured initial window, also after a start from fewer
    /// packets (`start_window_packets`), as Linux's checks use the constant `TCP_INIT_CWND`.
    fn initial_cwnd(&self) -> u64 {
        self.cfg.initial_window_packets * self.mss
    }

    /// The window the connection started from, bytes.
    fn start_cwnd(&self) -> u64 {
        self.cfg.start_window_packets.unwrap_or(self.cfg.initial_window_packets) * self.mss
    }

    fn min_pipe_cwnd(&self) -> u64 {
        MIN_PIPE_CWND_PACKETS * self.mss
    }

    /// `UpdateMinRTT` (§5.3.4, Linux v3 `bbr_update_min_rtt`): the 5 s min, refreshed only by
    /// a lower sample, schedules ProbeRTT; BBR.min_rtt takes it and its stamp when it is lower
    /// or the 10 s estimate expired.
    fn update_min_rtt(&mut self, now: Time, rtt: Option<Dur>) {
        self.probe_rtt_min.update(now, rtt);
        self.min_rtt.update_from(now, &self.probe_rtt_min);
    }
}

impl CongestionController for Bbr3 {
    /// `BBRHandleRestartFromIdle` (§5.4): a packet sent with nothing else in flight ends an
    /// idle period; in ProbeBW it is paced at BBR.bw rather than at the phase's gain, and a
    /// ProbeRTT whose time is up ends (the idle period drained the queue).
    fn on_packet_sent(&mut self, now: Time, _pn: u64, bytes: u64, bytes_in_flight: u64) {
        if bytes_in_flight <= bytes {
            self.idle_restart = true;
            match self.mode {
                Mode::ProbeBw(_) => self.set_pacing_rate_with_gain(1.0),
                Mode::ProbeRtt(p) => self.check_probe_rtt_done(now, p),
                _ => {}
            }
        }
    }

    /// `UpdateOnACK` (§5.2.3): model and state first, then pacing rate, send quantum and
    /// cwnd, in the order of Linux v3 `bbr_main`.
    fn on_congestion_event(&mut self, ev: &CongestionEvent<'_>) {
        let acked = ev.acked_bytes();
        let lost: u64 = ev.lost.iter().map(|p| p.bytes).sum();
        if !self.has_seen_rtt && ev.rtt.has_sample() {
            self.has_seen_rtt = true;
            self.init_pacing_rate(ev.rtt.smoothed());
        }
        let rs = ev.rate_sample.map(|rs| self.mark_probe_rtt_bubble(rs));
        match &rs {
            Some(rs) => self.rounds.on_sample(rs.prior_delivered, ev.delivered),
            None => self.rounds.no_sample(),
        }
        let ce_bytes = (ev.ecn_ce * self.mss).min(acked);
        if self.rounds.start() {
            self.cycle.rounds_since_probe += 1;
            self.update_ecn_alpha(ev.delivered);
        }
        self.signals.on_ack(ev.delivered, lost, ce_bytes);
        // §5.2.4: each packet declared lost first (Linux v3 `bbr_skb_marked_lost`).
        for p in ev.lost {
            self.handle_lost_packet(p, ev.now, ev.delivered);
        }
        self.signals.update_latest(rs.as_ref(), ev.delivered);
        self.update_congestion_signals(rs.as_ref());
        if acked > 0 && rs.is_some_and(|rs| rs.delivery_rate > 0.0) {
            let round = self.rounds.count();
            self.aggregation.update(ev.now, acked, self.bw(), round, self.cwnd);
        }
        self.check_startup_high_loss(rs.as_ref());
        self.check_full_bw_reached(rs.as_ref());
        self.check_drain(ev);
        if let Some(rs) = &rs {
            self.update_probe_bw_cycle_phase(ev, rs, acked);
        }
        self.update_min_rtt(ev.now, rs.map(|rs| rs.rtt));
        self.check_probe_rtt(ev);
        if acked > 0 {
            self.idle_restart = false;
        }
        self.set_pacing_rate_with_gain(self.gains().0);
        self.set_send_quantum();
        self.set_cwnd(ev, acked);
        self.signals.advance_latest(rs.as_ref());
    }

    /// Treated as a retransmission timeout (§5.6.4.4): save cwnd, restart from one packet,
    /// and restore the saved cwnd when recovery ends.
    fn on_persistent_congestion(&mut self, now: Time) {
        self.save_cwnd();
        self.recovery_start = Some(now);
        self.cwnd = self.mss;
        self.full_bw.reset();
    }

    fn window(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    fn pacing_rate(&self) -> Option<f64> {
        Some(self.pacing_rate)
    }

    /// C.send_quantum (§5.6.3): the sender releases up to 1 ms at the pacing rate as one
    /// aggregate, as Linux v3 sizes its TSO bursts (`bbr_tso_segs_generic`).
    fn send_quantum(&self) -> Option<u64> {
        Some(self.send_quantum)
    }

    fn state(&self) -> CcState {
        CcState::Other(match self.mode {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw(p) => p.name(),
            Mode::ProbeRtt(_) => "probe_rtt",
        })
    }

    fn name(&self) -> &'static str {
        "bbr3"
    }
}
