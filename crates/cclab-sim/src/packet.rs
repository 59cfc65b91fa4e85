//! A datagram inside the simulated network: the endpoint's datagram plus where it is going.

use cclab_core::prefetch::prefetch;
use cclab_core::time::Time;
use cclab_core::wire::packet::{Datagram, Ecn, FlowId, Packet};

/// Route index of cross-traffic packets: they leave the network at the end of their link.
pub const CROSS_TRAFFIC: u16 = u16::MAX;

/// A datagram on its way through links; only the simulator sees this wrapper.
///
/// It holds the endpoint's [`Datagram`] taken apart ([`InFlight::new`], [`InFlight::into_datagram`]):
/// nested, the datagram's own alignment padding and this wrapper's fields would not share bytes,
/// and every hop moves the whole struct (see the size assertion below). `repr(C)`: the datagram's
/// packet comes first, where `Datagram` (also `repr(C)`) has it, so taking it out copies whole
/// 16-byte pieces. The flow is not stored: it is the route's ([`InFlight::flow`]), which leaves 64
/// bytes, and aligned to 64 each packet in a link's ring is one cache line. At 72 bytes eight
/// packets spread over nine lines and a departure's read of a packet's size and entry time crossed
/// a line for most of them: with 1,000 flows a packet's slot is cold each of the three times a link
/// touches it (entry, departure, arrival), so every line counts (docs/performance.md).
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct InFlight {
    /// What the datagram carries.
    pub packet: Packet,
    /// IP-layer size in bytes (what links serialise): [`InFlight::size`].
    size: u32,
    /// ECN codepoint in the IP header (a queue may set CE).
    pub ecn: Ecn,
    /// Index in the route of the link it is on.
    pub hop: u8,
    /// Route it follows (index into the network's routes), or [`CROSS_TRAFFIC`]: flow `f` sends
    /// on route `2f` and acknowledges on `2f + 1`.
    pub route: u16,
    /// When it entered the current link's queue (CoDel's sojourn time); once the link hands it
    /// out, when it reached the link's far end (the real-time emulator's release time).
    pub enqueued: Time,
}

impl InFlight {
    /// `dgram` entering route `route` at hop `hop` at `now`; its flow must be the route's
    /// ([`InFlight::flow`]: route `2f` or `2f + 1` for flow `f`, any for cross traffic).
    #[inline(always)]
    pub fn new(dgram: Datagram, route: u16, hop: u8, now: Time) -> InFlight {
        let Datagram {
            flow,
            size,
            ecn,
            packet,
        } = dgram;
        debug_assert!(
            route == CROSS_TRAFFIC || flow.0 == route as u32 / 2,
            "flow {} on route {route}: flow f's routes are 2f and 2f + 1",
            flow.0
        );
        InFlight {
            packet,
            size,
            ecn,
            route,
            hop,
            enqueued: now,
        }
    }

    /// The flow it belongs to: its route's (cross traffic: `u32::MAX`).
    #[inline(always)]
    pub fn flow(&self) -> FlowId {
        if self.route == CROSS_TRAFFIC {
            FlowId(u32::MAX)
        } else {
            FlowId(self.route as u32 / 2)
        }
    }

    /// The datagram, as the endpoint at the far end receives it.
    #[inline(always)]
    pub fn into_datagram(self) -> Datagram {
        Datagram {
            flow: self.flow(),
            size: self.size,
            ecn: self.ecn,
            packet: self.packet,
        }
    }

    /// IP-layer size in bytes.
    #[inline(always)]
    pub fn size(&self) -> u64 {
        self.size as u64
    }

    /// A pure acknowledgement: carries an ACK (or TFRC feedback) and no data.
    pub fn is_pure_ack(&self) -> bool {
        let p = &self.packet;
        p.data.is_none() && (p.ack.is_some() || p.tfrc().is_some())
    }

    /// Gives the packet the bytes a real-time driver moves through the model (they ride in the
    /// packet's rare-frames box, out of the struct every hop moves). A packet the model drops
    /// takes its bytes with it; a duplicate copies them.
    pub fn attach_bytes(&mut self, bytes: Vec<u8>) {
        self.packet.rare_mut().bytes = bytes;
    }

    /// Takes the bytes [`InFlight::attach_bytes`] gave the packet (empty if it has none).
    pub fn take_bytes(&mut self) -> Vec<u8> {
        self.packet
            .rare
            .as_deref_mut()
            .map_or_else(Vec::new, |r| std::mem::take(&mut r.bytes))
    }

    /// Starts loading the boxed ACK frame this packet carries into the cache, ahead of its use.
    ///
    /// At a large bandwidth-delay product the frame was written by the receiver a whole one-way delay
    /// earlier, among ~100,000 others, and its heap address follows no pattern a hardware prefetcher
    /// can guess: reading it was the sender's costliest cache miss (~2 per data packet at 100,000
    /// packets of BDP). The propagation FIFO calls this on the packet behind the one it hands out.
    #[inline]
    pub fn prefetch_ack(&self) {
        if let Some(ack) = self.packet.ack.as_deref() {
            prefetch(ack);
        }
    }
}

// Every queue, link and socket buffer moves this by value: within 128 bytes the compiler moves it with
// inline vector stores; above, each move was a memcpy call (a tenth of the CPU time at 10 Gbit/s). Below
// that, time per packet still follows the size: the real-time bytes' 8 bytes out of it (into the packet's
// rare-frames box) took 3 % off a 10 Gbit/s transfer, and 4 % at 100,000 packets in flight; 104 → 72 bytes
// took 5 % and 12 %. A 64-byte trial (one line, not aligned to one) measured within noise of 72 on one flow;
// 64 bytes aligned to a line is what a many-flow ring needs (see `InFlight`).
const _: () = assert!(size_of::<InFlight>() == 64 && align_of::<InFlight>() == 64);

#[cfg(test)]
mod tests {
    use super::*;
    use cclab_core::wire::packet::{Ecn, FlowId, Packet};

    fn packet() -> InFlight {
        InFlight::new(
            Datagram {
                flow: FlowId(0),
                size: 1200,
                ecn: Ecn::NotEct,
                packet: Packet::default(),
            },
            0,
            0,
            Time::ZERO,
        )
    }

    #[test]
    fn real_time_bytes_ride_with_the_packet_and_its_duplicate() {
        let mut p = packet();
        assert!(
            p.take_bytes().is_empty() && p.packet.rare.is_none(),
            "a simulated packet has no bytes"
        );
        p.attach_bytes(vec![1, 2, 3]);
        let mut dup = p.clone();
        assert_eq!(p.take_bytes(), [1, 2, 3]);
        assert_eq!(dup.take_bytes(), [1, 2, 3]);
        assert!(p.take_bytes().is_empty(), "taken once");
    }

    #[test]
    fn flow_rides_in_the_route_and_reaches_the_far_end() {
        // Flow 7 sends on route 14 and acknowledges on 15; cross traffic keeps the flow it had.
        let dgram = |flow| Datagram {
            flow: FlowId(flow),
            size: 1200,
            ecn: Ecn::NotEct,
            packet: Packet::default(),
        };
        for route in [14, 15] {
            let p = InFlight::new(dgram(7), route, 0, Time::ZERO);
            assert_eq!(p.flow(), FlowId(7));
            assert_eq!(p.into_datagram().flow, FlowId(7));
        }
        let cross = InFlight::new(dgram(u32::MAX), CROSS_TRAFFIC, 0, Time::ZERO);
        assert_eq!(cross.flow(), FlowId(u32::MAX));
    }
}
