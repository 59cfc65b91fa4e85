//! A data sender and receiver that both open with `handshake` (the scenario's `[flow] handshake`
//! sets it on both ends), for tests that pass their datagrams by hand.

use cclab_core::cc::CcConfig;
use cclab_core::endpoint::handshake::HandshakeConfig;
use cclab_core::endpoint::receiver::{Receiver, ReceiverConfig};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::time::Time;
use cclab_core::units::Bytes;
use cclab_core::wire::packet::FlowId;
use cclab_core::wire::size::{Profile, TcpProfile};

/// The pair for flow 0 at time zero, the sender with `size` bytes of bulk data under `cc`.
pub(crate) fn pair(profile: Profile, handshake: HandshakeConfig, cc: &CcConfig, size: u64) -> (Sender, Receiver) {
    let scfg = SenderConfig {
        handshake: Some(handshake.clone()),
        ..Default::default()
    };
    let rcfg = ReceiverConfig {
        handshake: Some(handshake),
        ..Default::default()
    };
    let source = SourceConfig::Bulk { size: Bytes(size) };
    let s = Sender::new(FlowId(0), profile, &scfg, cc, &source, Time::ZERO);
    let r = Receiver::new(FlowId(0), profile, &rcfg, Time::ZERO);
    (s, r)
}

/// The TCP profile the handshake tests use: 1,448-byte MSS over IPv4, no AccECN, with or without timestamps.
pub(crate) fn tcp(timestamps: bool) -> Profile {
    Profile::Tcp(TcpProfile {
        mss: 1448,
        timestamps,
        ipv6: false,
        accecn: false,
    })
}
