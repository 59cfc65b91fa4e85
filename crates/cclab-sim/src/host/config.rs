//! What a scenario says about a host (`[hosts.sender]`, `[hosts.receiver]`).

use cclab_core::time::Dur;
use cclab_core::units::Bytes;
use serde::Deserialize;

/// Segmentation or coalescing offload (GSO on send, GRO on receive): one job handles up to
/// `max_segments` datagrams for `fixed` plus the datagrams' own per-packet costs.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BatchConfig {
    /// Most datagrams per job (Linux UDP GSO/GRO: 64).
    pub max_segments: u32,
    /// Cost of one job (the system call), on top of the per-datagram costs.
    pub fixed: Dur,
}

impl Default for BatchConfig {
    fn default() -> Self {
        BatchConfig {
            max_segments: 64,
            fixed: Dur::ZERO,
        }
    }
}

/// One CPU core's cost per datagram; all zero (the default) means an infinitely fast host.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CpuConfig {
    /// Sending a datagram that carries data.
    pub send_cost: Dur,
    /// Receiving and processing a datagram that carries data.
    pub recv_cost: Dur,
    /// Sending a datagram without data (an ACK, feedback or probe): the per-ACK-generated cost.
    pub ack_send_cost: Dur,
    /// Receiving a datagram without data: the per-ACK-processed cost.
    pub ack_recv_cost: Dur,
    /// Send batching (GSO): one poll of an endpoint sends up to `max_segments` datagrams;
    /// `None` = one datagram per job.
    pub gso: Option<BatchConfig>,
    /// Receive batching (GRO): one job takes up to `max_segments` waiting datagrams;
    /// `None` = one datagram per job.
    pub gro: Option<BatchConfig>,
    /// Scheduling stalls (see `host::stall`); `None` = the core is always available.
    pub stall: Option<StallConfig>,
    /// Processor idle states (see `host::idle`), in any order; empty = work starts at once.
    pub idle_states: Vec<IdleStateConfig>,
}

/// One processor idle state (C-state), as the Linux `intel_idle` tables give them.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdleStateConfig {
    /// Idle time after which the core is in this state (`target_residency`).
    pub residency: Dur,
    /// Time from work arriving to the core running it (`exit_latency`).
    pub exit_latency: Dur,
}

/// Scheduling stalls: run periods and stalls alternate, both exponentially distributed.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StallConfig {
    /// Mean run time between the end of one stall and the start of the next.
    pub mean_interval: Dur,
    /// Mean length of a stall.
    pub mean_duration: Dur,
}

/// A host: its CPU and its receive socket buffer.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostConfig {
    /// CPU cost model.
    pub cpu: CpuConfig,
    /// Receive socket buffer: bytes of datagrams waiting for the CPU; arrivals that do not fit
    /// are dropped (`None` = unlimited).
    pub socket_buffer: Option<Bytes>,
}

impl HostConfig {
    /// Refuses settings under which the host could never deliver: a socket buffer of 0 bytes, or a stall
    /// process without run periods (which also spun forever when both means were 0). The error is (key
    /// relative to the host, message).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.socket_buffer.is_some_and(|b| b.0 == 0) {
            return Err((
                "socket_buffer",
                "a buffer of 0 bytes drops every datagram; expected a positive size".into(),
            ));
        }
        if let Some(s) = &self.cpu.stall {
            if s.mean_interval.0 == 0 || s.mean_duration.0 == 0 {
                return Err((
                    "cpu.stall",
                    "expected positive mean_interval and mean_duration (leave out `stall` for none)".into(),
                ));
            }
        }
        Ok(())
    }
}
