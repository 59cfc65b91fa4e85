//! BBR version 1: draft-cardwell-iccrg-bbr-congestion-control-00 (July 2017,
//! <https://datatracker.ietf.org/doc/html/draft-cardwell-iccrg-bbr-congestion-control-00>), with
//! the details the draft leaves open taken from Linux `net/ipv4/tcp_bbr.c`. Section numbers (§)
//! refer to draft-00.
//!
//! BBR builds a model of the path from the delivery-rate samples the sender attaches to each ACK
//! (`CongestionEvent::rate_sample`, draft-cheng-iccrg-delivery-rate-estimation): BtlBw, the
//! windowed max delivery rate over 10 packet-timed rounds, and RTprop, the min RTT over 10 s.
//! It paces at `pacing_gain · BtlBw` and caps inflight at `cwnd_gain · BtlBw · RTprop` plus
//! send quanta. The gains come from the mode: Startup → Drain → ProbeBW ⇄ ProbeRTT.
//!
//! One Linux addition absent from draft-00 is modelled, on by default as in Linux since v5.1:
//! the ACK-aggregation cwnd (`ack_aggregation`), which lets cwnd cover the silences between
//! aggregated ACKs.
//!
//! Files: `model` (rounds, BtlBw, RTprop, BDP: shared with later BBR versions),
//! `ack_aggregation` (the `extra_acked` estimate), `control` (pacing rate, send quantum, cwnd),
//! `startup` (Startup and Drain), `probe_bw`, `probe_rtt`. Not modelled: other Linux additions
//! (long-term policer bandwidth, TSO budget, 1 % pacing margin).

pub(crate) mod ack_aggregation;
mod control;
pub(crate) mod model;
mod probe_bw;
mod probe_rtt;
mod startup;

use self::ack_aggregation::AckAggregation;
use self::model::PathModel;
use self::probe_bw::GainCycle;
use self::probe_rtt::ProbeRtt;
use self::startup::FullPipe;
use super::{CcState, CongestionController, CongestionEvent};
use crate::time::{Dur, Time};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Deserialize;

/// BBRMinPipeCwnd (§4.2.3.3): enough for two ACKs of two packets each in flight.
const MIN_PIPE_CWND_PACKETS: u64 = 4;

/// BBRv1 parameters; the defaults are the draft-00 constants.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BbrConfig {
    /// Seed of the generator that draws the ProbeBW starting phase (§4.3.4.3). The simulator
    /// passes one per flow. Default 0.
    pub seed: u64,
    /// Initial congestion window, packets; the draft leaves it to the transport (§4.2.3.1), Linux
    /// uses `TCP_INIT_CWND` = 10.
    pub initial_window_packets: u64,
    /// The window the connection starts from, packets, when the transport cut it below
    /// `initial_window_packets`: TCP after a lost SYN or SYN-ACK (RFC 5681 §3.1: 1, set by
    /// `CcConfig::with_one_segment_window`); `None` = `initial_window_packets`. Not a scenario
    /// key. The first pacing rate follows it, as Linux's `bbr_init_pacing_rate_from_rtt` reads
    /// the connection's cwnd; the checks against InitialCwnd keep `initial_window_packets`.
    #[serde(skip)]
    pub start_window_packets: Option<u64>,
    /// RTT assumed by the initial pacing rate until the first RTT sample (§4.2.1: 1 ms).
    pub initial_rtt: Dur,
    /// BtlBwFilterLen: window of the BtlBw max filter, packet-timed rounds (§4.1.1.2: 10).
    pub btl_bw_filter_rounds: u64,
    /// RTpropFilterLen = ProbeRTTInterval: lifetime of the RTprop estimate without a refresh, and
    /// so the longest time between ProbeRTTs (§4.1.2.2, §4.3.5: 10 s).
    pub rtprop_filter_len: Dur,
    /// BBRHighGain: pacing and cwnd gain in Startup (§4.3.2.1: 2/ln 2 ≈ 2.885).
    pub high_gain: f64,
    /// cwnd gain in ProbeBW (§4.3.4.1: 2).
    pub probe_bw_cwnd_gain: f64,
    /// ProbeRTTDuration: minimum time at BBRMinPipeCwnd in ProbeRTT (§4.3.5: 200 ms).
    pub probe_rtt_duration: Dur,
    /// Add the ACK-aggregation estimate `extra_acked` to the cwnd target once the pipe is full
    /// (Linux `tcp_bbr.c` since v5.1; not in draft-00). Default true, as Linux.
    pub ack_aggregation: bool,
    /// Multiplier of `extra_acked` in the cwnd target (Linux `bbr_extra_acked_gain`: 1).
    pub extra_acked_gain: f64,
    /// Window of the `extra_acked` max filter, packet-timed rounds (Linux
    /// `bbr_extra_acked_win_rtts`: 5; draft-ietf-ccwg-bbr `BBRExtraAckedFilterLen`: 10).
    pub extra_acked_window_rounds: u64,
    /// The cwnd term is at most BtlBw times this (Linux `bbr_extra_acked_max_us`: 100 ms).
    pub extra_acked_max: Dur,
}

