//! Receiver-side loss detection (RFC 5348 §5.1) and the loss-interval history that gives the
//! loss event rate `p` (RFC 5348 §5.2–5.4, <https://www.rfc-editor.org/rfc/rfc5348#section-5>),
//! with loss events told apart by CCVal as CCID-3 does (RFC 4342 §10.2).

use super::window_counter::ccval_ahead;

/// A packet is lost once this many packets with higher sequence numbers arrived (RFC 5348 §5.1).
pub const NDUPACK: u32 = 3;
/// Weights of the n = 8 most recent loss intervals, newest first (RFC 5348 §5.4):
/// `w_i = 1` for `i < n/2`, `w_i = 2(n - i)/(n + 2)` after.
pub const WEIGHTS: [f64; 8] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];
/// Sequence numbers tracked behind the highest one received.
const WINDOW: u64 = 128;

/// Which recent sequence numbers arrived. Classifies each sequence number once, in order: lost
/// when `NDUPACK` later packets have arrived without it. O(1) amortised per sequence number.
#[derive(Clone, Debug)]
pub struct ReceiveRecord {
    highest: Option<u64>,
    /// Bit `i` set: `highest - i` arrived.
    bits: u128,
    /// CCVal by `seq % WINDOW`.
    ccvals: [u8; WINDOW as usize],
    /// Lowest sequence number not yet classified.
    next_check: u64,
    /// CCVal of the last received packet below `next_check`.
    prev_ccval: u8,
}

impl Default for ReceiveRecord {
    fn default() -> Self {
        ReceiveRecord {
            highest: None,
            bits: 0,
            ccvals: [0; WINDOW as usize],
            next_check: 0,
            prev_ccval: 0,
        }
    }
}

impl ReceiveRecord {
    /// Highest sequence number received.
    pub fn highest(&self) -> Option<u64> {
        self.highest
    }

    /// Records packet `seq` carrying `ccval` and calls `on_loss(lost_seq, ccval_before)` for each
    /// packet newly declared lost, in order, where `ccval_before` is the CCVal of the last packet
    /// received before it. Returns false for duplicates and for packets already declared lost.
    pub fn on_packet(&mut self, seq: u64, ccval: u8, mut on_loss: impl FnMut(u64, u8)) -> bool {
        let Some(high) = self.highest else {
            // Nothing before the first arrival is known to exist.
            self.highest = Some(seq);
            self.bits = 1;
            self.ccvals[(seq % WINDOW) as usize] = ccval;
            self.next_check = seq + 1;
            self.prev_ccval = ccval;
            return true;
        };
        if seq > high {
            // Numbers about to slide out of the window are classified with what is known.
            while self.next_check + WINDOW <= seq {
                self.classify(high, &mut on_loss);
            }
            let shift = seq - high;
            self.bits = if shift >= WINDOW { 1 } else { (self.bits << shift) | 1 };
            self.highest = Some(seq);
        } else {
            if seq < self.next_check {
                return false;
            }
            let bit = 1u128 << (high - seq);
            if self.bits & bit != 0 {
                return false;
            }
            self.bits |= bit;
        }
        self.ccvals[(seq % WINDOW) as usize] = ccval;
        let high = self.highest.unwrap_or(seq);
        while self.next_check < high {
            let off = high - self.next_check;
            // RFC 5348 §5.1: lost once NDUPACK packets above it arrived.
            if (self.bits & ((1u128 << off) - 1)).count_ones() < NDUPACK {
                break;
            }
            self.classify(high, &mut on_loss);
        }
        true
    }

    fn classify(&mut self, high: u64, on_loss: &mut impl FnMut(u64, u8)) {
        let seq = self.next_check;
        let received = seq <= high && high - seq < WINDOW && (self.bits >> (high - seq)) & 1 == 1;
        if received {
            self.prev_ccval = self.ccvals[(seq % WINDOW) as usize];
        } else {
            on_loss(seq, self.prev_ccval);
        }
        self.next_check += 1;
    }
}

/// The open loss interval, from the first lost packet of the latest loss event.
#[derive(Clone, Copy, Debug)]
struct OpenInterval {
    start: u64,
    ccval: u8,
    len: u64,
    /// A later packet carried a CCVal more than 4 ahead: more than an RTT has passed, so the next
    /// loss opens a new event even if the counter wrapped (RFC 4342 §10.2, as Linux does).
    past_rtt: bool,
}

/// The loss-interval history: the open interval `I_0` and up to 8 closed ones.
#[derive(Clone, Debug, Default)]
pub struct LossIntervals {
    /// Closed intervals in packets, newest first.
    closed: [u64; 8],
    n_closed: usize,
    open: Option<OpenInterval>,
}

impl LossIntervals {
    /// Number of loss events so far that are still in the history window.
    pub fn closed_intervals(&self) -> usize {
        self.n_closed
    }

    fn push_closed(&mut self, len: u64) {
        self.closed.copy_within(0..7, 1);
        self.closed[0] = len;
        self.n_closed = (self.n_closed + 1).min(8);
    }

    /// Packet `seq` was lost and the packet received before it carried `ccval`. Returns true if
    /// the loss starts a new loss event: the first one, or one more than an RTT (4 CCVal steps)
    /// after the start of the current event (RFC 5348 §5.2, RFC 4342 §10.2). Before the first
    /// event the history holds nothing, so `first_interval` supplies the synthetic interval of
    /// RFC 5348 §6.3.1, in packets.
    pub fn on_loss(&mut self, seq: u64, ccval: u8, first_interval: impl FnOnce() -> u64) -> bool {
        match self.open {
            None => self.push_closed(first_interval().max(1)),
            Some(o) => {
                if seq <= o.start || !(o.past_rtt || ccval_ahead(ccval, o.ccval) > 4) {
                    return false;
                }
                // RFC 5348 §5.3: an interval runs from one event's first loss to the next one's.
                self.push_closed(seq - o.start);
            }
        }
        self.open = Some(OpenInterval {
            start: seq,
            ccval,
            len: 1,
            past_rtt: false,
        });
        true
    }

