//! Scenario files: parsing, `--set` overrides and validation.
//!
//! Loading goes TOML text (at most [`MAX_SCENARIO_BYTES`], `size`) → TOML tree → overrides applied → schema ([`ScenarioFile`], every
//! table `deny_unknown_fields`) → cross-field checks (a rate or a trace per link, profile
//! tables matching the profile, access links only in a dumbbell, trace files read). Every
//! error names the file, the key path and what was expected, and nothing panics.

mod error;
mod locate;
mod overrides;
mod ranges;
mod schema;
mod size;

pub use error::ScenarioError;
pub use overrides::Override;
pub use schema::{
    DccpParams, FlowConfig, HostsSection, OutputConfig, PathSection, ProfileKind, QuicParams, ScenarioFile,
    ScenarioSection, TcpParams, Topology,
};
pub use size::{read_scenario_text, MAX_SCENARIO_BYTES};

use cclab_core::cc::CcConfig;
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::time::Dur;
use cclab_core::wire::size::Profile;
use std::path::{Path, PathBuf};

/// A validated scenario, ready to run.
#[derive(Clone, Debug)]
pub struct Scenario {
    file: ScenarioFile,
    origin: String,
    /// The TOML tree after the overrides, before defaults are filled in.
    resolved: String,
}

/// Reads, overrides and validates the scenario file at `path`.
pub fn load_scenario(path: &Path, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let text = read_scenario_text(path)?;
    Scenario::from_toml_str(&text, &path.display().to_string(), overrides)
}

impl Scenario {
    /// Parses scenario text; `origin` names it in errors, and relative trace paths are read from
    /// its directory. The text and the overrides together are at most [`MAX_SCENARIO_BYTES`].
    pub fn from_toml_str(text: &str, origin: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
        let err = |key: Option<String>, msg: String| ScenarioError::new(origin, key, msg);
        let set_bytes = overrides.iter().map(|o| o.len() as u64).sum();
        size::check(origin, text.len() as u64, set_bytes)?;
        let mut tree: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| err(None, one_line(&e.to_string())))?;
        let mut applied = Vec::with_capacity(overrides.len());
        for arg in overrides {
            let o = Override::parse(arg).map_err(|m| err(None, format!("--set {arg}: {m}")))?;
            o.apply(&mut tree)
                .map_err(|m| err(Some(o.key().to_string()), format!("--set {arg}: {m}")))?;
            applied.push((arg.clone(), o));
        }
        let resolved = toml::to_string(&tree).unwrap_or_default();
        let mut file: ScenarioFile =
            serde_path_to_error::deserialize(toml::Value::Table(tree.clone())).map_err(|e| {
                let msg = e.inner().message().to_string();
                // Name the key itself, not only the table holding it.
                let key = locate::refine(&tree, &e.path().to_string(), &msg);
                let msg = match locate::set_by(&applied, &key) {
                    Some(arg) => format!("{msg} (from --set {arg})"),
                    None => msg,
                };
                err(Some(key).filter(|k| k != "."), msg)
            })?;
        let base = Path::new(origin).parent().map_or_else(PathBuf::new, Path::to_path_buf);
        validate(&mut file, &base).map_err(|(key, msg)| {
            let msg = match locate::set_by(&applied, &key) {
                Some(arg) => format!("{msg} (from --set {arg})"),
                None => msg,
            };
            err(Some(key), msg)
        })?;
        Ok(Scenario {
            file,
            origin: origin.to_string(),
            resolved,
        })
    }

    /// `[scenario].name`.
    pub fn name(&self) -> &str {
        &self.file.scenario.name
    }

    /// `[scenario].description`.
    pub fn description(&self) -> &str {
        &self.file.scenario.description
    }

    /// Where the scenario came from (file name or the `origin` given).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The scenario as TOML with every `--set` applied (what the file says plus the overrides;
    /// defaults stay implicit, as in the file; relative trace paths stay relative to the original
    /// file). Loading it without overrides gives the same scenario.
    pub fn resolved_toml(&self) -> &str {
        &self.resolved
    }

    /// The parsed file.
    pub fn config(&self) -> &ScenarioFile {
        &self.file
    }
}

