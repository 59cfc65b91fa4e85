//! `run_real`: a scenario's flows as real UDP endpoints with the wall clock, through the
//! real-time emulator unless the path is plain loopback; the same outputs as a simulation.

use crate::clock::WallClock;
use crate::driver::{drive, DriverConfig, DriverReport, Role, Shared};
use crate::emulator::{Fabric, FlowAddrs, Relay, RelayReport};
use crate::socket::{kernel_drops, UdpIo};
use crate::wire::RealCodec;
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::Endpoint;
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::FlowId;
use cclab_core::wire::size::Profile;
use cclab_sim::qlog::{trace_file_name, QlogSink, QlogWriter, Vantage};
use cclab_sim::run::{describe_flow, flow_endpoints, plan, qlog_format, uses_ecn, PathPlan};
use cclab_sim::scenario::ScenarioFile;
use cclab_sim::summary::{FlowSummary, LinkSummary, SimStats, Summary};
use cclab_sim::timeseries::Sampler;
use cclab_sim::{QlogMode, RunOutput, Scenario};
use std::fs::File;
use std::io::{self, BufWriter};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How often the calling thread checks progress, the deadline and cancellation.
const POLL: Duration = Duration::from_millis(50);
/// Extra wall time after the scenario's duration before a run is stopped.
const GRACE: Dur = Dur(2_000_000_000);

/// How to run a scenario for real.
pub struct RealOptions {
    /// Seed instead of the scenario's (it seeds the emulated links' loss, jitter and reordering).
    pub seed: Option<u64>,
    /// Directory for `summary.json`, `timeseries.csv` and qlog files (created if missing).
    pub out_dir: Option<PathBuf>,
    /// qlog schema; files are written only with an `out_dir`.
    pub qlog: QlogMode,
    /// Time-series interval instead of the scenario's.
    pub timeseries_interval: Option<Dur>,
    /// Address every socket binds (loopback unless said otherwise).
    pub bind: IpAddr,
    /// Wall-clock limit instead of the scenario's duration (plus 2 s).
    pub deadline: Option<Dur>,
    /// Called about every 50 ms with the fraction done; false stops the run (outputs are still
    /// written, then [`RealError::Cancelled`] is returned).
    pub progress: Option<Box<dyn FnMut(f64) -> bool + Send>>,
}

impl Default for RealOptions {
    fn default() -> Self {
        RealOptions {
            seed: None,
            out_dir: None,
            qlog: QlogMode::Off,
            timeseries_interval: None,
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            deadline: None,
            progress: None,
        }
    }
}

/// A real run that could not be made or did not finish.
#[derive(Debug)]
pub enum RealError {
    /// The scenario asks for something real mode cannot do (names the key).
    Unsupported(String),
    /// A socket or file could not be set up or written.
    Io(String),
    /// The progress hook asked to stop; the outputs of the run so far were written.
    Cancelled(Box<RunOutput>),
}

impl std::fmt::Display for RealError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RealError::Unsupported(m) | RealError::Io(m) => f.write_str(m),
            RealError::Cancelled(_) => f.write_str("real run cancelled (outputs written so far)"),
        }
    }
}

impl std::error::Error for RealError {}

fn io_err(what: &str) -> impl FnOnce(io::Error) -> RealError + '_ {
    move |e| RealError::Io(format!("{what}: {e}"))
}

/// What real mode does not model, each said once on standard error: the host models exist only
/// in simulation, where the CPU is modelled; here the machine's own CPU does the work.
pub fn notices(file: &ScenarioFile) -> Vec<String> {
    let mut v = Vec::new();
    for (side, h) in [("sender", &file.hosts.sender), ("receiver", &file.hosts.receiver)] {
        if h.cpu != Default::default() {
            v.push(format!(
                "real mode ignores [hosts.{side}.cpu] (CPU costs, stalls and idle states are simulation-only host models; this machine's CPU does the work)"
            ));
        }
    }
    v
}

/// Most flows a real run takes: each has two sockets and two threads of its own, and a `count` of a few
/// digits would otherwise ask this machine for thousands of both.
pub const MAX_REAL_FLOWS: usize = 64;

