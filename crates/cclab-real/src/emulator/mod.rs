//! The real-time path emulator: cclab-sim's link, queue and loss models, unchanged, driven by
//! the wall clock between real sockets.
//!
//! [`Fabric`] holds the links and routes of a scenario's path plan; [`Relay`] moves UDP
//! datagrams through it; [`ReleaseStats`] and [`RateMeter`] measure how closely the wall clock
//! kept the model's times. Other packet sources (tun devices for the kernel's TCP) drive the
//! same `Fabric`.

mod fabric;
mod relay;
mod release;

pub use fabric::Fabric;
pub use relay::{FlowAddrs, Relay, RelayReport};
pub use release::{RateMeter, ReleaseStats, LATE_THRESHOLD};
