//! cclab-real: real mode. The sans-IO endpoints of `cclab-core`, unchanged, on real UDP
//! sockets with the wall clock, and a real-time path emulator that drives `cclab-sim`'s own
//! link, queue and loss models between them.
//!
//! It never models anything itself: the endpoints are the simulator's, the links are the
//! simulator's, and only the clock and the sockets are real. Layers:
//! - [`clock`]: the wall clock as [`cclab_core::time::Time`], timed waits on sockets, thread CPU time.
//! - [`socket`]: one UDP socket on quinn-udp (GSO, GRO, ECN), kernel drop counters.
//! - [`wire`]: every profile's packets in cclab's codec, padded to the modelled size.
//! - [`driver`]: one endpoint on one socket on a thread.
//! - [`emulator`]: the scenario's links driven by the wall clock between two relay sockets.
//! - [`run_real`]: a scenario's flows through all of it, writing the simulator's outputs.
//!
//! Sockets bind loopback unless told otherwise; every run has a wall-clock deadline.

pub mod clock;
pub mod driver;
pub mod emulator;
mod run;
pub mod socket;
pub mod wire;

pub use run::{notices, run_real, RealError, RealOptions, MAX_REAL_FLOWS};
