//! Proportional Rate Reduction (RFC 6937 §3, PRR-SSRB) as Linux runs it (`tcp_init_cwnd_reduction`,
//! `tcp_cwnd_reduction` and `tcp_end_cwnd_reduction` in `net/ipv4/tcp_input.c`): in recovery the
//! window comes down to the controller's ssthresh with the data delivered, not at once. While more
//! than ssthresh is in flight each ACK lets the sender send ssthresh/RecoverFS of what was delivered
//! since recovery began; once less is in flight it may catch up, by at most one segment more than
//! the ACK delivered (the slow-start reduction bound). Recovery ends with about ssthresh in flight.
//!
//! Bytes throughout, rounded up to whole segments where Linux counts packets. Each ACK sets the
//! window to the bytes in flight plus `sndcnt` (Linux: `cwnd = tcp_packets_in_flight + sndcnt`);
//! sends use the room up until the next ACK.

/// One recovery's PRR state.
#[derive(Clone, Debug, PartialEq)]
pub struct Prr {
    /// The controller's window after its reduction, bytes (RFC 6937 `ssthresh`).
    ssthresh: u64,
    /// The window when recovery began, bytes (Linux `prior_cwnd`; RFC 6937's RecoverFS is the
    /// flight size then, the same for a window-limited sender).
    recover_fs: u64,
    /// Bytes newly acknowledged, cumulatively or selectively, since recovery began (`prr_delivered`).
    delivered: u64,
    /// Bytes sent since recovery began (`prr_out`).
    out: u64,
    /// The window the last ACK set, bytes.
    window: u64,
    /// Bytes of a full-sized segment.
    mss: u64,
}

impl Prr {
    /// Recovery begins with a window of `prior_window` bytes, toward the controller's `ssthresh`,
    /// for segments of `mss` bytes. The window stays at `prior_window` until the first ACK
    /// (`tcp_init_cwnd_reduction` sets no cwnd).
    pub fn new(prior_window: u64, ssthresh: u64, mss: u64) -> Prr {
        let mss = mss.max(1);
        Prr {
            ssthresh,
            recover_fs: prior_window.max(mss),
            delivered: 0,
            out: 0,
            window: prior_window,
            mss,
        }
    }

    /// The window, bytes.
    pub fn window(&self) -> u64 {
        self.window
    }

