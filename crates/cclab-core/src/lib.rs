//! cclab-core: sans-IO transport endpoints for the congestion-control lab.
//!
//! Everything here is a state machine that takes the true time `now` and datagrams in and
//! gives datagrams and timer deadlines out; there is no networking code and no clock here.
//! Layers:
//! - [`time`]: integer-nanosecond `Time`/`Dur`; [`clock`]: the endpoint clock model.
//! - [`wire`]: semantic packets, on-wire sizes per profile (QUIC/TCP/DCCP), the QUIC codec.
//! - [`recovery`]: RTT estimation, sent-packet record, loss detection, pacer, rate samples.
//! - [`cc`]: the congestion-controller trait and its algorithms.
//! - [`ack`]: receiver ACK policies and sender-side ACK-frequency policies.
//! - [`endpoint`]: the `Endpoint` trait, QUIC/TCP sender and receiver, TFRC/CCID-3, sources.
//! - [`prefetch`]: cache prefetch hints, for drivers that know which endpoint runs next.
#![warn(missing_docs)]

pub mod ack;
pub mod cc;
pub mod clock;
pub mod endpoint;
pub mod prefetch;
pub mod recovery;
pub mod time;
pub mod units;
pub mod wire;

pub use time::{Dur, Time};
