//! Turns a validated scenario into a [`Network`]: links, hosts, endpoints and routes.

use crate::endpoint::AnyEndpoint;
use crate::engine::{derive_seed, Stream};
use crate::network::{FlowSpec, Network};
use crate::qlog::QlogParams;
use crate::scenario::{FlowConfig, ProfileKind, ScenarioFile, Topology};
use cclab_alloc::HugePages;
use cclab_core::ack::AckPolicyConfig;
use cclab_core::cc::CcConfig;
use cclab_core::endpoint::receiver::{Receiver, ReceiverConfig};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::tfrc::{TfrcReceiver, TfrcSender};
use cclab_core::time::Time;
use cclab_core::wire::packet::FlowId;

/// Name and direction of every link, by `LinkId`, for the summary.
pub(crate) struct LinkNames(pub(crate) Vec<(String, &'static str)>);

/// A built network plus what the outputs need to know about it.
pub(crate) struct Built {
    pub(crate) net: Network,
    pub(crate) link_names: LinkNames,
    /// Per flow: qlog parameters of the sender's and the receiver's trace.
    pub(crate) qlog_params: Vec<(QlogParams, QlogParams)>,
    /// Held while the run lasts when it has many flows.
    _huge_pages: Option<HugePages>,
}

/// From how many flows a run's heap grows in huge pages (`cclab_alloc::HugePages`, where the process's global
/// allocator is `cclab_alloc::HugePageAlloc`: `cclab-bench` and `cclab._core`). Many flows' state is touched in no order the TLB can
/// follow: measured on 10 Gbit/s dumbbells (docs/performance.md), 64 flows −6 % CPU per packet over 20 s and −15 %
/// over 1 s, 256 −6..−10 %, 1,000 −6..−11 %, 10,000 −14..−17 %. Runs with one flow keep 4 KiB pages: with the
/// switch on, their per-packet cost did not drop and 1–2 of 5 runs took +20..+37 % (a fresh huge page costs ~1.7 ms
/// to fault in on this VM); from 12 to 63 flows, whose state fits the L2's reach, the switch gained nothing.
const HUGE_PAGES_MIN_FLOWS: usize = 64;

/// Builds the network of `file` for a run seeded `seed`; flow `i`'s endpoints trace when `traced[i]` is set.
pub(crate) fn build(file: &ScenarioFile, seed: u64, traced: &[bool]) -> Built {
    // Before any per-flow state is allocated.
    let huge_pages = (file.flow.len() >= HUGE_PAGES_MIN_FLOWS).then(HugePages::on);
    let mut net = Network::new();
    let plan = super::plan::plan(file);
    let ids: Vec<_> = plan.links.iter().map(|l| net.add_link(&l.config, seed)).collect();
    let names = plan.links.iter().map(|l| (l.name.clone(), l.direction)).collect();
    let p2p_hosts = (file.scenario.topology == Topology::P2p).then(|| {
        (
            net.add_host(&file.hosts.sender, seed),
            net.add_host(&file.hosts.receiver, seed),
        )
    });
    let mut qlog_params = Vec::new();
    for (i, (f, routes)) in file.flow.iter().zip(&plan.routes).enumerate() {
        let (sender_host, receiver_host) = p2p_hosts.unwrap_or_else(|| {
            (
                net.add_host(&file.hosts.sender, seed),
                net.add_host(&file.hosts.receiver, seed),
            )
        });
        let start = Time::ZERO + f.start;
        let (sender, receiver, params) = flow_endpoints(f, net.next_flow_id(), seed, i as u32, start);
        qlog_params.push(params);
        net.add_flow(FlowSpec {
            sender,
            receiver,
            sender_host,
            receiver_host,
            forward: routes.forward.iter().map(|&l| ids[l]).collect(),
            reverse: routes.reverse.iter().map(|&l| ids[l]).collect(),
            start,
            trace: traced[i],
        });
    }
    Built {
        net,
        link_names: LinkNames(names),
        qlog_params,
        _huge_pages: huge_pages,
    }
}

/// A flow's sender, receiver, and the qlog parameters of each side's trace.
pub type Endpoints = (AnyEndpoint, AnyEndpoint, (QlogParams, QlogParams));

/// Builds flow `index`'s endpoints at `start` (the simulator and real mode build them alike).
pub fn flow_endpoints(f: &FlowConfig, flow: FlowId, seed: u64, index: u32, start: Time) -> Endpoints {
    let profile = f.wire_profile();
    match f.profile {
        ProfileKind::Quic | ProfileKind::Tcp => {
            let mut cc = f.cc.clone().unwrap_or_else(|| CcConfig::NewReno(Default::default()));
            // Randomised controllers draw from a per-flow stream; a seed in [flow.cc] offsets it.
            let flow_seed = derive_seed(seed, Stream::FlowSender, index);
            match &mut cc {
                CcConfig::Bbr(b) => b.seed ^= flow_seed,
                CcConfig::Bbr3(b) => b.seed ^= flow_seed,
                _ => {}
            }
            let mut scfg = SenderConfig {
                handshake: f.handshake.clone(),
                ..f.sender.clone().unwrap_or_default()
            };
            let mut rcfg = ReceiverConfig {
                handshake: f.handshake.clone(),
                ..f.receiver.clone().unwrap_or_default()
            };
            // One flow-control credit: the receiver grants what the sender honours, whichever table sets it.
            let (sent_window, granted_window) = (scfg.receive_window, rcfg.receive_window);
            scfg.receive_window = sent_window.or(granted_window);
            rcfg.receive_window = granted_window.or(sent_window);
            let sender = Sender::new(flow, profile, &scfg, &cc, &f.source, start);
            let receiver = Receiver::new(flow, profile, &rcfg, start);
            let min_ack_delay = match &rcfg.ack {
                AckPolicyConfig::AckFrequency(a) => Some(a.min_ack_delay),
                _ => None,
            };
            let max_ack_delay = receiver.policy().max_ack_delay();
            let base = QlogParams {
                profile,
                max_ack_delay,
                min_ack_delay,
                ..QlogParams::default()
            };
            let sender_params = QlogParams {
                cc_algorithm: Some(sender.controller().name().to_string()),
                initial_cwnd_bytes: Some(sender.controller().window()),
                ..base.clone()
            };
            (
                AnyEndpoint::Sender(Box::new(sender)),
                AnyEndpoint::Receiver(Box::new(receiver)),
                (sender_params, base),
            )
        }
        ProfileKind::Dccp => {
            // CCID-3 (RFC 4342): one TFRC config serves both ends (the receiver reads its clock).
            let cfg = f.tfrc.unwrap_or_default();
            let sender = TfrcSender::new(flow, profile, &cfg, &f.source, start);
            let receiver = TfrcReceiver::new(flow, profile, &cfg, start);
            let base = QlogParams {
                profile,
                ..QlogParams::default()
            };
            let sender_params = QlogParams {
                cc_algorithm: Some("tfrc".into()),
                ..base.clone()
            };
            let (s, r) = (
                AnyEndpoint::TfrcSender(Box::new(sender)),
                AnyEndpoint::TfrcReceiver(Box::new(receiver)),
            );
            (s, r, (sender_params, base))
        }
    }
}
