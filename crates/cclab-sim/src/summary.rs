//! `summary.json`: one record per run with per-flow and per-link results.
//!
//! Keys come out in struct-field order, so identical runs give identical files except for the
//! wall-clock fields under `sim`. Units are in the key names; `docs/outputs.md` defines each.

pub use crate::ack_intervals::{AckIntervalStats, IntervalSummary};
use crate::timeseries::secs;
use cclab_core::endpoint::{EndpointStats, Metrics};
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::FlowId;
use serde::Serialize;

/// The whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Scenario name.
    pub scenario: String,
    /// RNG seed of the run.
    pub seed: u64,
    /// How the run was made: `"sim"` (simulated), `"real"` (cclab's endpoints on UDP sockets
    /// with the wall clock) or `"kernel"` (the kernel's TCP).
    pub mode: String,
    /// Simulator cost.
    pub sim: SimStats,
    /// One entry per flow, in flow-id order.
    pub flows: Vec<FlowSummary>,
    /// One entry per link direction.
    pub links: Vec<LinkSummary>,
    /// Jain's fairness index over the goodputs of the flows that started before the run ended (see
    /// [`jain_index`]); absent with fewer than two such flows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fairness_jain: Option<f64>,
    /// The real-time path emulator's own measurements (real and kernel modes with an emulated path).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emulator: Option<EmulatorSummary>,
}

/// How well the real-time emulator kept the model's times: every packet's release error is its
/// actual send time minus the time the link model gave it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EmulatorSummary {
    /// Packets released (delivered by the model and sent on a socket or device).
    pub packets: u64,
    /// Median release error, s.
    pub release_error_p50_s: f64,
    /// 99th percentile of the release error, s.
    pub release_error_p99_s: f64,
    /// Largest release error, s.
    pub release_error_max_s: f64,
    /// Packets released more than `late_threshold_s` after their modelled time.
    pub late_packets: u64,
    /// The lateness threshold, s.
    pub late_threshold_s: f64,
    /// Datagrams that arrived from an address no flow uses (dropped, counted).
    pub unexpected_packets: u64,
    /// The emulator's thread ran with real-time scheduling (`SCHED_FIFO`; needs root); in kernel
    /// mode, the sending and receiving applications' too.
    pub realtime_scheduling: bool,
    /// CPU seconds the emulator's thread used.
    pub cpu_s: f64,
    /// `cpu_s` / wall seconds.
    pub cpu_utilisation: f64,
}

/// Simulator cost and extent.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SimStats {
    /// Events processed.
    pub events: u64,
    /// Wall-clock seconds the run took (not deterministic).
    pub wall_s: f64,
    /// CPU seconds the simulating thread used (not deterministic; wall seconds where not measurable).
    pub cpu_s: f64,
    /// `events / cpu_s`: events per CPU-second, unaffected by other load on the machine.
    pub events_per_s: f64,
    /// Simulated seconds at the end of the run.
    pub sim_time_s: f64,
}

/// One flow's results.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FlowSummary {
    /// Flow id.
    pub flow: u32,
    /// The flow's `name` in the scenario, else `flow<id>`.
    pub name: String,
    /// Congestion controller (`newreno`, `cubic`, ...; `tfrc` for DCCP).
    pub cc: String,
    /// Receiver ACK policy (`rfc9000`, `tcp-delayed`, ...; `ccid3` for DCCP feedback).
    pub ack_policy: String,
    /// Application bytes delivered in order to the receiver × 8 / transfer time, bits/s.
    pub goodput_bps: f64,
    /// Seconds from the flow's start to the receiver getting the last byte; `null` if the
    /// transfer did not complete.
    pub completion_time_s: Option<f64>,
    /// Application bytes delivered in order to the receiver.
    pub bytes_delivered: u64,
    /// Data packets the sender sent, retransmissions included.
    pub data_packets_sent: u64,
    /// Packets the sender sent that carried retransmitted data.
    pub retransmitted_packets: u64,
    /// Packets the sender declared lost.
    pub lost_packets: u64,
    /// ACK-only (feedback) packets the receiver sent.
    pub acks_sent: u64,
    /// IP-layer bytes of those ACK packets.
    pub ack_bytes: u64,
    /// Mean interval between consecutive ACK packets, s; `null` with fewer than two ACKs.
    pub ack_interval_mean_s: Option<f64>,
    /// Median ACK interval (nearest rank), s.
    pub ack_interval_p50_s: Option<f64>,
    /// 99th-percentile ACK interval (nearest rank), s.
    pub ack_interval_p99_s: Option<f64>,
    /// Sender's minimum RTT at the end, s; `null` without an RTT sample.
    pub min_rtt_s: Option<f64>,
    /// Sender's smoothed RTT at the end, s; `null` without an RTT sample.
    pub srtt_s: Option<f64>,
    /// Largest congestion window, bytes.
    pub cwnd_max_bytes: u64,
    /// `lost_packets / data_packets_sent` (0 when nothing was sent).
    pub loss_rate: f64,
    /// Datagrams or frames both endpoints refused as protocol violations (0 between correct peers).
    pub protocol_violations: u64,
    /// Fraction of wall time the sender's CPU model was busy, 0..=1 (when modelled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_utilisation_sender: Option<f64>,
    /// Fraction of time the receiver's CPU model was busy, 0..=1 (when modelled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_utilisation_receiver: Option<f64>,
    /// Fraction of time scheduling stalls held the sender's core while it had work (when modelled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_stalled_sender: Option<f64>,
    /// The same for the receiver's core.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_stalled_receiver: Option<f64>,
    /// Fraction of time work waited for the sender's core to leave an idle state (when modelled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_waking_sender: Option<f64>,
    /// The same for the receiver's core.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_waking_receiver: Option<f64>,
    /// Datagrams dropped by a full socket receive buffer (when modelled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub socket_drops: Option<u64>,
    /// Packets of this flow marked CE on the path (when ECN is on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecn_marks: Option<u64>,
    /// Median of every RTT sample the sender took, s (≤ 3 % off: a log-linear histogram).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_p50_s: Option<f64>,
    /// 90th percentile of the RTT samples, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_p90_s: Option<f64>,
    /// 99th percentile of the RTT samples, s.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rtt_p99_s: Option<f64>,
    /// Real mode: CPU seconds the sender's thread used, measured from the OS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_time_sender_s: Option<f64>,
    /// Real mode: CPU seconds the receiver's thread used, measured from the OS.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu_time_receiver_s: Option<f64>,
    /// Real mode: datagrams that failed to decode or carried corrupt stream bytes (dropped, counted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_errors: Option<u64>,
}

