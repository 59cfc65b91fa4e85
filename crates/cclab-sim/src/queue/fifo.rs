//! The packet FIFO every queue discipline stores its packets in, with its byte count.

use crate::packet::InFlight;
use std::collections::VecDeque;

/// Packets in arrival order and their total size.
#[derive(Debug, Default)]
pub(super) struct Fifo {
    q: VecDeque<InFlight>,
    bytes: u64,
}

impl Fifo {
    /// Appends a packet.
    pub(super) fn push(&mut self, p: InFlight) {
        self.bytes += p.size();
        self.q.push_back(p);
    }
    /// Removes the oldest packet.
    pub(super) fn pop(&mut self) -> Option<InFlight> {
        let p = self.q.pop_front()?;
        self.bytes -= p.size();
        Some(p)
    }
    /// The oldest packet, if any.
    pub(super) fn front(&self) -> Option<&InFlight> {
        self.q.front()
    }
    /// Bytes queued.
    pub(super) fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Packets queued.
    pub(super) fn len(&self) -> usize {
        self.q.len()
    }
    /// No packet queued.
    pub(super) fn is_empty(&self) -> bool {
        self.q.is_empty()
    }
}
