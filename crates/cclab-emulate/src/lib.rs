//! cclab-emulate: third-party UDP programs through a scenario's emulated path.
//!
//! The server listens on an address this crate picks; the client sends to the relay's front
//! socket, whose first peer becomes "the client". Datagrams take the scenario's forward links
//! (client → server) or return links (server → client) in the real-time emulator
//! (`cclab_real::emulator::Fabric`), exactly as cclab's own endpoints do in real mode. The relay
//! counts per direction packets, bytes, drops and CE marks, and samples the queueing delay the
//! model gave each packet. It knows nothing of the programs; `cclab emulate` (Python) starts,
//! watches and stops them.

mod relay;
mod series;

pub use relay::{Emulation, EmulationReport};
pub use series::{DirectionSample, QueueSeries};
