//! Loss recovery (RFC 9002): RTT estimation, the sent-packet record, loss detection, pacing,
//! delivery-rate estimation and windowed filters.

pub mod delivery_rate;
pub mod loss;
pub mod pacer;
pub mod rtt;
pub mod rtt_histogram;
pub mod sent;
pub mod windowed_filter;
