//! Loss recovery (RFC 9002): RTT estimation, the sent-packet record, loss detection, pacing,
//! delivery-rate estimation, windowed filters, and TCP's proportional rate reduction (RFC 6937).

pub mod delivery_rate;
pub mod loss;
pub mod pacer;
pub mod prr;
pub mod rtt;
pub mod rtt_histogram;
pub mod sent;
pub mod windowed_filter;
