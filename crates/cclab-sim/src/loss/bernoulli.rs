//! Independent (Bernoulli) loss: each packet is lost with probability `p`.

use super::{LossModel, Probability};
use crate::engine::rng::{chance, Rng};
use serde::Deserialize;

/// Bernoulli loss parameters.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BernoulliConfig {
    /// Loss probability per packet (default 0).
    pub p: Probability,
}

/// Bernoulli loss.
#[derive(Clone, Debug)]
pub struct Bernoulli {
    p: f64,
}

impl Bernoulli {
    /// A model losing each packet with probability `cfg.p`.
    pub fn new(cfg: &BernoulliConfig) -> Bernoulli {
        Bernoulli { p: cfg.p.0 }
    }
}

impl LossModel for Bernoulli {
    fn lose(&mut self, rng: &mut Rng) -> bool {
        chance(rng, self.p)
    }
}
