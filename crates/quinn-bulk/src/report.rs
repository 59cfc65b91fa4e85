//! The one JSON line each side prints per connection.

use crate::args::Cc;
use crate::wire::Direction;
use quinn::ConnectionStats;
use serde_json::{json, Value};
use std::time::Duration;

/// What one side saw of one transfer.
pub(crate) struct Transfer {
    /// "client" or "server".
    pub(crate) role: &'static str,
    pub(crate) direction: Direction,
    pub(crate) cc: Cc,
    /// Application bytes moved (sent by the sender, received by the receiver).
    pub(crate) bytes: u64,
    /// From the request to the last byte (upload: the server's count is back).
    pub(crate) elapsed: Duration,
    /// From connect to an established connection (client only).
    pub(crate) handshake: Option<Duration>,
    pub(crate) peer: std::net::SocketAddr,
}

/// The report line: transfer figures plus quinn's path and UDP statistics of this side.
pub(crate) fn line(transfer: &Transfer, stats: &ConnectionStats) -> String {
    let seconds = transfer.elapsed.as_secs_f64();
    let goodput_bps = if seconds > 0.0 {
        transfer.bytes as f64 * 8.0 / seconds
    } else {
        0.0
    };
    let path = &stats.path;
    let udp = |s: &quinn::UdpStats| json!({"datagrams": s.datagrams, "bytes": s.bytes, "ios": s.ios});
    let value: Value = json!({
        "role": transfer.role,
        "direction": transfer.direction.name(),
        "cc": transfer.cc.name(),
        "peer": transfer.peer.to_string(),
        "bytes": transfer.bytes,
        "seconds": seconds,
        "goodput_bps": goodput_bps,
        "handshake_s": transfer.handshake.map(|d| d.as_secs_f64()),
        "path": {
            "cwnd": path.cwnd,
            "rtt_s": path.rtt.as_secs_f64(),
            "min_rtt_s": path.min_rtt.as_secs_f64(),
            "lost_packets": path.lost_packets,
            "lost_bytes": path.lost_bytes,
            "congestion_events": path.congestion_events,
            "sent_packets": path.sent_packets,
            "current_mtu": path.current_mtu,
        },
        "udp_tx": udp(&stats.udp_tx),
        "udp_rx": udp(&stats.udp_rx),
    });
    value.to_string()
}