impl FlowSummary {
    /// Sets the RTT percentiles from the sender's [`Endpoint::rtt_percentiles`](cclab_core::endpoint::Endpoint::rtt_percentiles).
    pub fn set_rtt_percentiles(&mut self, p: Option<[Dur; 3]>) {
        let s = |i: usize| p.map(|p| secs(p[i].as_nanos()));
        (self.rtt_p50_s, self.rtt_p90_s, self.rtt_p99_s) = (s(0), s(1), s(2));
    }

    /// Builds a flow's entry from both endpoints' counters, the sender's final metrics and the
    /// receiver's ACK intervals. The flow started at `start`; an incomplete transfer's goodput
    /// is measured up to `end` (the end of the run). Extras stay `None`.
    pub fn new(
        flow: FlowId,
        sender: &EndpointStats,
        receiver: &EndpointStats,
        metrics: &Metrics,
        acks: &AckIntervalStats,
        start: Time,
        end: Time,
    ) -> Self {
        let done = receiver.completion_time.map(|t| t.saturating_since(start));
        let span = done.unwrap_or(end.saturating_since(start)).as_nanos();
        let goodput_bps = if span > 0 {
            receiver.bytes_delivered as f64 * 8.0 / secs(span)
        } else {
            0.0
        };
        let intervals = acks.intervals();
        let nonzero = |d: Dur| (d > Dur::ZERO).then(|| secs(d.as_nanos()));
        FlowSummary {
            flow: flow.0,
            name: format!("flow{}", flow.0),
            cc: String::new(),
            ack_policy: String::new(),
            goodput_bps,
            completion_time_s: done.map(|d| secs(d.as_nanos())),
            bytes_delivered: receiver.bytes_delivered,
            data_packets_sent: sender.data_packets_sent,
            retransmitted_packets: sender.retransmitted_packets,
            lost_packets: sender.lost_packets,
            acks_sent: receiver.acks_sent,
            ack_bytes: receiver.ack_bytes,
            ack_interval_mean_s: intervals.map(|i| i.mean_s),
            ack_interval_p50_s: intervals.map(|i| secs(i.p50.as_nanos())),
            ack_interval_p99_s: intervals.map(|i| secs(i.p99.as_nanos())),
            min_rtt_s: nonzero(metrics.min_rtt),
            srtt_s: nonzero(metrics.smoothed_rtt),
            cwnd_max_bytes: sender.cwnd_max_bytes,
            loss_rate: if sender.data_packets_sent > 0 {
                sender.lost_packets as f64 / sender.data_packets_sent as f64
            } else {
                0.0
            },
            protocol_violations: sender.protocol_violations + receiver.protocol_violations,
            ..FlowSummary::default()
        }
    }
}

/// One direction of one link.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LinkSummary {
    /// Link name from the scenario.
    pub name: String,
    /// `"forward"` (data direction) or `"reverse"`.
    pub direction: String,
    /// Busy time / run time, 0..=1.
    pub utilisation: f64,
    /// Packets dropped by the queue or a loss model.
    pub drops: u64,
    /// IP-layer bytes that left the link.
    pub bytes: u64,
    /// Packets that left the link.
    pub packets: u64,
    /// Packets the queue marked CE.
    pub ecn_marks: u64,
    /// Real-time emulator only: the link's configured rate, bits/s (absent when unlimited).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub configured_rate_bps: Option<f64>,
    /// Real-time emulator only: bits released while the link was backlogged, over the wall-clock
    /// time they took (compare with `configured_rate_bps`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub achieved_rate_bps: Option<f64>,
}