/// Keeps the first line of a multi-line parser message plus its "expected ..." line.
fn one_line(msg: &str) -> String {
    let mut lines = msg
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('|'));
    let head = lines.next().unwrap_or(msg).trim().to_string();
    match lines.rfind(|l| !l.contains(" | ")) {
        Some(tail) if tail.trim() != head => format!("{head}: {}", tail.trim()),
        _ => head,
    }
}

/// The longest run: 2^63 ns, so that a time within it plus any serialisation time stays below 2^64 ns.
const MAX_DURATION_NS: u64 = 1 << 63;

/// Cross-field checks; the error is (key path, message).
fn validate(file: &mut ScenarioFile, base: &Path) -> Result<(), (String, String)> {
    let at = |prefix: &str, (k, m): (&str, String)| (format!("{prefix}.{k}"), m);
    if file.scenario.duration.0 == 0 {
        return Err(("scenario.duration".into(), "expected a positive duration".into()));
    }
    if file.scenario.duration.0 > MAX_DURATION_NS {
        // The links add serialisation times to the run's times without saturating (`Serialiser::start`).
        return Err((
            "scenario.duration".into(),
            format!(
                "expected at most 2^63 ns (about 292 years), got {} s",
                file.scenario.duration.0 / 1_000_000_000
            ),
        ));
    }
    if file.output.timeseries_interval.0 == 0 {
        return Err((
            "output.timeseries_interval".into(),
            "expected a positive duration".into(),
        ));
    }
    file.hosts.sender.validate().map_err(|e| at("hosts.sender", e))?;
    file.hosts.receiver.validate().map_err(|e| at("hosts.receiver", e))?;
    file.path.forward.resolve(base).map_err(|e| at("path.forward", e))?;
    file.path.reverse.resolve(base).map_err(|e| at("path.return", e))?;
    if file.flow.is_empty() {
        return Err(("flow".into(), "expected at least one [[flow]]".into()));
    }
    count_flows(&file.flow)?;
    let dumbbell = file.scenario.topology == Topology::Dumbbell;
    for (i, f) in file.flow.iter_mut().enumerate() {
        let key = |k: &str| format!("flow[{i}].{k}");
        let p = f.profile;
        let misplaced = [
            ("quic", f.quic.is_some() && p != ProfileKind::Quic),
            ("tcp", f.tcp.is_some() && p != ProfileKind::Tcp),
            ("dccp", f.dccp.is_some() && p != ProfileKind::Dccp),
            ("cc", f.cc.is_some() && p == ProfileKind::Dccp),
            ("sender", f.sender.is_some() && p == ProfileKind::Dccp),
            ("receiver", f.receiver.is_some() && p == ProfileKind::Dccp),
            ("tfrc", f.tfrc.is_some() && p != ProfileKind::Dccp),
            // DCCP has its own Request/Response exchange: `[flow.tfrc] handshake`.
            ("handshake", f.handshake.is_some() && p == ProfileKind::Dccp),
        ];
        if let Some((k, _)) = misplaced.iter().find(|m| m.1) {
            return Err((
                key(k),
                format!("not used with profile = {:?}", format!("{p:?}").to_lowercase()),
            ));
        }
        // Sizes are u32 sums of header fields: a longer connection ID wrapped them (packets came out smaller).
        if f.quic.as_ref().is_some_and(|q| q.dcid_len > 20) {
            return Err((
                key("quic.dcid_len"),
                "expected at most 20 bytes (RFC 9000 §17.2: a QUIC v1 connection ID)".into(),
            ));
        }
        if f.quic.as_ref().is_some_and(|q| q.max_udp_payload.0 < 1200) {
            return Err((
                key("quic.max_udp_payload"),
                "expected at least 1200B (RFC 9000 §14)".into(),
            ));
        }
        if f.handshake
            .as_ref()
            .is_some_and(|h| h.server_flight.0 == 0 || h.server_flight.0 > u32::MAX as u64)
        {
            return Err((
                key("handshake.server_flight"),
                "expected a positive size below 4 GB".into(),
            ));
        }
        // After how many resent SYNs TCP's initial window is one segment: RFC 9002 §7.2 keeps QUIC's
        // after a lost Initial, so the key has nothing to choose there.
        if p == ProfileKind::Quic && f.handshake.as_ref().is_some_and(|h| h.syn_loss_window.is_some()) {
            return Err((
                key("handshake.syn_loss_window"),
                "not used with profile = \"quic\" (a TCP rule: RFC 9002 §7.2 keeps QUIC's initial window after a lost Initial)".into(),
            ));
        }
        if f.tcp.as_ref().is_some_and(|t| t.mss.0 == 0) {
            return Err((key("tcp.mss"), "expected a positive size".into()));
        }
        // Prague over TCP MUST have AccECN feedback, and without it falls back to Reno
        // (draft-briscoe-iccrg-prague-congestion-control-01 §2.3.1.1). This TCP model feeds CE
        // counts back whatever `accecn` says (the key sizes the ACK option), so a Prague flow without
        // it would run on feedback its ACKs do not carry: refused rather than modelled.
        let accecn = f.tcp.as_ref().is_some_and(|t| t.accecn);
        if p == ProfileKind::Tcp && matches!(f.cc, Some(CcConfig::Prague(_))) && !accecn {
            return Err((
                key("tcp.accecn"),
                "expected true with algorithm = \"prague\" (Prague over TCP needs AccECN feedback, draft-briscoe-iccrg-prague-congestion-control-01 §2.3.1.1)".into(),
            ));
        }
        // Linux paces a reduction by PRR for controllers that leave the window to it (Reno, CUBIC);
        // BBR sets its own (`cong_control`), and the model's other controllers report no recovery
        // that would end it.
        let prr = f.sender.as_ref().is_some_and(|s| s.proportional_rate_reduction);
        if prr && !matches!(f.cc, None | Some(CcConfig::NewReno(_) | CcConfig::Cubic(_))) {
            return Err((
                key("sender.proportional_rate_reduction"),
                "expected only with algorithm = \"newreno\" or \"cubic\" (PRR brings their window down to ssthresh in recovery)".into(),
            ));
        }
        ip_limit(f).map_err(|(k, m)| (key(k), m))?;
        let mss = u64::from(f.wire_profile().mss());
        ranges::check_endpoints(f.cc.as_ref(), f.sender.as_ref(), f.receiver.as_ref(), mss)
            .map_err(|(k, m)| (key(&k), m))?;
        ranges::check_source(&f.source).map_err(|(k, m)| (key(&k), m))?;
        match (&mut f.access, dumbbell) {
            (Some(_), false) => {
                return Err((key("access"), "access links need topology = \"dumbbell\"".into()));
            }
            (Some(a), true) => a.resolve(base).map_err(|e| at(&format!("flow[{i}].access"), e))?,
            (None, _) => {}
        }
    }
    ranges::receiver_buffer_fits(file)?;
    expand_copies(&mut file.flow);
    if file.scenario.max_packets_in_network == 0 {
        return Err((
            "scenario.max_packets_in_network".into(),
            "expected at least 1 (0 would stop every run at its first check)".into(),
        ));
    }
    if file.output.qlog_window.is_some_and(|[start, end]| start >= end) {
        return Err((
            "output.qlog_window".into(),
            "expected [start, end] with start < end".into(),
        ));
    }
    qlog_flows(&file.output, file.flow.len())?;
    crate::budget::check(file, file.output.timeseries_interval).map_err(|m| ("output.max_bytes".into(), m))
}

