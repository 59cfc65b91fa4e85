//! Wire formats: the semantic packet, exact on-wire sizes per protocol profile, and the QUIC
//! byte codec used by the UDP driver; `ack_box` reuses ACK frame boxes.

pub mod ack_box;
pub mod packet;
pub mod quic;
pub mod size;