impl Default for BbrConfig {
    fn default() -> Self {
        BbrConfig {
            seed: 0,
            initial_window_packets: 10,
            start_window_packets: None,
            initial_rtt: Dur::from_millis(1),
            btl_bw_filter_rounds: 10,
            rtprop_filter_len: Dur::from_secs(10),
            high_gain: 2.0 / core::f64::consts::LN_2,
            probe_bw_cwnd_gain: 2.0,
            probe_rtt_duration: Dur::from_millis(200),
            ack_aggregation: true,
            extra_acked_gain: 1.0,
            extra_acked_window_rounds: 5,
            extra_acked_max: Dur::from_millis(100),
        }
    }
}

/// BBR's mode (§3.4), with the state only that mode needs.
#[derive(Clone, Copy, Debug)]
enum Mode {
    Startup,
    Drain,
    ProbeBw(GainCycle),
    ProbeRtt(ProbeRtt),
}

/// The BBRv1 controller. All sizes are bytes counted in flight.
#[derive(Clone, Debug)]
pub struct Bbr {
    cfg: BbrConfig,
    mss: u64,
    model: PathModel,
    /// The excess-ACKed estimate, kept whether or not `cfg.ack_aggregation` applies it.
    aggregation: AckAggregation,
    mode: Mode,
    full_pipe: FullPipe,
    rng: Xoshiro256PlusPlus,
    /// BBR.pacing_rate, bytes/s.
    pacing_rate: f64,
    /// The initial pacing rate has been recomputed from a measured RTT.
    has_seen_rtt: bool,
    /// BBR.send_quantum, bytes.
    send_quantum: u64,
    cwnd: u64,
    /// BBR.prior_cwnd: cwnd before recovery or ProbeRTT cut it.
    prior_cwnd: u64,
    ssthresh: u64,
    /// When the current recovery episode last saw a loss (`control::modulate_cwnd_for_recovery`),
    /// `None` outside recovery.
    recovery_start: Option<Time>,
    /// BBR.packet_conservation: first round of recovery.
    packet_conservation: bool,
    /// BBR.idle_restart: sending resumed from idle since the last ACK.
    idle_restart: bool,
    /// `C.delivered` range of packets sent during the last ProbeRTT (app-limited samples).
    probe_rtt_bubble: Option<(u64, u64)>,
}

impl Bbr {
    /// `BBRInit` (§4.3.1) at `now` for full-sized packets of `mss` bytes.
    pub fn new(cfg: &BbrConfig, now: Time, mss: u64) -> Bbr {
        let mut bbr = Bbr {
            cfg: cfg.clone(),
            mss,
            model: PathModel::new(cfg.btl_bw_filter_rounds, cfg.rtprop_filter_len, now),
            aggregation: AckAggregation::new(cfg.extra_acked_window_rounds, now, mss),
            mode: Mode::Startup,
            full_pipe: FullPipe::default(),
            rng: Xoshiro256PlusPlus::seed_from_u64(cfg.seed),
            pacing_rate: 0.0,
            has_seen_rtt: false,
            send_quantum: mss,
            cwnd: cfg.start_window_packets.unwrap_or(cfg.initial_window_packets) * mss,
            prior_cwnd: 0,
            ssthresh: u64::MAX,
            recovery_start: None,
            packet_conservation: false,
            idle_restart: false,
            probe_rtt_bubble: None,
        };
        bbr.init_pacing_rate(cfg.initial_rtt);
        bbr.set_send_quantum();
        bbr
    }

    /// BBR.BtlBw: bottleneck bandwidth estimate, bytes/s (0 before the first sample).
    pub fn btl_bw(&self) -> f64 {
        self.model.btl_bw()
    }
    /// BBR.RTprop: round-trip propagation time estimate, `None` before the first RTT sample.
    pub fn rtprop(&self) -> Option<Dur> {
        self.model.rtprop.get()
    }
    /// Packet-timed rounds completed (BBR.round_count).
    pub fn round_count(&self) -> u64 {
        self.model.rounds.count()
    }
    /// BBR.filled_pipe: Startup has found the bottleneck bandwidth.
    pub fn filled_pipe(&self) -> bool {
        self.full_pipe.reached()
    }
    /// BBR.pacing_gain of the current mode.
    pub fn pacing_gain(&self) -> f64 {
        self.gains().0
    }
    /// BBR.cwnd_gain of the current mode.
    pub fn cwnd_gain(&self) -> f64 {
        self.gains().1
    }
    /// Index into the ProbeBW pacing-gain cycle `[5/4, 3/4, 1, 1, 1, 1, 1, 1]`; `None` outside ProbeBW.
    pub fn probe_bw_phase(&self) -> Option<usize> {
        match self.mode {
            Mode::ProbeBw(c) => Some(c.index()),
            _ => None,
        }
    }
    /// BBR.send_quantum, bytes (§4.2.2).
    pub fn send_quantum(&self) -> u64 {
        self.send_quantum
    }
    /// BBR.extra_acked: windowed max of the data acknowledged beyond `BtlBw × elapsed` over an
    /// ACK epoch, bytes (draft-ietf-ccwg-bbr §5.5.9), tracked even when `ack_aggregation` is off.
    pub fn extra_acked(&self) -> u64 {
        self.aggregation.extra_acked()
    }

