//! The scenario file schema: one struct per TOML table, every table `deny_unknown_fields`.
//! `docs/scenarios.md` documents each key.

use crate::host::HostConfig;
use crate::link::LinkConfig;
use crate::qlog::QlogCompression;
use cclab_core::cc::CcConfig;
use cclab_core::endpoint::handshake::{deserialize_handshake, HandshakeConfig};
use cclab_core::endpoint::receiver::ReceiverConfig;
use cclab_core::endpoint::sender::SenderConfig;
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::tfrc::TfrcConfig;
use cclab_core::time::{Dur, Time};
use cclab_core::units::Bytes;
use cclab_core::wire::size::{DccpProfile, Profile, QuicProfile, TcpProfile};
use serde::Deserialize;

/// A whole scenario file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// `[scenario]`: name, seed, duration, topology.
    pub scenario: ScenarioSection,
    /// `[path.forward]`, `[path.return]`.
    pub path: PathSection,
    /// `[hosts.sender]`, `[hosts.receiver]`.
    #[serde(default)]
    pub hosts: HostsSection,
    /// `[[flow]]`, at least one.
    pub flow: Vec<FlowConfig>,
    /// `[output]`.
    #[serde(default)]
    pub output: OutputConfig,
}

fn one() -> u64 {
    1
}

fn four_million() -> u64 {
    4_000_000
}

/// `[scenario]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSection {
    /// Short name, used in outputs.
    pub name: String,
    /// One line saying what the scenario shows.
    #[serde(default)]
    pub description: String,
    /// Seed of every random stream (default 1).
    #[serde(default = "one")]
    pub seed: u64,
    /// Longest simulated time; the run also stops when every flow is done.
    pub duration: Dur,
    /// `"p2p"` (default) or `"dumbbell"`.
    #[serde(default)]
    pub topology: Topology,
    /// Most packets the network may hold at once in its links and socket buffers (default 4 M): past
    /// it the run stops with an error, before a window that nothing limits takes all the memory.
    #[serde(default = "four_million")]
    pub max_packets_in_network: u64,
}

/// How hosts and links are wired.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Topology {
    /// One sender host and one receiver host joined by the forward and return links; all flows
    /// share both hosts.
    #[default]
    P2p,
    /// One sender and one receiver host per flow, each flow with its own access link (both
    /// directions) to a shared bottleneck: forward link for data, return link for ACKs.
    Dumbbell,
}

/// `[path]`: the two directions of the (bottleneck) path.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathSection {
    /// Data direction.
    pub forward: LinkConfig,
    /// ACK direction (TOML key `return`).
    #[serde(rename = "return")]
    pub reverse: LinkConfig,
}

/// `[hosts]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HostsSection {
    /// Host(s) running the senders.
    pub sender: HostConfig,
    /// Host(s) running the receivers.
    pub receiver: HostConfig,
}

/// Wire protocol of a flow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProfileKind {
    /// QUIC v1 short-header packets over UDP.
    #[default]
    Quic,
    /// TCP segments.
    Tcp,
    /// DCCP with CCID-3.
    Dccp,
}

/// `[flow.quic]` (maps to `wire::size::QuicProfile`).
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct QuicParams {
    /// Largest UDP payload the sender fills (default 1472 B: a 1500 B IPv4 datagram).
    pub max_udp_payload: Bytes,
    /// Destination connection ID length in bytes (default 8).
    pub dcid_len: u32,
    /// IPv6 headers (default false).
    pub ipv6: bool,
}

impl Default for QuicParams {
    fn default() -> Self {
        let q = QuicProfile::default();
        QuicParams {
            max_udp_payload: Bytes(q.max_udp_payload as u64),
            dcid_len: q.dcid_len,
            ipv6: q.ipv6,
        }
    }
}

/// `[flow.tcp]` (maps to `wire::size::TcpProfile`).
#[derive(Clone, Debug, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TcpParams {
    /// Payload bytes per segment (default 1448 B: 1500 B IPv4 packets with timestamps).
    pub mss: Bytes,
    /// RFC 7323 timestamps on every segment (default true, as Linux).
    pub timestamps: bool,
    /// IPv6 headers (default false).
    pub ipv6: bool,
    /// ACKs carry the AccECN option (RFC 9768), shrinking the SACK space (default false).
    pub accecn: bool,
}

impl Default for TcpParams {
    fn default() -> Self {
        TcpParams {
            mss: Bytes(1448),
            timestamps: true,
            ipv6: false,
            accecn: false,
        }
    }
}

/// `[flow.dccp]` (maps to `wire::size::DccpProfile`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DccpParams {
    /// IPv6 headers (default false).
    pub ipv6: bool,
}