fn check(file: &ScenarioFile, bind: IpAddr) -> Result<(), RealError> {
    if file.flow.len() > MAX_REAL_FLOWS {
        return Err(RealError::Unsupported(format!(
            "flow: real mode runs at most {MAX_REAL_FLOWS} flows (two sockets and two threads each); this scenario has {}",
            file.flow.len()
        )));
    }
    for (i, f) in file.flow.iter().enumerate() {
        let (key, ipv6) = match f.wire_profile() {
            Profile::Quic(q) => ("quic", q.ipv6),
            Profile::Tcp(t) => ("tcp", t.ipv6),
            Profile::Dccp(d) => ("dccp", d.ipv6),
        };
        if ipv6 != bind.is_ipv6() {
            let want = if ipv6 { "::1" } else { "127.0.0.1" };
            return Err(RealError::Unsupported(format!(
                "flow[{i}].{key}.ipv6 = {ipv6}, but real mode binds {bind}: give --bind {want} (headers must match the model's sizes)"
            )));
        }
    }
    Ok(())
}

/// Runs `s` on real sockets; see the crate docs.
pub fn run_real(s: &Scenario, mut opts: RealOptions) -> Result<RunOutput, RealError> {
    let file = s.config();
    check(file, opts.bind)?;
    for n in notices(file) {
        eprintln!("cclab: {n}");
    }
    let seed = opts.seed.unwrap_or(file.scenario.seed);
    let plan = plan(file);
    let emulated = !plan.links.iter().all(|l| l.config.is_transparent());
    let interval = opts.timeseries_interval.unwrap_or(file.output.timeseries_interval);
    let deadline = Time::ZERO + opts.deadline.unwrap_or(file.scenario.duration + GRACE);
    let format = qlog_format(opts.qlog, file.output.qlog).filter(|_| opts.out_dir.is_some());
    if let Some(dir) = &opts.out_dir {
        std::fs::create_dir_all(dir).map_err(io_err(&dir.display().to_string()))?;
    }

    // Sockets first, so every endpoint knows its peer before any thread starts.
    let bind = SocketAddr::new(opts.bind, 0);
    let buffer = |h: &cclab_sim::host::HostConfig| h.socket_buffer.map(|b| b.0);
    let relay = if emulated {
        Some(Relay::bind(opts.bind).map_err(io_err("relay socket"))?)
    } else {
        None
    };
    let traced = file.output.traced_flows(file.flow.len());
    let mut flows = Vec::new();
    let mut cc_names = Vec::new();
    for (i, f) in file.flow.iter().enumerate() {
        let s_io = UdpIo::bind(bind, buffer(&file.hosts.sender)).map_err(io_err("sender socket"))?;
        let r_io = UdpIo::bind(bind, buffer(&file.hosts.receiver)).map_err(io_err("receiver socket"))?;
        let addrs = FlowAddrs {
            sender: s_io.local_addr().map_err(io_err("sender socket"))?,
            receiver: r_io.local_addr().map_err(io_err("receiver socket"))?,
        };
        let (to_receiver, to_sender) = match &relay {
            Some(r) => (r.sender_side(), r.receiver_side()),
            None => (addrs.receiver, addrs.sender),
        };
        let start = Time::ZERO + f.start;
        let (sender, receiver, (mut sp, mut rp)) = flow_endpoints(f, FlowId(i as u32), seed, i as u32, start);
        cc_names.push(sp.cc_algorithm.clone());
        let qlog = |params: &mut cclab_sim::qlog::QlogParams, v: Vantage| -> Result<_, RealError> {
            let (Some(fmt), Some(dir), true) = (format, &opts.out_dir, traced[i]) else {
                return Ok(None);
            };
            params.format = fmt;
            let compression = file.output.qlog_compression;
            let path = dir.join(trace_file_name(v, FlowId(i as u32), file.flow.len()) + compression.extension());
            let title = format!("{} flow {i} (real)", file.scenario.name);
            let out = QlogSink::create(&path, compression).map_err(io_err(&path.display().to_string()))?;
            let w = QlogWriter::new(out, v, &title, params).map_err(io_err(&path.display().to_string()))?;
            Ok(Some(w))
        };
        let s_cfg = DriverConfig {
            role: Role::Sender,
            peer: to_receiver,
            start,
            deadline,
            sample_every: Some(interval).filter(|d| d.0 > 0),
            qlog: qlog(&mut sp, Vantage::Sender)?,
            qlog_window: file.output.qlog_window_times(),
        };
        let r_cfg = DriverConfig {
            role: Role::Receiver,
            peer: to_sender,
            start,
            deadline,
            sample_every: None,
            qlog: qlog(&mut rp, Vantage::Receiver)?,
            qlog_window: file.output.qlog_window_times(),
        };
        let codec = RealCodec::new(FlowId(i as u32), f.wire_profile());
        flows.push((addrs, (s_io, sender, s_cfg), (r_io, receiver, r_cfg), codec));
    }
    let addrs: Vec<FlowAddrs> = flows.iter().map(|f| f.0).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let shared: Vec<Shared> = flows
        .iter()
        .map(|_| Shared {
            stop: Arc::clone(&stop),
            sender_done: Arc::new(AtomicBool::new(false)),
            receiver_done: Arc::new(AtomicBool::new(false)),
            acked: Arc::new(AtomicU64::new(0)),
            delivered: Arc::new(AtomicU64::new(0)),
        })
        .collect();
    let total_bytes: Option<u64> = file
        .flow
        .iter()
        .map(|f| match f.source {
            SourceConfig::Bulk { size } => Some(size.0),
            _ => None,
        })
        .sum();
    let classify =
        plan.links
            .iter()
            .any(|l| l.config.thin_acks > 1)
            .then(|| match file.flow.first().map(|f| f.wire_profile()) {
                Some(Profile::Quic(q)) => q,
                _ => cclab_core::wire::size::QuicProfile {
                    dcid_len: 0,
                    ..Default::default()
                },
            });

    let clock = WallClock::start();
    let mut cancelled = false;
    let (relay_report, reports) = std::thread::scope(|scope| {
        let relay = relay.map(|r| {
            let (fabric, stop) = (Fabric::new(&plan, seed), Arc::clone(&stop));
            let (plan, addrs) = (&plan, &addrs);
            let every = Some(interval).filter(|d| d.0 > 0);
            scope.spawn(move || r.run(fabric, plan, addrs, classify, every, clock, stop))
        });
        let mut handles = Vec::new();
        for ((_, (s_io, s_ep, s_cfg), (r_io, r_ep, r_cfg), codec), sh) in flows.into_iter().zip(&shared) {
            let (sc, rc, ss, rs) = (codec.clone(), codec, sh.clone(), sh.clone());
            let s = scope.spawn(move || drive(s_io, s_ep, sc, s_cfg, clock, ss));
            let r = scope.spawn(move || drive(r_io, r_ep, rc, r_cfg, clock, rs));
            handles.push((s, r));
        }
        loop {
            std::thread::sleep(POLL);
            let done = |s: &Shared| s.sender_done.load(Ordering::Relaxed) && s.receiver_done.load(Ordering::Relaxed);
            if shared.iter().all(done) {
                break;
            }
            if clock.now() >= deadline {
                stop.store(true, Ordering::Relaxed);
                break;
            }
            let fraction = match total_bytes.filter(|&t| t > 0) {
                Some(t) => shared.iter().map(|s| s.acked.load(Ordering::Relaxed)).sum::<u64>() as f64 / t as f64,
                None => clock.now().as_nanos() as f64 / deadline.as_nanos().max(1) as f64,
            };
            if let Some(p) = opts.progress.as_mut() {
                if !p(fraction.min(1.0)) {
                    cancelled = true;
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
        let reports: Vec<_> = handles
            .into_iter()
            .map(|(s, r)| (s.join().expect("sender thread"), r.join().expect("receiver thread")))
            .collect();
        stop.store(true, Ordering::Relaxed);
        (relay.map(|h| h.join().expect("relay thread")), reports)
    });
    let end = clock.now();
    if let Some(p) = opts.progress.as_mut().filter(|_| !cancelled) {
        p(1.0);
    }
    let out = report(file, seed, &plan, &cc_names, interval, end, relay_report, reports)?;
    if let Some(dir) = &opts.out_dir {
        let path = dir.join("summary.json");
        std::fs::write(&path, out.summary.to_json_pretty() + "\n").map_err(io_err(&path.display().to_string()))?;
        let path = dir.join("timeseries.csv");
        let mut w = BufWriter::new(File::create(&path).map_err(io_err(&path.display().to_string()))?);
        out.timeseries
            .to_csv(&mut w)
            .and_then(|()| io::Write::flush(&mut w))
            .map_err(io_err(&path.display().to_string()))?;
    }
    if cancelled {
        return Err(RealError::Cancelled(Box::new(out)));
    }
    Ok(out)
}

type Pair = ((DriverReport, UdpIo), (DriverReport, UdpIo));

/// The summary and time series of a finished real run.
fn report(
    file: &ScenarioFile,
    seed: u64,
    plan: &PathPlan,
    cc_names: &[Option<String>],
    interval: Dur,
    end: Time,
    mut relay: Option<RelayReport>,
    flows: Vec<Pair>,
) -> Result<RunOutput, RealError> {
    let mut summaries = Vec::new();
    let mut rows = Vec::new();
    let mut datagrams = 0;
    let mut first_error = None;
    for (i, ((s, s_io), (r, r_io))) in flows.into_iter().enumerate() {
        let f = &file.flow[i];
        let (ss, rs) = (s.endpoint.stats(), r.endpoint.stats());
        datagrams += ss.datagrams_sent + rs.datagrams_sent;
        let mut fs = FlowSummary::new(
            FlowId(i as u32),
            &ss,
            &rs,
            &s.endpoint.metrics(),
            &r.acks,
            Time::ZERO + f.start,
            end,
        );
        let share = |d: &DriverReport| (d.wall.0 > 0).then(|| d.cpu.as_secs_f64() / d.wall.as_secs_f64());
        fs.cpu_time_sender_s = Some(s.cpu.as_secs_f64());
        fs.cpu_time_receiver_s = Some(r.cpu.as_secs_f64());
        fs.cpu_utilisation_sender = share(&s);
        fs.cpu_utilisation_receiver = share(&r);
        let drops = |io: &UdpIo| io.local_addr().ok().and_then(kernel_drops);
        fs.socket_drops = Some(drops(&s_io).unwrap_or(0) + drops(&r_io).unwrap_or(0));
        fs.decode_errors = Some(s.counters.decode_errors + r.counters.decode_errors);
        describe_flow(&mut fs, f, cc_names[i].clone());
        fs.set_rtt_percentiles(s.endpoint.rtt_percentiles());
        fs.ecn_marks = uses_ecn(f).then_some(r.counters.ce_received);
        for d in [&s, &r] {
            if let Some(e) = d.counters.error.as_ref().or(d.counters.first_decode_error.as_ref()) {
                first_error.get_or_insert_with(|| format!("flow[{i}]: {e}"));
            }
        }
        rows.extend(s.samples.into_iter().map(|(t, m, c)| (t, i, m, c)));
        summaries.push(fs);
    }
    if let Some(e) = &first_error {
        eprintln!("cclab: {e}");
    }
    // Each round as the simulator writes it: every flow's row, then every link's.
    rows.sort_by_key(|r| (r.0, r.1));
    let mut link_rows = relay
        .as_mut()
        .map_or(Vec::new(), |r| std::mem::take(&mut r.link_samples));
    link_rows.sort_by_key(|r| (r.0, r.1));
    let mut sampler = Sampler::new(interval);
    let mut links = link_rows.iter().peekable();
    for (t, i, m, c) in &rows {
        while let Some((lt, l, s)) = links.next_if(|(lt, ..)| lt < t) {
            sampler.sample_link(*lt, *l, s);
        }
        sampler.sample(*t, FlowId(*i as u32), m, c);
    }
    for (lt, l, s) in links {
        sampler.sample_link(*lt, *l, s);
    }
    let timeseries = sampler.into_series();
    let elapsed = end.saturating_since(Time::ZERO);
    let (links, emulator) = match relay {
        Some(rr) => {
            if let Some(e) = &rr.error {
                eprintln!("cclab: {e}");
            }
            let links = rr
                .fabric
                .links()
                .iter()
                .zip(&plan.links)
                .zip(&rr.rates)
                .map(|((l, p), &(configured, achieved))| {
                    let st = l.stats();
                    LinkSummary {
                        name: p.name.clone(),
                        direction: p.direction.to_string(),
                        utilisation: l.utilisation(elapsed),
                        drops: st.queue.dropped_packets + st.lost_packets,
                        bytes: st.delivered_bytes,
                        packets: st.delivered_packets,
                        ecn_marks: st.queue.ecn_marked,
                        configured_rate_bps: configured,
                        achieved_rate_bps: achieved,
                    }
                })
                .collect();
            (links, Some(rr.emulator))
        }
        None => (Vec::new(), None),
    };
    let wall_s = elapsed.as_secs_f64();
    // The CPU of every endpoint thread and of the emulator: what the run cost this machine.
    let cpu_s = summaries
        .iter()
        .map(|f| f.cpu_time_sender_s.unwrap_or(0.0) + f.cpu_time_receiver_s.unwrap_or(0.0))
        .sum::<f64>()
        + emulator.as_ref().map_or(0.0, |e| e.cpu_s);
    let mut summary = Summary {
        scenario: file.scenario.name.clone(),
        seed,
        mode: "real".into(),
        sim: SimStats {
            cpu_s,
            events: datagrams,
            wall_s,
            events_per_s: if cpu_s > 0.0 { datagrams as f64 / cpu_s } else { 0.0 },
            sim_time_s: wall_s,
        },
        flows: summaries,
        links,
        fairness_jain: None,
        emulator,
    };
    let started: Vec<bool> = file.flow.iter().map(|f| Time::ZERO + f.start < end).collect();
    summary.set_fairness(&started);
    Ok(RunOutput { summary, timeseries })
}
