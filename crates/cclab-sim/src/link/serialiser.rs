//! The link's serialiser: its rate, its per-packet cost and when it is next free.
//!
//! A struct of its own, apart from the queue and the counters, so that a departure from a shared ring
//! borrows the ring once and the serialiser beside it, rather than reaching both through the whole
//! link at every step (`Link::depart_in_ring`).

use cclab_core::time::{transmission_time, Dur, Time};

/// One packet at a time, each for `max(size·8/rate, per_packet)`.
#[derive(Debug)]
pub(super) struct Serialiser {
    /// Bits/s; `None` for unlimited.
    pub(super) rate_bps: Option<u64>,
    /// Minimum serialisation time per packet (per-packet cost, 1/max_pps).
    pub(super) per_packet: Dur,
    /// When the serialiser is free.
    pub(super) busy_until: Time,
    /// Last (size, serialisation time) computed.
    last_service: (u64, Dur),
}

impl Serialiser {
    /// An idle serialiser.
    pub(super) fn new(rate_bps: Option<u64>, per_packet: Dur) -> Serialiser {
        Serialiser {
            rate_bps,
            per_packet,
            busy_until: Time::ZERO,
            last_service: (u64::MAX, Dur::ZERO),
        }
    }

    /// Serialisation time of a packet of `size` bytes (the last size's answer is cached: most
    /// packets have the same size, and the exact division is 128-bit).
    #[inline(always)]
    fn service_time(&mut self, size: u64) -> Dur {
        if size != self.last_service.0 {
            let t = self
                .rate_bps
                .map_or(Dur::ZERO, |r| transmission_time(size, r))
                .max(self.per_packet);
            self.last_service = (size, t);
        }
        self.last_service.1
    }

    /// Takes a packet of `size` bytes from `t` on, busy until its last bit is out; returns the time it
    /// takes. A plain addition, not `Time`'s saturating one (a compare and a move more, on every
    /// packet): `t` is at most the run's end, which a scenario keeps at or below 2^63 ns
    /// (`scenario.duration`), and `d` is at most a 65,535-byte packet at 1 bit/s, below 2^50 ns.
    #[inline(always)]
    pub(super) fn start(&mut self, t: Time, size: u64) -> Dur {
        let d = self.service_time(size);
        self.busy_until = Time(t.0 + d.0);
        d
    }
}
