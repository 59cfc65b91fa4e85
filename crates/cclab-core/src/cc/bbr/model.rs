//! The BBR path model, independent of the v1 state machine so BBRv3 can reuse it: packet-timed
//! rounds, the bottleneck-bandwidth max filter, the round-trip propagation time and the BDP.
//! Section numbers refer to draft-cardwell-iccrg-bbr-congestion-control-00
//! (<https://datatracker.ietf.org/doc/html/draft-cardwell-iccrg-bbr-congestion-control-00>).

use crate::cc::RateSample;
use crate::recovery::windowed_filter::MaxFilter;
use crate::time::{Dur, Time};

/// Packet-timed round trips (§4.1.1.3): a round ends when a packet sent after the previous
/// round ended is delivered.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rounds {
    count: u64,
    /// `C.delivered` at the end of the current round.
    next_round_delivered: u64,
    /// This ACK started a new round.
    start: bool,
}

impl Rounds {
    /// `BBRUpdateRound`: a sample whose packet was sent with `prior_delivered` bytes delivered;
    /// `delivered` is `C.delivered` after this ACK.
    pub(crate) fn on_sample(&mut self, prior_delivered: u64, delivered: u64) {
        self.start = prior_delivered >= self.next_round_delivered;
        if self.start {
            self.next_round_delivered = delivered;
            self.count += 1;
        }
    }
    /// An ACK without a rate sample starts no round.
    pub(crate) fn no_sample(&mut self) {
        self.start = false;
    }
    /// Starts a round now: it ends when a packet sent after this point is delivered (entering
    /// loss recovery or ProbeRTT's low-inflight phase, Linux `tcp_bbr.c`, §4.3.5).
    pub(crate) fn restart(&mut self, delivered: u64) {
        self.next_round_delivered = delivered;
    }
    /// Rounds completed so far.
    pub(crate) fn count(&self) -> u64 {
        self.count
    }
    /// The last ACK started a round.
    pub(crate) fn start(&self) -> bool {
        self.start
    }
}

/// RTprop (§4.1.2.3): the minimum RTT, replaced by any sample once it is `window` old. This is
/// the draft's combined approach (one stamped sample whose expiry also schedules ProbeRTT,
/// §4.3.5, as Linux `bbr_update_min_rtt`), not a three-sample windowed filter: a filter would
/// promote older, higher samples when the minimum expires instead of probing for a new one.
#[derive(Clone, Debug)]
pub(crate) struct RtProp {
    value: Option<Dur>,
    stamp: Time,
    expired: bool,
    window: Dur,
    /// Only a strictly lower sample refreshes the estimate (draft-ietf-ccwg-bbr §5.3.4
    /// `UpdateMinRTT`, Linux v3 `bbr_update_min_rtt`); v1's draft-00 lets a matching one do so.
    lower_only: bool,
}

impl RtProp {
    /// No estimate yet (`RTprop = ∞`), stamped at `now`.
    pub(crate) fn new(window: Dur, now: Time) -> RtProp {
        RtProp {
            value: None,
            stamp: now,
            expired: false,
            window,
            lower_only: false,
        }
    }
    /// Like `new`, but a sample equal to the estimate does not refresh it: a flow whose RTT
    /// stays at its minimum still lets the estimate expire (BBRv3).
    pub(crate) fn lower_only(window: Dur, now: Time) -> RtProp {
        RtProp {
            lower_only: true,
            ..RtProp::new(window, now)
        }
    }
    /// `BBRUpdateRTprop` with the RTT sample of this ACK, if any.
    pub(crate) fn update(&mut self, now: Time, rtt: Option<Dur>) {
        self.update_stamped(now, rtt.map(|rtt| (rtt, now)));
    }
    /// BBRv3's `BBR.min_rtt` update (§5.3.4): take `src`'s estimate with its stamp.
    pub(crate) fn update_from(&mut self, now: Time, src: &RtProp) {
        self.update_stamped(now, src.value.map(|v| (v, src.stamp)));
    }
    fn update_stamped(&mut self, now: Time, sample: Option<(Dur, Time)>) {
        self.expired = now > self.stamp + self.window;
        if let Some((rtt, stamp)) = sample {
            let refreshes = self.value.is_none_or(|v| rtt < v || (rtt == v && !self.lower_only));
            if self.expired || refreshes {
                self.value = Some(rtt);
                self.stamp = stamp;
            }
        }
    }
    /// Restarts the expiry clock (on leaving ProbeRTT, §4.3.5).
    pub(crate) fn restamp(&mut self, now: Time) {
        self.stamp = now;
    }
    /// The estimate, `None` before any RTT sample.
    pub(crate) fn get(&self) -> Option<Dur> {
        self.value
    }
    /// No sample matched or lowered the estimate for `window` (as of the last update).
    pub(crate) fn expired(&self) -> bool {
        self.expired
    }
}

/// BtlBw, RTprop and the rounds that time the BtlBw window (§4.1).
#[derive(Clone, Debug)]
pub(crate) struct PathModel {
    pub(crate) rounds: Rounds,
    /// Windowed max of delivery rate (bytes/s) over `BtlBwFilterLen` rounds (§4.1.1.2).
    btl_bw: MaxFilter<f64, u64>,
    pub(crate) rtprop: RtProp,
}

impl PathModel {
    /// An empty model: BtlBw window in rounds, RTprop window in time.
    pub(crate) fn new(btl_bw_rounds: u64, rtprop_window: Dur, now: Time) -> PathModel {
        PathModel {
            rounds: Rounds::default(),
            btl_bw: MaxFilter::new(btl_bw_rounds),
            rtprop: RtProp::new(rtprop_window, now),
        }
    }

    /// `BBRUpdateBtlBw` (§4.1.1.5) for this ACK's sample; `delivered` is `C.delivered`.
    /// App-limited samples only count when they raise the estimate: they measure the
    /// application, not the path (§4.1.1.4).
    pub(crate) fn update_btl_bw(&mut self, rs: Option<&RateSample>, delivered: u64) {
        let Some(rs) = rs else {
            self.rounds.no_sample();
            return;
        };
        self.rounds.on_sample(rs.prior_delivered, delivered);
        // An invalid sample (interval shorter than min_rtt, draft-cheng §3.3) carries rate 0.
        if rs.delivery_rate > 0.0 && (!rs.is_app_limited || rs.delivery_rate >= self.btl_bw()) {
            self.btl_bw.update(rs.delivery_rate, self.rounds.count());
        }
    }

    /// BBR.BtlBw in bytes/s (0 before the first sample).
    pub(crate) fn btl_bw(&self) -> f64 {
        self.btl_bw.best().unwrap_or(0.0)
    }

    /// `gain · BtlBw · RTprop` in bytes, rounded up (Linux `bbr_bdp`: rounding down would feed
    /// back into ever smaller windows); `None` while RTprop is unknown.
    pub(crate) fn bdp(&self, gain: f64) -> Option<u64> {
        self.rtprop
            .get()
            .map(|rtprop| (gain * self.btl_bw() * rtprop.as_secs_f64()).ceil() as u64)
    }
}
