//! A BBRv3 controller placed in a chosen state of a known path, for the unit tests of each
//! state's rules: bandwidth 400 kB/s (3.2 Mbit/s), min RTT 125 ms, so BDP = 50 000 B exactly.

use super::{Bbr3, Bbr3Config, Mode};
use crate::cc::RateSample;
use crate::time::{Dur, Time};

/// Full-sized packet, bytes.
pub(super) const MSS: u64 = 1000;
/// Path bandwidth, bytes/s.
pub(super) const BW: f64 = 400_000.0;
/// Path round-trip time.
pub(super) const RTT: Dur = Dur::from_millis(125);
/// BW × RTT, bytes.
pub(super) const BDP: u64 = 50_000;

/// A controller that filled the pipe, measured `BW` and `RTT` at t = 0, has cwnd = 2 × BDP,
/// and is in `mode`.
pub(super) fn bbr_in(mode: Mode) -> Bbr3 {
    let mut b = Bbr3::new(&Bbr3Config::default(), Time::ZERO, MSS);
    b.max_bw.update(BW);
    b.update_min_rtt(Time::ZERO, Some(RTT));
    b.full_bw.filled_pipe = true;
    b.set_pacing_rate_with_gain(1.0);
    b.set_send_quantum();
    b.cwnd = 2 * BDP;
    b.mode = mode;
    b
}

/// A path-limited sample at `BW` for a packet sent with `tx_in_flight` bytes in flight, with
/// `lost` bytes lost since it was sent.
pub(super) fn sample(tx_in_flight: u64, lost: u64) -> RateSample {
    RateSample {
        delivery_rate: BW,
        delivered: tx_in_flight,
        interval: RTT,
        prior_delivered: 0,
        is_app_limited: false,
        rtt: RTT,
        lost,
        tx_in_flight,
    }
}
