//! Loss recovery (RFC 9002): RTT estimation, the sent-packet record, loss detection, pacing,
//! delivery-rate estimation and windowed filters.

pub mod rtt;