/// `[output] qlog_flows` names flows that exist, each once, and at least one (to trace none, qlog stays off).
fn qlog_flows(output: &OutputConfig, flows: usize) -> Result<(), (String, String)> {
    let Some(list) = &output.qlog_flows else {
        return Ok(());
    };
    if list.is_empty() {
        return Err((
            "output.qlog_flows".into(),
            "expected at least one flow index (to trace no flow, leave qlog off)".into(),
        ));
    }
    let mut listed = vec![false; flows];
    for (k, &i) in list.iter().enumerate() {
        let key = format!("output.qlog_flows[{k}]");
        let Some(seen) = usize::try_from(i).ok().and_then(|i| listed.get_mut(i)) else {
            let msg = format!("expected a flow index below {flows} (the flows after `count` copies), got {i}");
            return Err((key, msg));
        };
        if std::mem::replace(seen, true) {
            return Err((key, format!("flow {i} is listed twice")));
        }
    }
    Ok(())
}

/// Most flows a scenario may have, counting every table's `count` copies.
const MAX_FLOWS: u64 = u16::MAX as u64 / 2;

/// Checks each table's `count` and `stagger` before any copy is made, so a huge count is an error, not an
/// allocation: the flows add up to at most [`MAX_FLOWS`], and the last copy's start fits the clock.
fn count_flows(flows: &[FlowConfig]) -> Result<(), (String, String)> {
    let mut total = 0u64;
    for (i, f) in flows.iter().enumerate() {
        let key = |k: &str| format!("flow[{i}].{k}");
        if f.count == 0 {
            return Err((key("count"), "expected at least 1".into()));
        }
        total = total.saturating_add(f.count);
        if total > MAX_FLOWS {
            let msg = format!("at most {MAX_FLOWS} flows in all; the tables up to this one make {total}");
            return Err((if f.count > 1 { key("count") } else { "flow".into() }, msg));
        }
        let last = f.stagger.as_nanos().checked_mul(f.count - 1);
        if last.and_then(|d| d.checked_add(f.start.as_nanos())).is_none() {
            return Err((
                key("stagger"),
                format!("the last of {} copies would start past ~584 years", f.count),
            ));
        }
    }
    Ok(())
}

