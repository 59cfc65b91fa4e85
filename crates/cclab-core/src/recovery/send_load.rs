//! The two fields of a packet's delivery-rate snapshot that only a full rate sample reads
//! (draft-cheng-iccrg-delivery-rate-estimation §3.2 `P.lost`, and the bytes in flight before it that
//! make draft-ietf-ccwg-bbr's `P.tx_in_flight`), kept beside the sent record rather than in it.
//!
//! A controller that reads no rate sample (`CongestionController::reads_rate_samples`: NewReno, CUBIC,
//! DCTCP, Prague) never needs them, and every ACK and the metrics' delivery rate read only the rest of
//! the snapshot, so the sent record holds that rest in 48 bytes (`SentPacket`) and these 16 are written
//! and kept only for a controller that reads samples: at 100,000 packets of BDP the record's ring is a
//! quarter smaller, in lines an ACK reads and pages a send faults in.

/// `C.lost` and the bytes in flight just before a packet was sent (its snapshot's `lost` and
/// `in_flight_before`, [`crate::recovery::delivery_rate::PacketDelivery`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendLoad {
    /// Bytes declared lost before the packet was sent.
    pub lost: u64,
    /// Bytes in flight just before it was sent.
    pub in_flight_before: u64,
}

/// The `SendLoad` of each outstanding packet, found by packet number: packet `pn` in slot `pn & (len - 1)`,
/// the length a power of two larger than the packets outstanding, so that no outstanding packet's slot is
/// written again before it is acknowledged or lost. Empty (no allocation) until the first `record`.
#[derive(Clone, Debug, Default)]
pub struct SendLoads(Vec<SendLoad>);

impl SendLoads {
    /// Packet `pn`, sent while `first_pn` was the oldest packet that may still be outstanding, left with `load`.
    #[inline]
    pub fn record(&mut self, pn: u64, first_pn: u64, load: SendLoad) {
        debug_assert!(first_pn <= pn);
        if pn - first_pn >= self.0.len() as u64 {
            self.grow(pn, first_pn);
        }
        let mask = self.0.len() - 1;
        self.0[pn as usize & mask] = load;
    }

    /// The load outstanding packet `pn` was recorded with (one recorded since, and not yet acknowledged or
    /// lost when a packet newer than it was recorded: its slot is kept until a newer packet takes it).
    #[inline]
    pub fn get(&self, pn: u64) -> SendLoad {
        let mask = self.0.len().wrapping_sub(1);
        debug_assert!(!self.0.is_empty(), "packet {pn} recorded");
        self.0.get(pn as usize & mask).copied().unwrap_or_default()
    }

    /// Doubles the slots (16 at first) until packets `first_pn..=pn` fit, moving those before `pn` to their
    /// slots in the new length.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, pn: u64, first_pn: u64) {
        let mut len = self.0.len().max(16);
        while pn - first_pn >= len as u64 {
            len *= 2;
        }
        let mut ring = vec![SendLoad::default(); len];
        if !self.0.is_empty() {
            let (old, new) = (self.0.len() - 1, len - 1);
            for p in first_pn..pn {
                ring[p as usize & new] = self.0[p as usize & old];
            }
        }
        self.0 = ring;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(pn: u64) -> SendLoad {
        SendLoad {
            lost: 3 * pn,
            in_flight_before: 1000 * pn + 7,
        }
    }

    #[test]
    fn send_loads_keep_every_outstanding_packet_across_growth() {
        // Packets 0-99 sent while the oldest outstanding one moves up by one every third send: the ring
        // grows to hold the outstanding ones (up to ~67) and every one of them reads back its own load.
        let mut s = SendLoads::default();
        let mut first = 0;
        for pn in 0..100 {
            if pn % 3 == 2 {
                first += 1;
            }
            s.record(pn, first, load(pn));
            assert!((first..=pn).all(|p| s.get(p) == load(p)), "packet {pn}");
        }
        assert_eq!(s.0.len(), 128);
        // A window of 16 outstanding packets keeps 16 slots however far the numbers go.
        let mut s = SendLoads::default();
        for pn in 0..1000 {
            s.record(pn, pn.saturating_sub(15), load(pn));
            assert!((pn.saturating_sub(15)..=pn).all(|p| s.get(p) == load(p)));
        }
        assert_eq!(s.0.len(), 16);
    }
}
