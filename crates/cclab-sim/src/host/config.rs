//! What a scenario says about a host (`[hosts.sender]`, `[hosts.receiver]`).

use core::num::NonZeroU32;

use cclab_core::time::Dur;
use cclab_core::units::Bytes;
use serde::Deserialize;

/// Segmentation or coalescing offload (GSO on send, GRO on receive): one job handles up to
/// `max_segments` datagrams for `fixed` plus the datagrams' own per-packet costs.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BatchConfig {
    /// Most datagrams per job (Linux UDP GSO/GRO: 64); a job of 0 would move none (a 0 was read as 1).
    pub max_segments: NonZeroU32,
    /// Cost of one job (the system call), on top of the per-datagram costs.
    pub fixed: Dur,
}

impl Default for BatchConfig {
    fn default() -> Self {
        BatchConfig {
            max_segments: NonZeroU32::new(64).expect("64 is not 0"),
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

/// Scheduling stalls: run periods and stalls alternate, both exponentially distributed; both means at least
/// [`StallConfig::MIN_MEAN`].
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StallConfig {
    /// Mean run time between the end of one stall and the start of the next.
    pub mean_interval: Dur,
    /// Mean length of a stall.
    pub mean_duration: Dur,
}

impl StallConfig {
    /// Smallest mean run period and stall. The process is drawn period by period over the whole run, busy or
    /// idle (`host::stall`), so its work is the run's length over the sum of the means: 1 ns means cost 1.8 s of
    /// CPU per simulated second on one host, 1 µs ones 3 ms. A scheduling stall is the OS taking the core (a
    /// context switch, an interrupt) and giving it back, which takes about a microsecond on Linux; shorter
    /// stalls, or run periods shorter than that between them, are not what the model describes.
    pub const MIN_MEAN: Dur = Dur::from_micros(1);
    const MIN_MEAN_WHY: &str =
        "a scheduling stall is the OS taking the core and giving it back, about a microsecond at least; the process is drawn over the whole run, and 1 ns means cost 1.8 s of CPU per simulated second";
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
    /// process without run periods (which also spun forever when both means were 0); and stall means below
    /// [`StallConfig::MIN_MEAN`]. The error is (key relative to the host, message).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.socket_buffer.is_some_and(|b| b.0 == 0) {
            return Err((
                "socket_buffer",
                "a buffer of 0 bytes drops every datagram; expected a positive size".into(),
            ));
        }
        if let Some(s) = &self.cpu.stall {
            for (key, mean) in [
                ("cpu.stall.mean_interval", s.mean_interval),
                ("cpu.stall.mean_duration", s.mean_duration),
            ] {
                if mean < StallConfig::MIN_MEAN {
                    let (min, why) = (StallConfig::MIN_MEAN, StallConfig::MIN_MEAN_WHY);
                    return Err((
                        key,
                        format!("expected at least {min} ({why}), got {mean}; leave out `stall` for none"),
                    ));
                }
            }
        }
        Ok(())
    }
}
