//! What a scenario says about one link (`[path.forward]`, `[path.return]`, `[flow.access]`).

use super::cross::CrossTrafficConfig;
use super::trace::MahimahiTrace;
use crate::loss::{LossConfig, Probability};
use crate::queue::{QueueConfig, QueueLimit};
use cclab_core::time::Dur;
use cclab_core::units::{parse_rate, Rate};
use core::fmt;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A link's capacity: bits/s, or `"unlimited"` (no serialisation delay, as on loopback).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkRate {
    /// Packets take no time to serialise.
    Unlimited,
    /// Packets take `size·8/rate` to serialise.
    Limited(Rate),
}

impl<'de> Deserialize<'de> for LinkRate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LinkRate, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = LinkRate;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a rate with a unit, e.g. \"100Mbps\", or \"unlimited\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LinkRate, E> {
                if v == "unlimited" {
                    return Ok(LinkRate::Unlimited);
                }
                parse_rate(v)
                    .map(LinkRate::Limited)
                    .map_err(|e| E::custom(format!("{e}, or \"unlimited\"")))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LinkRate, E> {
                Err(E::custom(format!("expected a rate with a unit as a string, e.g. \"{v}Mbps\", or \"unlimited\"; got the bare number {v}")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LinkRate, E> {
                self.visit_i64(v as i64)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<LinkRate, E> {
                Err(E::custom(format!(
                    "expected a rate with a unit as a string, or \"unlimited\"; got the bare number {v}"
                )))
            }
        }
        d.deserialize_any(V)
    }
}

/// Reordering: each packet is held back by `delay` with probability `p`, so later ones overtake it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReorderConfig {
    /// Probability that a packet is held back.
    pub p: Probability,
    /// Extra delay of a held-back packet.
    pub delay: Dur,
}

/// One link of a path.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// Capacity; required unless `trace` gives it.
    #[serde(default)]
    pub rate: Option<LinkRate>,
    /// One-way propagation delay.
    pub delay: Dur,
    /// Queue discipline in front of the serialiser (default: drop-tail, 1000 packets).
    #[serde(default)]
    pub queue: QueueConfig,
    /// Random loss at the link's entrance (default none).
    #[serde(default)]
    pub loss: LossConfig,
    /// Largest extra propagation delay; each packet draws uniformly in [0, jitter] without
    /// overtaking the one ahead (default 0).
    #[serde(default)]
    pub jitter: Dur,
    /// Reordering (default none).
    #[serde(default)]
    pub reorder: Option<ReorderConfig>,
    /// Probability that a packet is duplicated: the copy follows the original through the
    /// queue (default none; real stacks must drop the duplicate).
    #[serde(default)]
    pub duplicate: Option<Probability>,
    /// Packet-rate cap, packets/s: every packet takes at least `1/max_pps` to send, whatever
    /// its size (a packet-congestive link).
    #[serde(default)]
    pub max_pps: Option<f64>,
    /// Minimum serialisation time of any packet (per-packet cost of the medium).
    #[serde(default)]
    pub per_packet_cost: Dur,
    /// ACK thinning: forward only every k-th pure ACK of each flow (0 or 1: all).
    #[serde(default)]
    pub thin_acks: u32,
    /// Mahimahi trace file giving the capacity (path relative to the scenario file).
    #[serde(default)]
    pub trace: Option<PathBuf>,
    /// Unresponsive cross traffic entering this link.
    #[serde(default)]
    pub cross_traffic: Option<CrossTrafficConfig>,
    /// The trace file's contents, once [`LinkConfig::resolve`] has read it.
    #[serde(skip)]
    pub loaded_trace: Option<MahimahiTrace>,
}

impl LinkConfig {
    /// A link of `rate` and one-way `delay` with default queue and no impairments.
    pub fn new(rate: LinkRate, delay: Dur) -> LinkConfig {
        LinkConfig {
            rate: Some(rate),
            delay,
            queue: QueueConfig::default(),
            loss: LossConfig::None,
            jitter: Dur::ZERO,
            reorder: None,
            duplicate: None,
            max_pps: None,
            per_packet_cost: Dur::ZERO,
            thin_acks: 0,
            trace: None,
            cross_traffic: None,
            loaded_trace: None,
        }
    }

    /// A link that changes nothing: unlimited, no delay, no impairment, default queue (a path of
    /// such links is plain loopback in real mode, with no emulator between the endpoints).
    pub fn is_transparent(&self) -> bool {
        *self == LinkConfig::new(LinkRate::Unlimited, Dur::ZERO)
    }

    /// Checks the parameters together and reads the trace file relative to `base`.
    /// An error names the offending key (relative to the link) and what was expected.
    pub fn resolve(&mut self, base: &Path) -> Result<(), (&'static str, String)> {
        match (&self.rate, &self.trace) {
            (None, None) => {
                return Err((
                    "rate",
                    "missing: give a rate (e.g. \"100Mbps\"), \"unlimited\", or a trace".into(),
                ))
            }
            (Some(_), Some(_)) => return Err(("trace", "give either a rate or a trace, not both".into())),
            (None, Some(path)) => {
                self.loaded_trace = Some(MahimahiTrace::load(&base.join(path)).map_err(|e| ("trace", e))?)
            }
            (Some(_), None) => {}
        }
        if let Some(pps) = self.max_pps {
            if !(pps.is_finite() && pps > 0.0) {
                return Err((
                    "max_pps",
                    format!("expected a positive packet rate (packets/s), got {pps}"),
                ));
            }
        }
        if let Some(c) = &self.cross_traffic {
            c.validate()?;
        }
        if let QueueConfig::Droptail(c) = &self.queue {
            if matches!(c.limit, Some(QueueLimit::Time(_))) && !matches!(self.rate, Some(LinkRate::Limited(_))) {
                return Err((
                    "queue.limit",
                    "a time limit needs a link with a fixed rate (not \"unlimited\" or a trace); give a size instead"
                        .into(),
                ));
            }
        }
        self.queue.validate()
    }
}
