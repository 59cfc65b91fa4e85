//! What real mode puts in a UDP payload: every profile's packets in cclab's QUIC codec, padded
//! to the size the profile models (a TCP segment or a DCCP packet keeps its modelled size on
//! the wire whenever the codec's encoding is not longer). The receiving side decodes each
//! datagram and checks every stream byte against the pattern, so a corrupted or misplaced
//! byte is an error, counted and reported, never data.

use cclab_core::wire::packet::{Datagram, Ecn, FlowId, Packet};
use cclab_core::wire::quic::{decode, encode_padded, DecodeError};
use cclab_core::wire::size::{Profile, QuicProfile, IPV4_HEADER, IPV6_HEADER, UDP_HEADER};

/// Encoder and decoder of one endpoint's datagrams.
#[derive(Clone, Debug)]
pub struct RealCodec {
    flow: FlowId,
    quic: QuicProfile,
    /// IP + UDP header bytes.
    overhead: u32,
    /// Largest packet number received (expands truncated numbers, RFC 9000 §17.1).
    largest_pn: Option<u64>,
}

impl RealCodec {
    /// The codec of `flow`'s endpoints with wire profile `profile`.
    pub fn new(flow: FlowId, profile: Profile) -> RealCodec {
        let (quic, ipv6) = match profile {
            Profile::Quic(q) => (q, q.ipv6),
            Profile::Tcp(t) => (plain(t.ipv6), t.ipv6),
            Profile::Dccp(d) => (plain(d.ipv6), d.ipv6),
        };
        RealCodec {
            flow,
            quic,
            overhead: UDP_HEADER + if ipv6 { IPV6_HEADER } else { IPV4_HEADER },
            largest_pn: None,
        }
    }

    /// IP + UDP header bytes of every datagram.
    pub fn overhead(&self) -> u32 {
        self.overhead
    }

    /// Appends `d`'s UDP payload to `buf`.
    pub fn encode(&self, d: &Datagram, buf: &mut Vec<u8>) {
        let len = d.size.saturating_sub(self.overhead) as usize;
        if (1..=4).contains(&d.packet.pn_len) {
            encode_padded(&d.packet, &self.quic, len, buf);
        } else {
            // TCP and DCCP packets leave the length to the profile; the codec needs one.
            let p = Packet {
                pn_len: 4,
                ..d.packet.clone()
            };
            encode_padded(&p, &self.quic, len, buf);
        }
    }

    /// Decodes one UDP payload that arrived with `ecn` into the datagram its endpoint handles.
    pub fn decode(&mut self, bytes: &[u8], ecn: Ecn) -> Result<Datagram, DecodeError> {
        let packet = decode(bytes, &self.quic, self.largest_pn)?;
        self.largest_pn = Some(self.largest_pn.map_or(packet.pn, |l| l.max(packet.pn)));
        Ok(Datagram {
            flow: self.flow,
            size: bytes.len() as u32 + self.overhead,
            ecn,
            packet,
        })
    }
}

/// The codec's framing for profiles that are not QUIC: no connection ID, any payload size.
fn plain(ipv6: bool) -> QuicProfile {
    QuicProfile {
        max_udp_payload: 65527,
        dcid_len: 0,
        ipv6,
    }
}