/// One `[[flow]]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    /// Name used in outputs (default `flow<i>`).
    #[serde(default)]
    pub name: Option<String>,
    /// Wire protocol (default `"quic"`).
    #[serde(default)]
    pub profile: ProfileKind,
    /// QUIC profile parameters (profile = "quic" only).
    #[serde(default)]
    pub quic: Option<QuicParams>,
    /// TCP profile parameters (profile = "tcp" only).
    #[serde(default)]
    pub tcp: Option<TcpParams>,
    /// DCCP profile parameters (profile = "dccp" only).
    #[serde(default)]
    pub dccp: Option<DccpParams>,
    /// When the flow starts (default 0).
    #[serde(default)]
    pub start: Dur,
    /// Copies of this table (default 1): loading replaces the table by `count` flows with its settings,
    /// in its place in the flow order, so a sweep can vary the number of flows with one key.
    #[serde(default = "one")]
    pub count: u64,
    /// Start spacing of the copies: copy `k` (from 0) starts at `start + k·stagger` (default 0: together).
    #[serde(default)]
    pub stagger: Dur,
    /// What the application sends.
    pub source: SourceConfig,
    /// Congestion controller (default NewReno; QUIC and TCP profiles).
    #[serde(default)]
    pub cc: Option<CcConfig>,
    /// Sender parameters (QUIC and TCP profiles).
    #[serde(default)]
    pub sender: Option<SenderConfig>,
    /// Receiver parameters (QUIC and TCP profiles).
    #[serde(default)]
    pub receiver: Option<ReceiverConfig>,
    /// TFRC parameters of both endpoints (profile = "dccp" only; default RFC 5348).
    #[serde(default)]
    pub tfrc: Option<TfrcConfig>,
    /// This flow's access link, used in both directions (dumbbell only; default: none).
    #[serde(default)]
    pub access: Option<LinkConfig>,
    /// Connection setup before data (QUIC and TCP profiles): `true`, or a table of
    /// [`HandshakeConfig`]; default none.
    #[serde(default, deserialize_with = "deserialize_handshake")]
    pub handshake: Option<HandshakeConfig>,
}

impl FlowConfig {
    /// The wire profile with its parameters.
    pub fn wire_profile(&self) -> Profile {
        match self.profile {
            ProfileKind::Quic => {
                let q = self.quic.clone().unwrap_or_default();
                Profile::Quic(QuicProfile {
                    max_udp_payload: q.max_udp_payload.0.min(u32::MAX as u64) as u32,
                    dcid_len: q.dcid_len,
                    ipv6: q.ipv6,
                })
            }
            ProfileKind::Tcp => {
                let t = self.tcp.clone().unwrap_or_default();
                Profile::Tcp(TcpProfile {
                    mss: t.mss.0.min(u32::MAX as u64) as u32,
                    timestamps: t.timestamps,
                    ipv6: t.ipv6,
                    accecn: t.accecn,
                })
            }
            ProfileKind::Dccp => Profile::Dccp(DccpProfile {
                ipv6: self.dccp.clone().unwrap_or_default().ipv6,
            }),
        }
    }
}

fn ten_ms() -> Dur {
    Dur::from_millis(10)
}

/// `[output]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputConfig {
    /// Time-series sampling interval (default 10 ms).
    #[serde(default = "ten_ms")]
    pub timeseries_interval: Dur,
    /// Write qlog traces when an output directory is given (default false).
    #[serde(default)]
    pub qlog: bool,
    /// Largest time series (memory and file) a run may produce; default 4 GB (`budget`).
    #[serde(default)]
    pub max_bytes: Option<Bytes>,
    /// Trace only events in `[start, end)` of simulated time (default: the whole run).
    #[serde(default)]
    pub qlog_window: Option<[Dur; 2]>,
    /// Trace only these flows, by index in the run's flow order after `count` copies (default: every flow).
    #[serde(default)]
    pub qlog_flows: Option<Vec<u64>>,
    /// Compress the qlog traces (`"none"`, the default, or `"gzip"`: `trace.sqlog.gz`).
    #[serde(default)]
    pub qlog_compression: QlogCompression,
}

impl OutputConfig {
    /// Per flow of `flows`, whether its endpoints are traced when qlog is on (`qlog_flows`): one pass over
    /// the list, not a search of it per flow (a list as long as the 32,767 flows would cost ~10⁹ steps).
    pub fn traced_flows(&self, flows: usize) -> Vec<bool> {
        let Some(list) = &self.qlog_flows else {
            return vec![true; flows];
        };
        let mut traced = vec![false; flows];
        for &i in list {
            if let Some(t) = usize::try_from(i).ok().and_then(|i| traced.get_mut(i)) {
                *t = true;
            }
        }
        traced
    }

    /// The qlog window as instants of the run's clock.
    pub fn qlog_window_times(&self) -> Option<(Time, Time)> {
        self.qlog_window.map(|[a, b]| (Time::ZERO + a, Time::ZERO + b))
    }
}

impl Default for OutputConfig {
    fn default() -> Self {
        OutputConfig {
            timeseries_interval: ten_ms(),
            qlog: false,
            max_bytes: None,
            qlog_window: None,
            qlog_flows: None,
            qlog_compression: QlogCompression::None,
        }
    }
}
