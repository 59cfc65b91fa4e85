//! Builds `summary.json`'s [`Summary`] from a finished network.

use super::build::LinkNames;
use crate::network::Network;
use crate::scenario::{FlowConfig, ProfileKind, ScenarioFile};
use crate::summary::{FlowSummary, LinkSummary, SimStats, Summary};
use cclab_core::endpoint::Endpoint;
use cclab_core::wire::packet::FlowId;

/// The summary of `net` after a run of `file` seeded `seed` that took `(cpu_s, wall_s)` seconds; `cc_names`
/// holds each flow's controller name as its sender reported it.
pub(crate) fn summarise(
    net: &Network,
    file: &ScenarioFile,
    names: &LinkNames,
    cc_names: &[Option<String>],
    seed: u64,
    (cpu_s, wall_s): (f64, f64),
) -> Summary {
    let end = net.now();
    let elapsed = end.saturating_since(cclab_core::time::Time::ZERO);
    let busy_share = |busy: cclab_core::time::Dur| {
        if elapsed.0 == 0 {
            0.0
        } else {
            busy.min(elapsed).as_secs_f64() / elapsed.as_secs_f64()
        }
    };
    let cpu_modelled = |c: &crate::host::CpuConfig| *c != Default::default();
    let mut flows = Vec::new();
    let mut started = Vec::new();
    for (i, f) in file.flow.iter().enumerate() {
        let flow = FlowId(i as u32);
        let (s, r) = net.endpoints(flow);
        let mut fs = FlowSummary::new(
            flow,
            &s.stats(),
            &r.stats(),
            &s.metrics(),
            net.ack_intervals(flow),
            net.flow_start(flow),
            end,
        );
        let (sh, rh) = net.flow_hosts(flow);
        let (hs, hr) = (net.hosts()[sh.0 as usize].stats(), net.hosts()[rh.0 as usize].stats());
        let (cs, cr) = (&file.hosts.sender.cpu, &file.hosts.receiver.cpu);
        fs.cpu_utilisation_sender = cpu_modelled(cs).then(|| busy_share(hs.busy));
        fs.cpu_utilisation_receiver = cpu_modelled(cr).then(|| busy_share(hr.busy));
        fs.cpu_stalled_sender = cs.stall.is_some().then(|| busy_share(hs.stalled));
        fs.cpu_stalled_receiver = cr.stall.is_some().then(|| busy_share(hr.stalled));
        fs.cpu_waking_sender = (!cs.idle_states.is_empty()).then(|| busy_share(hs.waking));
        fs.cpu_waking_receiver = (!cr.idle_states.is_empty()).then(|| busy_share(hr.waking));
        let buffers = file.hosts.sender.socket_buffer.is_some() || file.hosts.receiver.socket_buffer.is_some();
        fs.socket_drops = buffers.then(|| net.socket_drops(flow));
        describe_flow(&mut fs, f, cc_names.get(i).cloned().flatten());
        fs.set_rtt_percentiles(s.rtt_percentiles());
        fs.ecn_marks = uses_ecn(f).then(|| net.ce_marks(flow));
        flows.push(fs);
        started.push(net.flow_start(flow) < end);
    }
    let links = net
        .links()
        .iter()
        .zip(&names.0)
        .map(|(l, (name, direction))| {
            let st = l.stats();
            LinkSummary {
                name: name.clone(),
                direction: direction.to_string(),
                utilisation: l.utilisation(elapsed),
                drops: st.queue.dropped_packets + st.lost_packets,
                bytes: st.delivered_bytes,
                packets: st.delivered_packets,
                ecn_marks: st.queue.ecn_marked,
                ..LinkSummary::default()
            }
        })
        .collect();
    let mut summary = Summary {
        scenario: file.scenario.name.clone(),
        seed,
        mode: "sim".into(),
        sim: SimStats {
            events: net.events(),
            wall_s,
            cpu_s,
            events_per_s: if cpu_s > 0.0 { net.events() as f64 / cpu_s } else { 0.0 },
            sim_time_s: end.as_secs_f64(),
        },
        flows,
        links,
        fairness_jain: None,
        emulator: None,
    };
    summary.set_fairness(&started);
    summary
}

/// What every mode's summary says of flow `f`: its name, its controller (`cc`, as its sender
/// reported it) and its ACK policy.
pub fn describe_flow(fs: &mut FlowSummary, f: &FlowConfig, cc: Option<String>) {
    fs.name = f.name.clone().unwrap_or(std::mem::take(&mut fs.name));
    fs.cc = cc.unwrap_or_default();
    fs.ack_policy = match f.profile {
        ProfileKind::Dccp => "ccid3".into(),
        _ => f.receiver.clone().unwrap_or_default().ack.name().into(),
    };
}

/// Whether flow `f` runs with ECN: its sender asks for it or its controller needs it (DCTCP, Prague).
pub fn uses_ecn(f: &FlowConfig) -> bool {
    let cc_ecn = f.cc.as_ref().is_some_and(|c| {
        let probe = c.build(cclab_core::time::Time::ZERO, 1500);
        probe.ecn_codepoint().is_some()
    });
    cc_ecn || f.sender.as_ref().is_some_and(|c| c.ecn)
}
