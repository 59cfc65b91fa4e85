//! Packets for the queue disciplines' unit tests.

use crate::packet::InFlight;
use cclab_core::time::Time;
use cclab_core::wire::packet::{Datagram, Ecn, FlowId, Packet};

/// A data packet of `size` bytes of flow 0 with codepoint `ecn`.
pub(super) fn pkt(size: u32, ecn: Ecn) -> InFlight {
    flow_pkt(0, size, ecn)
}

/// A data packet of `size` bytes of `flow` with codepoint `ecn`.
pub(super) fn flow_pkt(flow: u32, size: u32, ecn: Ecn) -> InFlight {
    InFlight::new(
        Datagram {
            flow: FlowId(flow),
            size,
            ecn,
            packet: Packet::default(),
        },
        // The flow rides in its route (`InFlight::flow`): flow f's data take route 2f.
        (2 * flow) as u16,
        0,
        Time::ZERO,
    )
}