/// Replaces each table by its `count` copies (checked by [`count_flows`]), in place in the flow order:
/// copy `k` starts `k·stagger` after the table's `start` and, when the table is named and has copies, is
/// named `<name>-<k>`; unnamed copies take the default `flow<i>` of their place like any flow.
fn expand_copies(flows: &mut Vec<FlowConfig>) {
    if flows.iter().all(|f| f.count == 1) {
        return;
    }
    let tables = std::mem::take(flows);
    flows.reserve_exact(tables.iter().map(|f| f.count as usize).sum());
    for table in tables {
        for k in 0..table.count {
            let mut copy = table.clone();
            copy.count = 1;
            copy.stagger = Dur::ZERO;
            copy.start = table.start + table.stagger * k;
            if table.count > 1 {
                copy.name = table.name.as_ref().map(|n| format!("{n}-{k}"));
            }
            flows.push(copy);
        }
    }
}

/// A flow's full-sized packets must fit an IP packet (65,535 bytes; RFC 791 §3.1, RFC 8200 §3): the error is
/// (key relative to the flow, message with the largest value that fits).
fn ip_limit(f: &FlowConfig) -> Result<(), (&'static str, String)> {
    let too_big = |value: u64, limit: u64| {
        format!("expected at most {limit}B: {value}B makes IP packets over 65535 bytes (RFC 791 §3.1, RFC 8200 §3)")
    };
    match f.wire_profile() {
        Profile::Quic(q) => {
            let value = f.quic.as_ref().map_or(0, |p| p.max_udp_payload.0);
            let limit = q.max_udp_payload_limit();
            if value > limit {
                return Err(("quic.max_udp_payload", too_big(value, limit)));
            }
        }
        Profile::Tcp(t) => {
            let value = f.tcp.as_ref().map_or(0, |p| p.mss.0);
            if value > t.mss_limit() {
                return Err(("tcp.mss", too_big(value, t.mss_limit())));
            }
        }
        Profile::Dccp(d) => {
            // A DCCP flow sends each application write as one packet.
            if let SourceConfig::Cbr { packet_size, .. } = f.source {
                if packet_size.0 > d.payload_limit() {
                    return Err(("source.packet_size", too_big(packet_size.0, d.payload_limit())));
                }
            }
        }
    }
    Ok(())
}
