//! BBRv3's parameters, as a scenario names them (`[flow.cc] algorithm = "bbr3"`), with the
//! draft's constants as defaults. Section numbers (§) as in `bbr3/mod.rs`.

use crate::time::Dur;
use serde::Deserialize;

/// BBRv3 parameters; the defaults are the draft's constants (Linux v3 where the draft is silent).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Bbr3Config {
    /// Seed of the generator that draws the wait before each bandwidth probe (§5.3.3.8). The
    /// simulator passes one per flow. Default 0.
    pub seed: u64,
    /// Initial congestion window, packets (§5.6.4.1 leaves it to the transport; Linux: 10).
    pub initial_window_packets: u64,
    /// The window the connection starts from, packets, when the transport cut it below
    /// `initial_window_packets`: TCP after a lost SYN or SYN-ACK (RFC 5681 §3.1: 1, set by
    /// `CcConfig::with_one_segment_window`); `None` = `initial_window_packets`. Not a scenario
    /// key. The first pacing rate follows it, as Linux's `bbr_init_pacing_rate_from_rtt` reads
    /// the connection's cwnd; the checks against InitialCwnd keep `initial_window_packets`.
    #[serde(skip)]
    pub start_window_packets: Option<u64>,
    /// RTT assumed by the initial pacing rate until the first RTT sample (§5.6.2: 1 ms).
    pub initial_rtt: Dur,
    /// BBRStartupPacingGain (§5.3.1.1: 4 ln 2 ≈ 2.77, the smallest gain that doubles the
    /// sending rate each round).
    pub startup_pacing_gain: f64,
    /// BBRStartupCwndGain (§5.3.1.1: 2).
    pub startup_cwnd_gain: f64,
    /// BBR.DrainPacingGain (§5.3.2: 0.5, at most 1 / startup cwnd gain, which drains Startup's
    /// queue within a round; Linux v3 uses 1/2.885).
    pub drain_pacing_gain: f64,
    /// Pacing gain of ProbeBW_DOWN (§5.3.3.1: 0.90; Linux v3 uses 0.91).
    pub probe_bw_down_pacing_gain: f64,
    /// Pacing gain of ProbeBW_UP (§5.3.3.4: 1.25).
    pub probe_bw_up_pacing_gain: f64,
    /// BBRDefaultCwndGain: cwnd gain in Drain's successor states (§5.3.3: 2).
    pub cwnd_gain: f64,
    /// cwnd gain in ProbeBW_UP (§5.3.3.4: 2.25, Linux v3 `bbr_bw_probe_cwnd_gain`).
    pub probe_bw_up_cwnd_gain: f64,
    /// BBRProbeRTTCwndGain: ProbeRTT caps cwnd at this times the BDP (§5.3.4: 0.5).
    pub probe_rtt_cwnd_gain: f64,
    /// ProbeRTTDuration: minimum time at the ProbeRTT cwnd (§5.3.4: 200 ms).
    pub probe_rtt_duration: Dur,
    /// ProbeRTTInterval: ProbeRTT runs when no RTT sample matched or lowered the recent min for
    /// this long (§5.3.4: 5 s).
    pub probe_rtt_interval: Dur,
    /// MinRTTFilterLen: lifetime of BBR.min_rtt without a refresh (§5.5.7: 10 s).
    pub min_rtt_filter_len: Dur,
    /// BBRBeta: multiplicative cut of `bw_lo`/`inflight_lo` per lossy round and of
    /// `inflight_hi` after a too-lossy probe (§5.5.10: 0.7).
    pub beta: f64,
    /// BBRLossThresh: a probe whose loss rate exceeds this went too high (§5.5.10.2: 2 %).
    pub loss_thresh: f64,
    /// BBR.Headroom: fraction of `inflight_hi` left free outside probes (§2.8: 0.15).
    pub headroom: f64,
    /// BBRStartupFullLossCnt: loss events in one round that, with loss above `loss_thresh`,
    /// end Startup (§5.3.1.3: 6).
    pub startup_full_loss_count: u32,
    /// Use ECN marks (§5.5.10.3). Linux v3 does so only on paths whose ECN marks come from a
    /// shallow threshold (DCTCP-style) and whose min RTT is at most `ecn_max_rtt`. Default false.
    pub ecn: bool,
    /// ECN is used only while BBR.min_rtt is at most this (Linux v3 `bbr_ecn_max_rtt_us`: 5 ms).
    pub ecn_max_rtt: Dur,
    /// Gain of the per-round EWMA of the CE fraction (Linux v3 `bbr_ecn_alpha_gain`: 1/16).
    pub ecn_alpha_gain: f64,
    /// ECN cut of `inflight_lo`: `1 − ecn_factor · ecn_alpha` (Linux v3 `bbr_ecn_factor`: 1/3).
    pub ecn_factor: f64,
    /// A CE fraction above this means inflight went too high (Linux v3 `bbr_ecn_thresh`: 0.5).
    pub ecn_thresh: f64,
    /// Add the ACK-aggregation estimate `extra_acked` to the cwnd target (§5.5.9). Default true.
    pub ack_aggregation: bool,
    /// BBRExtraAckedFilterLen: window of the `extra_acked` max filter, rounds (§5.5.9: 10).
    pub extra_acked_window_rounds: u64,
    /// The ACK-aggregation term is at most BBR.bw times this (Linux `bbr_extra_acked_max_us`:
    /// 100 ms).
    pub extra_acked_max: Dur,
    /// BBRPacingMarginPercent: pace this fraction below the bandwidth estimate (§5.6.2: 1 %).
    pub pacing_margin: f64,
    /// Reno-coexistence bound on the rounds between probes (§5.3.3.8: 63).
    pub bw_probe_max_rounds: u64,
    /// Least wall-clock time between bandwidth probes (§5.3.3.8: 2 s) ...
    pub bw_probe_base: Dur,
    /// ... plus a uniform random draw below this (§5.3.3.8: 1 s).
    pub bw_probe_rand: Dur,
}

impl Default for Bbr3Config {
    fn default() -> Self {
        Bbr3Config {
            seed: 0,
            initial_window_packets: 10,
            start_window_packets: None,
            initial_rtt: Dur::from_millis(1),
            startup_pacing_gain: 4.0 * core::f64::consts::LN_2,
            startup_cwnd_gain: 2.0,
            drain_pacing_gain: 0.5,
            probe_bw_down_pacing_gain: 0.90,
            probe_bw_up_pacing_gain: 1.25,
            cwnd_gain: 2.0,
            probe_bw_up_cwnd_gain: 2.25,
            probe_rtt_cwnd_gain: 0.5,
            probe_rtt_duration: Dur::from_millis(200),
            probe_rtt_interval: Dur::from_secs(5),
            min_rtt_filter_len: Dur::from_secs(10),
            beta: 0.7,
            loss_thresh: 0.02,
            headroom: 0.15,
            startup_full_loss_count: 6,
            ecn: false,
            ecn_max_rtt: Dur::from_millis(5),
            ecn_alpha_gain: 1.0 / 16.0,
            ecn_factor: 1.0 / 3.0,
            ecn_thresh: 0.5,
            ack_aggregation: true,
            extra_acked_window_rounds: 10,
            extra_acked_max: Dur::from_millis(100),
            pacing_margin: 0.01,
            bw_probe_max_rounds: 63,
            bw_probe_base: Dur::from_secs(2),
            bw_probe_rand: Dur::from_secs(1),
        }
    }
}
