//! Hand-built congestion events for controller unit tests.

use super::{AckedPacket, CongestionEvent, LostPacket};
use crate::recovery::rtt::{RttEstimator, INITIAL_RTT};
use crate::time::{Dur, NonZeroDur, Time};

/// Tick length of the events built here (FreeBSD HZ = 1000).
pub(crate) const TICK: NonZeroDur = NonZeroDur::from_millis(1);

/// An event at `now` with the given packets; the tick counter follows `now` at 1 ms per tick and
/// every other field is neutral (no ECN, not app-limited, nothing in flight or delivered, SND.NXT 0 as
/// for a controller told of no sends: HyStart's rounds and alpha's windows end on every ACK).
/// Tests change fields with struct-update syntax: `CongestionEvent { app_limited: true, ..event(..) }`.
pub(crate) fn event<'a>(
    now: Time,
    acked: &'a [AckedPacket],
    lost: &'a [LostPacket],
    rtt: &'a RttEstimator,
) -> CongestionEvent<'a> {
    CongestionEvent {
        now,
        true_now: now,
        tick: TICK,
        acked,
        lost,
        ecn_ce: 0,
        rtt,
        prior_in_flight: 0,
        bytes_in_flight: 0,
        app_limited: false,
        rate_sample: None,
        delivered: 0,
        may_raise_window: true,
        next_pn: 0,
    }
}

/// An RTT estimator holding one sample `rtt` (smoothed = min = latest = `rtt`).
pub(crate) fn rtt_of(rtt: Dur) -> RttEstimator {
    let mut r = RttEstimator::new(INITIAL_RTT);
    r.update(Time::ZERO, rtt, Dur::ZERO);
    r
}
