//! The bound on the packets a network holds (`scenario.max_packets_in_network`).
//!
//! A path that nothing limits (links of rate `"unlimited"` between hosts whose CPU costs nothing,
//! or a queue millions of packets deep) lets a window double every round trip, and the packets in
//! flight take the simulator's memory with them (~150–300 B each: the link's ring slot and the
//! sender's record, each in a ring up to twice as large) until the process is killed. The bound
//! stops such a run with an error while the memory is still there.

use crate::network::Network;
use cclab_core::time::Time;

/// Events between two counts at least: the run's own check of its cancellation hooks.
const MIN_EVENTS_BETWEEN: u64 = 65_536;
/// Events per link and host between two counts: a count reads every link and host (cold with
/// thousands of flows), so this keeps it below one such read per 64 events.
const EVENTS_PER_ITEM: u64 = 64;

/// Counts the network's packets now and then against the bound.
pub(crate) struct PacketBound {
    max: u64,
    next_count: u64,
    /// Packets held and when, once the bound was passed.
    pub(crate) exceeded: Option<(u64, Time)>,
}

impl PacketBound {
    pub(crate) fn new(max: u64) -> PacketBound {
        PacketBound {
            max,
            next_count: 0,
            exceeded: None,
        }
    }

    /// False once `net` holds more than the bound. The count happens at event counts fixed by the
    /// scenario, so whether and where a run stops is as deterministic as the run.
    pub(crate) fn holds(&mut self, net: &Network) -> bool {
        if net.events() < self.next_count {
            return true;
        }
        let items = (net.links().len() + net.hosts().len()) as u64;
        self.next_count = net.events() + (EVENTS_PER_ITEM * items).max(MIN_EVENTS_BETWEEN);
        let held = net.packets_held();
        if held > self.max {
            self.exceeded = Some((held, net.now()));
            return false;
        }
        true
    }
}
