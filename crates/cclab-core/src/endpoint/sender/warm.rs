//! Prefetching a sender's out-of-line state ahead of a datagram's arrival.

use super::Sender;
use crate::prefetch::prefetch_bytes;

impl Sender {
    /// Starts loading what an ACK or a send reads outside the sender's own struct: the controller,
    /// the ends of the sent-packet record, the stream's ranges, the per-ACK buffer. With thousands
    /// of flows each is a cache miss of its own, one after the other, when the datagram arrives; a driver that knows which flow comes next calls this ahead of it (on a
    /// sender whose struct it has already warmed, or this first read misses).
    pub fn prefetch_state(&self) {
        let cc = &*self.cc;
        prefetch_bytes(cc as *const _ as *const () as usize, size_of_val(cc).min(384));
        self.sent.prefetch();
        self.stream.prefetch();
        prefetch_bytes(self.acked_buf.as_ptr() as usize, 64);
        self.peer_received.prefetch();
    }
}
