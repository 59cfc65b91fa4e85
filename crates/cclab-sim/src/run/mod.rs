//! `run()`: one simulation of a scenario, with its outputs.
//!
//! With `out_dir` set, `run` writes `summary.json`, `timeseries.csv` and, when qlog is on, one
//! qlog file per flow and side (`trace.sqlog` and `trace-receiver.sqlog` for a single flow;
//! `trace-flow<i>.sqlog` and `trace-receiver-flow<i>.sqlog` for each flow of several; `.gz` added
//! with `[output] qlog_compression = "gzip"`).

mod build;
mod cpu_clock;
mod observe;
mod packet_bound;
mod plan;
mod report;

pub use build::{flow_endpoints, Endpoints};
pub(crate) use cpu_clock::thread_cpu_ns;
pub use plan::{plan, FlowRoutes, PathPlan, PlannedLink};
pub use report::{describe_flow, uses_ecn};

use crate::host::Side;
use crate::network::Stop;
use crate::qlog::{trace_file_name, QlogCompression, QlogFormat, QlogSink, QlogWriter, TraceWriter};
use crate::scenario::Scenario;
use crate::summary::Summary;
use crate::timeseries::{Sampler, SamplerOutput, TimeSeries};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::time::{Dur, Time};
use cclab_core::wire::packet::FlowId;
use observe::{into_qlog_trace, vantage, QlogTrace, RunObserver};
use packet_bound::PacketBound;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Which qlog schema to write, if any. The rule: traces are written only when asked for, by the
/// scenario (`[output] qlog = true`, in the 0.3 format) or by the caller; a caller's choice wins.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QlogMode {
    /// The scenario decides: `[output] qlog = true` means `Draft02`, otherwise no qlog.
    #[default]
    Off,
    /// No qlog, whatever the scenario says.
    Never,
    /// qlog 0.3 (main-schema draft-02), what qvis reads.
    Draft02,
    /// The IETF qlog drafts.
    Ietf,
}

/// How to run a scenario.
#[derive(Default)]
pub struct RunOptions {
    /// Seed instead of the scenario's.
    pub seed: Option<u64>,
    /// Directory for `summary.json`, `timeseries.csv` and qlog files (created if missing).
    pub out_dir: Option<PathBuf>,
    /// qlog schema; files are written only with an `out_dir`.
    pub qlog: QlogMode,
    /// Time-series interval instead of the scenario's.
    pub timeseries_interval: Option<Dur>,
    /// Do not keep the time series in memory (`RunOutput::timeseries` is then empty); with an
    /// `out_dir` it is still written to `timeseries.csv`, as it is produced.
    pub discard_timeseries: bool,
    /// Called now and then with the fraction done (of simulated time, or of bytes for bulk
    /// transfers, whichever is further); returning false cancels the run.
    pub progress: Option<Box<dyn FnMut(f64) -> bool + Send>>,
    /// Stop with [`RunError::EventLimit`] once this many events ran (checked every 65,536 events and every
    /// time-series tick): a bound on the work of a run whatever its scenario says (fuzzing).
    pub max_events: Option<u64>,
}

/// What a run produces.
#[derive(Clone, Debug)]
pub struct RunOutput {
    /// Per-flow and per-link results.
    pub summary: Summary,
    /// Per-flow samples every time-series interval.
    pub timeseries: TimeSeries,
}

/// A run that did not finish.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The progress hook returned false.
    #[error("run cancelled")]
    Cancelled,
    /// The outputs would exceed `[output] max_bytes` (checked before the run starts).
    #[error("output.max_bytes: {0}")]
    Budget(String),
    /// The network held more packets than `[scenario] max_packets_in_network` (checked now and then).
    #[error(
        "scenario.max_packets_in_network: the network held {held} packets at {at:.6} s, more than the bound of {max}. \
         Either the bound is below what this path holds (raise the bound), or nothing limits a window on this path \
         (links of rate \"unlimited\" between hosts whose CPU costs nothing, or a queue millions of packets deep), so \
         it grows until the memory runs out (~150-300 B of simulator memory per packet): give a link a rate, the \
         hosts a CPU cost or the queue a limit."
    )]
    PacketBound {
        /// Packets in the links and socket buffers when the bound was found passed.
        held: u64,
        /// Simulated seconds then.
        at: f64,
        /// The bound.
        max: u64,
    },
    /// `RunOptions::max_events` was reached.
    #[error("run stopped after {0} events (max_events)")]
    EventLimit(u64),
    /// An output file could not be written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> RunError + '_ {
    move |source| RunError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The qlog schema a run writes, given the caller's mode and the scenario's `[output] qlog`.
