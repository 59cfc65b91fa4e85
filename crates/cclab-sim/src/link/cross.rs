//! Unresponsive cross traffic entering one link: constant bit rate, or on/off.
//!
//! Its packets go through the link's loss model and queue like any other, compete for the
//! serialiser, and leave the network at the far end. They never react to loss or delay.

use crate::engine::rng::{uniform, Rng};
use crate::packet::{InFlight, CROSS_TRAFFIC};
use cclab_core::time::{transmission_time, Dur, Time};
use cclab_core::units::{Bytes, Rate};
use cclab_core::wire::packet::{Datagram, Ecn, FlowId, Packet};
use serde::Deserialize;

fn default_size() -> Bytes {
    Bytes(1500)
}

/// Cross traffic as a scenario names it (`cross_traffic = { kind = "cbr", rate = "2Mbps" }`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum CrossTrafficConfig {
    /// One packet every `size / rate`, from `start` on.
    Cbr {
        /// Sending rate while on.
        rate: Rate,
        /// IP size of each packet (default 1500 B).
        #[serde(default = "default_size")]
        size: Bytes,
        /// When the first packet is sent (default 0).
        #[serde(default)]
        start: Dur,
    },
    /// CBR at `rate` during on periods, silent during off periods (fixed lengths, or
    /// exponentially distributed with these means).
    Onoff {
        /// Sending rate while on.
        rate: Rate,
        /// IP size of each packet (default 1500 B).
        #[serde(default = "default_size")]
        size: Bytes,
        /// Length (or mean length) of an on period.
        on: Dur,
        /// Length (or mean length) of an off period.
        off: Dur,
        /// Draw period lengths from exponential distributions (default false: fixed).
        #[serde(default)]
        exponential: bool,
        /// When the first on period begins (default 0).
        #[serde(default)]
        start: Dur,
    },
}

impl CrossTrafficConfig {
    /// Checks the packet size (an IP packet of 1 to 65,535 bytes, RFC 791 §3.1), that packets leave at most one
    /// per nanosecond, and that an on/off source's on period is above 0: with both periods 0 it would send
    /// every packet at one instant and never advance (found by the `simulation` fuzz target). Errors name the
    /// key under `cross_traffic`.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let (CrossTrafficConfig::Cbr { size, rate, .. } | CrossTrafficConfig::Onoff { size, rate, .. }) = self;
        if !(1..=65_535).contains(&size.0) {
            return Err((
                "cross_traffic.size",
                format!("expected an IP packet size of 1B to 65535B, got {}B", size.0),
            ));
        }
        // Packets leave every size·8/rate, in whole nanoseconds of at least 1: a faster source was sent at
        // one packet per nanosecond, a lower rate than the scenario said, without a word.
        let fastest = u128::from(size.0) * 8 * 1_000_000_000;
        if u128::from(rate.bps()) > fastest {
            return Err((
                "cross_traffic.rate",
                format!(
                    "expected at most {fastest} bit/s for {}B packets (one per nanosecond, the clock's tick), got {} bit/s; raise size",
                    size.0,
                    rate.bps()
                ),
            ));
        }
        if let CrossTrafficConfig::Onoff { on, .. } = self {
            if *on == Dur::ZERO {
                return Err((
                    "cross_traffic.on",
                    "expected an on period above 0 (for no cross traffic, leave cross_traffic out)".into(),
                ));
            }
        }
        Ok(())
    }
}

/// The running source.
#[derive(Debug)]
pub(super) struct CrossSource {
    size: u32,
    interval: Dur,
    next: Time,
    /// On/off: (mean on, mean off, exponential, end of the current on period).
    onoff: Option<(Dur, Dur, bool, Time)>,
    rng: Rng,
}

impl CrossSource {
    /// A source that starts at its configured `start`.
    pub(super) fn new(cfg: &CrossTrafficConfig, mut rng: Rng) -> CrossSource {
        let (rate, size, start, onoff) = match *cfg {
            CrossTrafficConfig::Cbr { rate, size, start } => (rate, size, start, None),
            CrossTrafficConfig::Onoff {
                rate,
                size,
                on,
                off,
                exponential,
                start,
            } => {
                let first_on = draw(&mut rng, on, exponential);
                (
                    rate,
                    size,
                    start,
                    Some((on, off, exponential, Time::ZERO + start + first_on)),
                )
            }
        };
        let size = size.0.clamp(1, u32::MAX as u64) as u32;
        let interval = transmission_time(size as u64, rate.bps()).max(Dur(1));
        CrossSource {
            size,
            interval,
            next: Time::ZERO + start,
            onoff,
            rng,
        }
    }

    /// When the next packet is due.
    pub(super) fn next_time(&self) -> Time {
        self.next
    }

    /// The packet due at `next_time()`; advances to the following one.
    pub(super) fn emit(&mut self) -> InFlight {
        let at = self.next;
        self.next = at + self.interval;
        if let Some((on, off, exp, on_end)) = &mut self.onoff {
            if self.next >= *on_end {
                self.next = *on_end + draw(&mut self.rng, *off, *exp);
                *on_end = self.next + draw(&mut self.rng, *on, *exp);
            }
        }
        InFlight::new(
            Datagram {
                flow: FlowId(u32::MAX),
                size: self.size,
                ecn: Ecn::NotEct,
                packet: Packet::default(),
            },
            CROSS_TRAFFIC,
            0,
            at,
        )
    }
}

/// A period length: `mean` itself, or an exponential draw with that mean.
fn draw(rng: &mut Rng, mean: Dur, exponential: bool) -> Dur {
    if exponential {
        // Inverse CDF; 1 - u lies in (0, 1], so the log is finite.
        Dur::from_secs_f64(-mean.as_secs_f64() * (1.0 - uniform(rng)).ln())
    } else {
        mean
    }
}