    /// (pacing_gain, cwnd_gain) of the current mode (§4.3.2.1, §4.3.3, §4.3.4, §4.3.5).
    fn gains(&self) -> (f64, f64) {
        let high = self.cfg.high_gain;
        match self.mode {
            Mode::Startup => (high, high),
            Mode::Drain => (1.0 / high, high),
            Mode::ProbeBw(c) => (c.pacing_gain(), self.cfg.probe_bw_cwnd_gain),
            Mode::ProbeRtt(_) => (1.0, 1.0),
        }
    }

    /// InitialCwnd (§4.2.3.1), bytes: the configured initial window, also after a start from
    /// fewer packets (`start_window_packets`), as Linux's checks use the constant `TCP_INIT_CWND`.
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
}

impl CongestionController for Bbr {
    /// `BBRHandleRestartFromIdle` (§4.3.4.4): a packet sent with nothing in flight ends an idle
    /// period (with cwnd ≥ 4 packets, only the application can leave the pipe empty). In ProbeBW
    /// it is paced at BtlBw rather than at the phase's gain.
    fn on_packet_sent(&mut self, _now: Time, _pn: u64, bytes: u64, bytes_in_flight: u64) {
        if bytes_in_flight <= bytes {
            self.idle_restart = true;
            if matches!(self.mode, Mode::ProbeBw(_)) {
                self.set_pacing_rate_with_gain(1.0);
            }
        }
    }

    /// `BBRUpdateOnACK` (§4.1): update the model and the mode, then pacing rate and cwnd, in
    /// the order of Linux `bbr_main`.
    fn on_congestion_event(&mut self, ev: &CongestionEvent<'_>) {
        let acked = ev.acked_bytes();
        let lost: u64 = ev.lost.iter().map(|p| p.bytes).sum();
        // §4.2.1: the initial pacing rate uses the SRTT after the first RTT sample.
        if !self.has_seen_rtt && ev.rtt.has_sample() {
            self.has_seen_rtt = true;
            self.init_pacing_rate(ev.rtt.smoothed());
        }
        let rs = ev.rate_sample.map(|rs| self.mark_probe_rtt_bubble(rs));
        self.model.update_btl_bw(rs.as_ref(), ev.delivered);
        // Linux `bbr_update_model` order: BtlBw, then ACK aggregation, on valid samples only.
        if acked > 0 && rs.is_some_and(|rs| rs.delivery_rate > 0.0) {
            let round = self.model.rounds.count();
            self.aggregation
                .update(ev.now, acked, self.model.btl_bw(), round, self.cwnd);
        }
        if self.model.rounds.start() {
            // §4.1.1.3: packet conservation lasts one round.
            self.packet_conservation = false;
        }
        self.check_cycle_phase(ev, lost > 0);
        self.check_full_pipe(rs.as_ref());
        self.check_drain(ev);
        self.model.rtprop.update(ev.now, rs.map(|rs| rs.rtt));
        self.check_probe_rtt(ev);
        self.idle_restart = false;
        self.set_pacing_rate_with_gain(self.gains().0);
        self.set_send_quantum();
        self.set_cwnd(ev, acked, lost);
    }

    /// Treated as a retransmission timeout (§4.2.3.4): save cwnd, restart from one packet, and
    /// restore the saved cwnd when recovery ends. Linux also restarts the full-pipe plateau count.
    fn on_persistent_congestion(&mut self, now: Time) {
        self.save_cwnd();
        self.recovery_start = Some(now);
        self.packet_conservation = false;
        self.cwnd = self.mss;
        self.full_pipe.reset_baseline();
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

    fn state(&self) -> CcState {
        CcState::Other(match self.mode {
            Mode::Startup => "startup",
            Mode::Drain => "drain",
            Mode::ProbeBw(_) => "probe_bw",
            Mode::ProbeRtt(_) => "probe_rtt",
        })
    }

    fn name(&self) -> &'static str {
        "bbr"
    }
}
