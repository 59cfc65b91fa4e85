//! cclab-sim: a deterministic discrete-event network simulator for the congestion-control lab.
//!
//! It drives the sans-IO endpoints of `cclab-core` over modelled paths and hosts, with integer
//! nanosecond time and seeded randomness, so a scenario and a seed give byte-identical outputs.
//! There are no sockets here, and the wall clock is read only to report a run's cost. Layers:
//! - [`engine`]: the event queue (one pending wake-up per actor) and seeded random streams.
//! - [`link`]: one-way links (ACK thinning → loss → [`queue`] → serialiser → propagation), with
//!   jitter, reordering, packet-rate caps, mahimahi traces and cross traffic; [`loss`] models.
//! - [`host`]: end hosts with a one-core CPU cost model and a receive socket buffer, running
//!   [`endpoint`]s; [`network`] wires links, hosts and flows into one simulation.
//! - [`scenario`]: the TOML scenario schema, `--set` overrides and validation; [`run()`] builds
//!   a network from a scenario, runs it and writes [`summary`], [`timeseries`] and [`qlog`].

pub mod ack_intervals;
pub mod budget;
pub mod endpoint;
pub mod engine;
pub mod host;
pub mod link;
pub mod loss;
pub mod network;
pub mod packet;
pub mod qlog;
pub mod queue;
pub mod run;
pub mod scenario;
pub mod summary;
pub mod timeseries;

pub use run::{run, QlogMode, RunError, RunOptions, RunOutput};
pub use scenario::{load_scenario, read_scenario_text, Scenario, ScenarioError, MAX_SCENARIO_BYTES};