pub fn qlog_format(mode: QlogMode, scenario_qlog: bool) -> Option<QlogFormat> {
    match (mode, scenario_qlog) {
        (QlogMode::Ietf, _) => Some(QlogFormat::Ietf),
        (QlogMode::Draft02, _) | (QlogMode::Off, true) => Some(QlogFormat::V03),
        (QlogMode::Off, false) | (QlogMode::Never, _) => None,
    }
}

/// Runs `s` to the end of its duration or until every flow is done.
pub fn run(s: &Scenario, opts: RunOptions) -> Result<RunOutput, RunError> {
    let clock = cpu_clock::CpuClock::start();
    let file = s.config();
    let interval = opts.timeseries_interval.unwrap_or(file.output.timeseries_interval);
    crate::budget::check(file, interval).map_err(RunError::Budget)?;
    let seed = opts.seed.unwrap_or(file.scenario.seed);
    let format = qlog_format(opts.qlog, file.output.qlog).filter(|_| opts.out_dir.is_some());
    // Plain traces go through the run's writer thread. Declared before everything that holds a
    // trace, so that it is dropped after them, when their last blocks have been handed over.
    let plain = file.output.qlog_compression == QlogCompression::None;
    let mut writer = match (format, &opts.out_dir) {
        (Some(_), Some(dir)) if plain => Some(TraceWriter::start().map_err(io_err(dir))?),
        _ => None,
    };
    // Which flows are traced, once for the run (`[output] qlog_flows`).
    let traced = match format {
        Some(_) => file.output.traced_flows(file.flow.len()),
        None => vec![false; file.flow.len()],
    };
    let mut built = build::build(file, seed, &traced);
    if let Some(dir) = &opts.out_dir {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    }
    let n = file.flow.len();
    let qlog_window = file.output.qlog_window_times();
    let qlog_failed = Arc::new(AtomicBool::new(false));
    let mut qlogs = Vec::with_capacity(n);
    let chunk = crate::qlog::buffered_chunk_bytes(2 * traced.iter().filter(|&&t| t).count());
    for (i, (sender_params, receiver_params)) in built.qlog_params.iter_mut().enumerate() {
        let (Some(fmt), Some(dir), true) = (format, &opts.out_dir, traced[i]) else {
            qlogs.push([None, None]);
            continue;
        };
        let title = format!("{} flow {i}", file.scenario.name);
        let mut open = |params: &mut crate::qlog::QlogParams, side| -> Result<_, RunError> {
            params.format = fmt;
            let compression = file.output.qlog_compression;
            let name = trace_file_name(vantage(side), FlowId(i as u32), n) + compression.extension();
            let path = dir.join(name);
            // The writer sends its records in large chunks (256 KB, or a whole ~2 MiB block to a direct
            // file): no BufWriter between it and the file.
            let sink = match writer.as_mut() {
                Some(w) => w.create(&path),
                None => QlogSink::create(&path, compression),
            }
            .map_err(io_err(&path))?;
            let w = QlogWriter::with_chunk(sink, vantage(side), &title, params, chunk).map_err(io_err(&path))?;
            let trace = Box::new(QlogTrace::new(w, path, qlog_window, qlog_failed.clone()));
            // The endpoint writes its trace itself if it can; otherwise the observer does.
            Ok(match built.net.set_trace_sink(FlowId(i as u32), side, trace) {
                Ok(()) => None,
                Err(back) => Some(*into_qlog_trace(back)),
            })
        };
        let s = open(sender_params, Side::Sender)?;
        let r = open(receiver_params, Side::Receiver)?;
        qlogs.push([s, r]);
    }
    let csv = match &opts.out_dir {
        Some(dir) => {
            let path = dir.join("timeseries.csv");
            let f = File::create(&path).map_err(io_err(&path))?;
            // Rows go out in 256 KB chunks while the run goes on.
            let w: Box<dyn Write + Send> = Box::new(BufWriter::with_capacity(1 << 18, f));
            Some((w, path))
        }
        None => None,
    };
    let csv_path = csv.as_ref().map(|(_, p)| p.clone());
    let output = SamplerOutput {
        csv: csv.map(|(w, _)| w),
        keep: !opts.discard_timeseries,
    };
    let ts_err = |e| match &csv_path {
        Some(p) => RunError::Io {
            path: p.clone(),
            source: e,
        },
        None => RunError::Io {
            path: PathBuf::from("timeseries"),
            source: e,
        },
    };
    let mut sampler = Sampler::with_output(interval, output).map_err(ts_err)?;
    sampler.reserve_rows(crate::budget::timeseries_bytes(file, interval) / crate::budget::ROW_BYTES);
    let total_bytes = file
        .flow
        .iter()
        .map(|f| match f.source {
            SourceConfig::Bulk { size } => Some(size.0),
            _ => None,
        })
        .sum::<Option<u64>>();
    let mut obs = RunObserver {
        qlogs,
        sampler,
        progress: opts.progress,
        duration: file.scenario.duration,
        total_bytes,
        max_events: opts.max_events,
        qlog_failed,
        packets: PacketBound::new(file.scenario.max_packets_in_network),
    };
    let stop = built
        .net
        .run(Time::ZERO + file.scenario.duration, Some(interval), &mut obs);
    // Every qlog back from wherever it was written, in flow order, sender first.
    let mut traces = Vec::new();
    for (i, files) in obs.qlogs.drain(..).enumerate() {
        for (side, kept) in [Side::Sender, Side::Receiver].into_iter().zip(files) {
            let kept = kept.or_else(|| {
                let sink = built.net.take_trace_sink(FlowId(i as u32), side);
                sink.map(|t| *into_qlog_trace(t))
            });
            traces.extend(kept);
        }
    }
    if let Some((path, source)) = traces.iter_mut().find_map(QlogTrace::error) {
        return Err(RunError::Io { path, source });
    }
    if stop == Stop::Cancelled {
        if let Some((held, at)) = obs.packets.exceeded {
            return Err(RunError::PacketBound {
                held,
                at: at.as_nanos() as f64 * 1e-9,
                max: file.scenario.max_packets_in_network,
            });
        }
        if opts.max_events.is_some_and(|cap| built.net.events() >= cap) {
            return Err(RunError::EventLimit(built.net.events()));
        }
        return Err(RunError::Cancelled);
    }
    if let Some(p) = obs.progress.as_mut() {
        p(1.0);
    }
    for t in traces {
        t.finish().map_err(|(path, source)| RunError::Io { path, source })?;
    }
    let timeseries = obs.sampler.finish().map_err(ts_err)?;
    let cc_names: Vec<_> = built.qlog_params.iter().map(|(s, _)| s.cc_algorithm.clone()).collect();
    // The writer thread's CPU is the run's too: writing traces is part of what a traced run costs.
    let (cpu_s, wall_s) = clock.elapsed();
    let writer_cpu_s = writer.take().map_or(0, TraceWriter::finish) as f64 * 1e-9;
    let cost = (cpu_s + writer_cpu_s, wall_s);
    let summary = report::summarise(&built.net, file, &built.link_names, &cc_names, seed, cost);
    if let Some(dir) = &opts.out_dir {
        let path = dir.join("summary.json");
        std::fs::write(&path, summary.to_json_pretty() + "\n").map_err(io_err(&path))?;
    }
    Ok(RunOutput { summary, timeseries })
}