impl Summary {
    /// Pretty-printed JSON, keys in field order.
    pub fn to_json_pretty(&self) -> String {
        // Plain structs of numbers and strings: serialisation cannot fail.
        serde_json::to_string_pretty(self).expect("summary serialises")
    }

    /// Pretty-printed JSON without what the machine decides (`sim.wall_s`, `sim.cpu_s`, `sim.events_per_s`,
    /// zeroed): equal text for equal scenario and seed, which is what the determinism tests compare.
    pub fn deterministic_json(&self) -> String {
        let mut s = self.clone();
        s.sim.wall_s = 0.0;
        s.sim.cpu_s = 0.0;
        s.sim.events_per_s = 0.0;
        s.to_json_pretty()
    }

    /// Sets `fairness_jain` from the goodputs of the flows with `started[i]` (flow `i` started before the run
    /// ended), when there are at least two. A flow that never started had no share to be unfair about: counted
    /// as 0 bit/s, it would pull the index of flows that did share the path down by a factor (n−1)/n.
    pub fn set_fairness(&mut self, started: &[bool]) {
        let g: Vec<f64> = self
            .flows
            .iter()
            .zip(started)
            .filter(|(_, &s)| s)
            .map(|(f, _)| f.goodput_bps)
            .collect();
        self.fairness_jain = Some(jain_index(&g)).filter(|j| g.len() >= 2 && j.is_finite());
    }
}

/// Jain's fairness index `(Σx)² / (n·Σx²)`: 1 when all shares are equal, `1/n` when one flow
/// takes everything (Jain, Chiu, Hawe, DEC-TR-301, 1984). NaN for an empty slice or all zeros.
pub fn jain_index(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let sum_sq: f64 = x.iter().map(|v| v * v).sum();
    if sum_sq == 0.0 {
        return f64::NAN;
    }
    sum * sum / (x.len() as f64 * sum_sq)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_closed_forms() {
        // Equal shares → 1; one of n takes all → 1/n; (1, 3): 16 / (2·10) = 0.8.
        assert_eq!(jain_index(&[5.0, 5.0, 5.0, 5.0]), 1.0);
        assert!((jain_index(&[10.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-15);
        assert!((jain_index(&[1.0, 3.0]) - 0.8).abs() < 1e-15);
        assert!(jain_index(&[]).is_nan());
        assert!(jain_index(&[0.0, 0.0]).is_nan());
    }

    #[test]
    fn flow_summary_goodput_and_loss_rate() {
        // 1.25 MB delivered 1 s after a start at 0.5 s → 10 Mbit/s; 5 of 1000 lost → 0.005.
        let sender = EndpointStats {
            data_packets_sent: 1000,
            lost_packets: 5,
            ..Default::default()
        };
        let receiver = EndpointStats {
            bytes_delivered: 1_250_000,
            completion_time: Some(Time(1_500_000_000)),
            ..Default::default()
        };
        let m = Metrics {
            smoothed_rtt: Dur::from_millis(20),
            ..Default::default()
        };
        let f = FlowSummary::new(
            FlowId(1),
            &sender,
            &receiver,
            &m,
            &AckIntervalStats::new(),
            Time(500_000_000),
            Time(9_000_000_000),
        );
        assert!((f.goodput_bps - 10e6).abs() < 1e-6);
        assert_eq!(f.completion_time_s, Some(1.0));
        assert_eq!(f.loss_rate, 0.005);
        assert_eq!((f.min_rtt_s, f.srtt_s), (None, Some(0.02)));
    }

    #[test]
    fn summary_json_keeps_field_order_and_nulls() {
        let mut s = Summary {
            scenario: "s".into(),
            flows: vec![FlowSummary::default(); 2],
            ..Default::default()
        };
        s.flows[1].goodput_bps = 3.0;
        s.flows[0].goodput_bps = 1.0;
        s.set_fairness(&[true, true]);
        let j = s.to_json_pretty();
        let pos = |k: &str| j.find(&format!("\"{k}\"")).unwrap();
        assert!(pos("scenario") < pos("seed") && pos("seed") < pos("sim") && pos("flows") < pos("links"));
        assert!(j.contains("\"completion_time_s\": null"));
        assert!(!j.contains("socket_drops"));
        assert!(j.contains("\"fairness_jain\": 0.8"), "{j}");
    }

    #[test]
    fn fairness_leaves_out_flows_that_never_started() {
        // Two equal flows and one that started after the run ended: 1, not (2x)² / (3·2x²) = 2/3.
        let mut s = Summary {
            flows: vec![FlowSummary::default(); 3],
            ..Default::default()
        };
        s.flows[0].goodput_bps = 5e6;
        s.flows[1].goodput_bps = 5e6;
        s.set_fairness(&[true, true, false]);
        assert_eq!(s.fairness_jain, Some(1.0));
        s.set_fairness(&[true, true, true]);
        assert!((s.fairness_jain.unwrap() - 2.0 / 3.0).abs() < 1e-15);
        // One flow left: no index.
        s.set_fairness(&[true, false, false]);
        assert_eq!(s.fairness_jain, None);
    }
}