    /// The target the window comes down to, bytes.
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }

    /// An ACK newly acknowledged `delivered` bytes (RFC 6937 DeliveredData) and left `pipe` bytes
    /// in flight; `safe` when it advanced the cumulative acknowledgement and declared nothing lost.
    /// Returns the window it sets. An ACK that delivered nothing changes nothing (Linux returns
    /// early when `newly_acked_sacked` is 0).
    pub fn on_ack(&mut self, delivered: u64, pipe: u64, safe: bool) -> u64 {
        if delivered == 0 {
            return self.window;
        }
        self.delivered += delivered;
        let sndcnt = if pipe > self.ssthresh {
            // RFC 6937 §3: sndcnt = CEIL(prr_delivered * ssthresh / RecoverFS) - prr_out, the
            // quotient in whole segments as Linux counts it.
            let per_segment = self.recover_fs as u128 * self.mss as u128;
            let segments = (self.delivered as u128 * self.ssthresh as u128).div_ceil(per_segment);
            let due = u64::try_from(segments * self.mss as u128).unwrap_or(u64::MAX);
            due.saturating_sub(self.out)
        } else {
            // RFC 6937 §3 PRR-SSRB: limit = MAX(prr_delivered - prr_out, DeliveredData) + MSS and
            // sndcnt = MIN(ssthresh - pipe, limit). Linux (and RFC 9937 §7, its "safe ACK") adds
            // the MSS only when the ACK advanced the cumulative point and revealed no new loss.
            let bonus = if safe { self.mss } else { 0 };
            let limit = self.delivered.saturating_sub(self.out).max(delivered) + bonus;
            limit.min(self.ssthresh - pipe)
        };
        // Linux: at least one segment before anything was sent, to force the fast retransmit.
        let sndcnt = if self.out == 0 { sndcnt.max(self.mss) } else { sndcnt };
        self.window = pipe.saturating_add(sndcnt);
        self.window
    }

    /// `bytes` were sent (new data or a retransmission).
    pub fn on_sent(&mut self, bytes: u64) {
        self.out += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    /// Replays recovery ACK by ACK: each delivers one segment and, with `safe(i)`, advances the
    /// cumulative point; after each the sender sends every whole segment the window has room for.
    /// Returns the window after each ACK and the segments sent on it, in segments.
    fn replay(prr: &mut Prr, mut pipe: u64, acks: usize, safe: impl Fn(usize) -> bool) -> Vec<(u64, u64)> {
        (0..acks)
            .map(|i| {
                pipe -= MSS;
                let window = prr.on_ack(MSS, pipe, safe(i));
                let sent = window.saturating_sub(pipe) / MSS;
                prr.on_sent(sent * MSS);
                pipe += sent * MSS;
                (window / MSS, sent)
            })
            .collect()
    }

    #[test]
    fn prr_single_loss_sends_every_other_ack_down_to_ssthresh() {
        // RFC 6937 §3.1's first example, repeated in RFC 9937 §8: Reno, cwnd = FlightSize = 20
        // segments, one lost, ssthresh 10; limited transmit sent 2 on the first two duplicate ACKs,
        // so the ACK that starts recovery (#3) leaves 18 in flight. RFC 9937's cwnd row from ACK #3
        // on: 19 18 18 17 17 16 16 15 15 14 14 13 13 12 12 11 11 10 10. Linux differs at ACK #19
        // alone: it leaves 10 in flight, not more than ssthresh, so Linux (`delta = ssthresh -
        // tcp_packets_in_flight` is not negative) bounds the send by ssthresh - pipe = 0 where the
        // table still sends by the proportion (its pipe is the flight before the ACK); the segment
        // goes on ACK #20 instead. ACKs #20 and #21 SACK limited-transmit segments.
        let mut prr = Prr::new(20 * MSS, 10 * MSS, MSS);
        let rows = replay(&mut prr, 19 * MSS, 19, |_| false);
        let windows: Vec<u64> = rows.iter().map(|r| r.0).collect();
        assert_eq!(
            windows,
            [19, 18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11, 10, 10, 10]
        );
        // The first ACK sends the retransmission, then one segment every other ACK: 10 in all,
        // ssthresh's worth, where RFC 6675 sends nothing for 10 ACKs and then one per ACK.
        let sent: Vec<u64> = rows.iter().map(|r| r.1).collect();
        assert_eq!(sent, [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1]);
        assert_eq!(rows.iter().map(|r| r.1).sum::<u64>(), 10);
    }

    #[test]
    fn prr_after_a_burst_of_losses_catches_up_one_segment_faster_than_delivery() {
        // The setting of RFC 6937 §3.1's second example: 15 of the 20 segments lost, ssthresh 10;
        // the ACK that starts recovery leaves 4 in flight. PRR-SSRB sends one segment more than each
        // cumulative ACK delivers (slow start: in flight after each ACK's sends 6, 7, 8, 9, 10)
        // until ssthresh is in flight, then one per ACK.
        let mut prr = Prr::new(20 * MSS, 10 * MSS, MSS);
        let rows = replay(&mut prr, 5 * MSS, 8, |_| true);
        let sent: Vec<u64> = rows.iter().map(|r| r.1).collect();
        assert_eq!(sent, [2, 2, 2, 2, 2, 1, 1, 1]);
        assert_eq!(rows.last().map(|r| r.0), Some(10));
        // Without the cumulative point advancing (SACKs only), no catching up beyond delivery.
        let mut crb = Prr::new(20 * MSS, 10 * MSS, MSS);
        let sent: Vec<u64> = replay(&mut crb, 5 * MSS, 4, |_| false).iter().map(|r| r.1).collect();
        assert_eq!(sent, [1, 1, 1, 1]);
    }

    #[test]
    fn prr_counts_whole_segments_and_holds_without_deliveries() {
        let mut prr = Prr::new(20 * MSS, 10 * MSS, MSS);
        // An ACK that delivered nothing leaves the window where recovery found it.
        assert_eq!(prr.on_ack(0, 19 * MSS, false), 20 * MSS);
        // Half a segment's due (1 × 10/20) rounds up to one whole, as Linux counts packets.
        assert_eq!(prr.on_ack(MSS, 18 * MSS, false), 19 * MSS);
    }
}
