//! Random loss at a link's entrance: one [`LossModel`] trait, one file per model, and
//! [`AnyLoss`], the enum a link holds. Every model draws from the link's own seeded stream.

mod bernoulli;
mod gilbert_elliott;

pub use bernoulli::{Bernoulli, BernoulliConfig};
pub use gilbert_elliott::{GilbertElliott, GilbertElliottConfig};

use crate::engine::Rng;
use core::fmt;
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// A probability in [0, 1]; deserialising anything else is an error that says so.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct Probability(pub f64);

impl<'de> Deserialize<'de> for Probability {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Probability, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Probability;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a probability between 0 and 1")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Probability, E> {
                if (0.0..=1.0).contains(&v) {
                    Ok(Probability(v))
                } else {
                    Err(E::custom(format!("expected a probability between 0 and 1, got {v}")))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Probability, E> {
                self.visit_f64(v as f64)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Probability, E> {
                self.visit_f64(v as f64)
            }
        }
        d.deserialize_any(V)
    }
}

/// Decides, packet by packet, whether a link loses it.
pub trait LossModel {
    /// Whether the next packet is lost.
    fn lose(&mut self, rng: &mut Rng) -> bool;
}

/// A loss model as a scenario names it (`loss = { model = "bernoulli", p = 0.01 }`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(tag = "model", rename_all = "kebab-case", deny_unknown_fields)]
pub enum LossConfig {
    /// No random loss.
    #[default]
    None,
    /// Independent losses with probability `p`.
    Bernoulli(BernoulliConfig),
    /// Two-state Markov (bursty) losses.
    GilbertElliott(GilbertElliottConfig),
}

impl LossConfig {
    /// Builds the model.
    pub fn build(&self) -> AnyLoss {
        match self {
            LossConfig::None => AnyLoss::None,
            LossConfig::Bernoulli(c) => AnyLoss::Bernoulli(Bernoulli::new(c)),
            LossConfig::GilbertElliott(c) => AnyLoss::GilbertElliott(GilbertElliott::new(c)),
        }
    }
}

/// One of the built-in loss models.
#[derive(Clone, Debug)]
pub enum AnyLoss {
    /// Loses nothing (and draws nothing).
    None,
    /// Bernoulli.
    Bernoulli(Bernoulli),
    /// Gilbert–Elliott.
    GilbertElliott(GilbertElliott),
}

impl LossModel for AnyLoss {
    fn lose(&mut self, rng: &mut Rng) -> bool {
        match self {
            AnyLoss::None => false,
            AnyLoss::Bernoulli(m) => m.lose(rng),
            AnyLoss::GilbertElliott(m) => m.lose(rng),
        }
    }
}