    /// Packet `seq` carrying `ccval` arrived: the open interval extends to it.
    pub fn on_packet(&mut self, seq: u64, ccval: u8) {
        if let Some(o) = &mut self.open {
            if seq > o.start {
                o.len = o.len.max(seq - o.start + 1);
                o.past_rtt |= ccval_ahead(ccval, o.ccval) > 4;
            }
        }
    }

    /// Average loss interval `I_mean` in packets (RFC 5348 §5.4), `None` before any loss:
    /// `max(I_tot0, I_tot1) / W_tot`, where `I_tot0` weights `I_0..I_{k-1}` and `I_tot1` weights
    /// `I_1..I_k`, so the open interval counts only when it raises the mean.
    pub fn i_mean(&self) -> Option<f64> {
        let open = self.open?;
        let k = self.n_closed;
        let (mut tot0, mut tot1, mut w_tot) = (0.0, 0.0, 0.0);
        for (i, &w) in WEIGHTS.iter().enumerate().take(k) {
            let newer = if i == 0 { open.len } else { self.closed[i - 1] };
            tot0 += newer as f64 * w;
            tot1 += self.closed[i] as f64 * w;
            w_tot += w;
        }
        Some(f64::max(tot0, tot1) / w_tot)
    }

    /// Loss event rate `p = 1 / I_mean` (RFC 5348 §5.4), 0 before any loss.
    pub fn p(&self) -> f64 {
        self.i_mean().map_or(0.0, |i| 1.0 / i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(rec: &mut ReceiveRecord, seqs: &[u64]) -> Vec<(u64, u8)> {
        let mut lost = Vec::new();
        for &s in seqs {
            rec.on_packet(s, (s % 16) as u8, |l, c| lost.push((l, c)));
        }
        lost
    }

    #[test]
    fn loss_detection_waits_for_three_later_packets() {
        let mut rec = ReceiveRecord::default();
        assert!(feed(&mut rec, &[0, 1, 2, 4, 5]).is_empty());
        // The third packet above 3 arrives: 3 is lost, and 2 (CCVal 2) was received before it.
        assert_eq!(feed(&mut rec, &[6]), vec![(3, 2)]);
        // Two missing in a row are both declared when three packets above both arrived.
        assert!(feed(&mut rec, &[9, 10]).is_empty());
        assert_eq!(feed(&mut rec, &[11]), vec![(7, 6), (8, 6)]);
    }

    #[test]
    fn loss_detection_ignores_reordering_and_duplicates() {
        let mut rec = ReceiveRecord::default();
        assert!(feed(&mut rec, &[0, 2, 3, 1, 4, 5, 5]).is_empty());
        // A packet already declared lost does not count when it finally arrives.
        feed(&mut rec, &[7, 8, 9]);
        assert!(!rec.on_packet(6, 6, |_, _| panic!("no second loss")));
    }

    #[test]
    fn loss_detection_covers_gaps_wider_than_the_window() {
        let mut rec = ReceiveRecord::default();
        feed(&mut rec, &[0]);
        let lost = feed(&mut rec, &[1000, 1001, 1002]);
        assert_eq!(lost.len(), 999);
        assert_eq!((lost[0], lost[998]), ((1, 0), (999, 0)));
    }

    #[test]
    fn loss_events_group_losses_within_four_ccval_steps() {
        let mut h = LossIntervals::default();
        assert!(h.on_loss(10, 3, || 40));
        // CCVal 3 -> 7 is 4 steps: same event. 3 -> 8 is 5 steps: a new event.
        assert!(!h.on_loss(12, 7, || unreachable!()));
        assert!(h.on_loss(20, 8, || unreachable!()));
        assert_eq!(h.closed_intervals(), 2);
        // After a packet more than 4 steps ahead, even a wrapped CCVal starts a new event.
        h.on_packet(25, 13);
        assert!(h.on_loss(30, 9, || unreachable!()));
    }

    #[test]
    fn loss_interval_weights_and_open_interval() {
        let mut h = LossIntervals::default();
        assert_eq!(h.p(), 0.0);
        // First event: synthetic interval 40 (§6.3.1); open interval 10..=29 = 20 packets.
        h.on_loss(10, 0, || 40);
        h.on_packet(29, 1);
        assert_eq!(h.i_mean(), Some(40.0));
        // Events at 30, 60, 100, 150, 210, 280, 360, 450, 550 close intervals 20, 30, ..., 100;
        // the 8 newest are kept: 100, 90, 80, 70, 60, 50, 40, 30.
        let mut cc = 0u8;
        for &s in &[30, 60, 100, 150, 210, 280, 360, 450, 550] {
            cc = (cc + 5) % 16;
            assert!(h.on_loss(s, cc, || unreachable!()));
        }
        h.on_packet(559, cc);
        // I_0 = 10. I_tot0 = 10+100+90+80 + 70·.8+60·.6+50·.4+40·.2 = 400;
        // I_tot1 = 100+90+80+70 + 60·.8+50·.6+40·.4+30·.2 = 440; W_tot = 6.
        assert!((h.i_mean().unwrap() - 440.0 / 6.0).abs() < 1e-9);
        assert!((h.p() - 6.0 / 440.0).abs() < 1e-12);
        // Once I_0 = 400 it raises the mean: I_tot0 = 400 + 270 + 120 = 790.
        h.on_packet(949, cc);
        assert!((h.i_mean().unwrap() - 790.0 / 6.0).abs() < 1e-9);
    }
}
