//! Gilbert–Elliott bursty loss: a two-state Markov chain, stepped once per packet.
//!
//! In the Good state a packet is lost with probability `loss_good`, in the Bad state with
//! `loss_bad`; after each packet the chain moves Good→Bad with probability `p` and Bad→Good
//! with `r`. Stationary P(Bad) = p/(p+r), so the long-run loss rate is
//! `(r·loss_good + p·loss_bad)/(p+r)`, and with `loss_bad = 1, loss_good = 0` loss bursts are
//! geometric with mean length `1/r` (Gilbert 1960, Elliott 1963; the netem "gemodel").

use super::{LossModel, Probability};
use crate::engine::rng::{chance, Rng};
use serde::Deserialize;

/// Gilbert–Elliott parameters (per-packet probabilities).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GilbertElliottConfig {
    /// Good→Bad transition probability (default 0).
    pub p: Probability,
    /// Bad→Good transition probability (default 1).
    pub r: Probability,
    /// Loss probability in the Bad state (default 1).
    pub loss_bad: Probability,
    /// Loss probability in the Good state (default 0).
    pub loss_good: Probability,
}

impl Default for GilbertElliottConfig {
    fn default() -> Self {
        GilbertElliottConfig {
            p: Probability(0.0),
            r: Probability(1.0),
            loss_bad: Probability(1.0),
            loss_good: Probability(0.0),
        }
    }
}

impl GilbertElliottConfig {
    /// Long-run loss rate `(r·loss_good + p·loss_bad)/(p+r)`.
    pub fn mean_loss(&self) -> f64 {
        let (p, r) = (self.p.0, self.r.0);
        if p + r == 0.0 {
            return self.loss_good.0;
        }
        (r * self.loss_good.0 + p * self.loss_bad.0) / (p + r)
    }
}

/// Gilbert–Elliott loss; starts in the Good state.
#[derive(Clone, Debug)]
pub struct GilbertElliott {
    cfg: GilbertElliottConfig,
    bad: bool,
}

impl GilbertElliott {
    /// A model in the Good state.
    pub fn new(cfg: &GilbertElliottConfig) -> GilbertElliott {
        GilbertElliott {
            cfg: cfg.clone(),
            bad: false,
        }
    }
}

impl LossModel for GilbertElliott {
    fn lose(&mut self, rng: &mut Rng) -> bool {
        let lost = chance(
            rng,
            if self.bad {
                self.cfg.loss_bad.0
            } else {
                self.cfg.loss_good.0
            },
        );
        let flip = chance(rng, if self.bad { self.cfg.r.0 } else { self.cfg.p.0 });
        self.bad ^= flip;
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{stream_rng, Stream};

    #[test]
    fn gilbert_elliott_long_run_loss_and_burst_length_match_closed_form() {
        // p = 0.01, r = 0.25: P(Bad) = 0.01/0.26, loss = 3.846 %, mean burst 1/r = 4 packets.
        let cfg = GilbertElliottConfig {
            p: Probability(0.01),
            r: Probability(0.25),
            ..Default::default()
        };
        let mut m = GilbertElliott::new(&cfg);
        let mut rng = stream_rng(42, Stream::LinkLoss, 0);
        let n = 1_000_000;
        let (mut lost, mut bursts, mut prev) = (0u64, 0u64, false);
        for _ in 0..n {
            let l = m.lose(&mut rng);
            lost += l as u64;
            bursts += (l && !prev) as u64;
            prev = l;
        }
        let rate = lost as f64 / n as f64;
        assert!((rate / cfg.mean_loss() - 1.0).abs() < 0.05, "loss rate {rate}");
        let burst = lost as f64 / bursts as f64;
        assert!((burst / 4.0 - 1.0).abs() < 0.05, "mean burst {burst}");
    }

    #[test]
    fn gilbert_elliott_partial_losses_mix_both_states() {
        // loss_good 0.01, loss_bad 0.5, p = r = 0.1: (0.1·0.01 + 0.1·0.5)/0.2 = 25.5 %.
        let cfg = GilbertElliottConfig {
            p: Probability(0.1),
            r: Probability(0.1),
            loss_bad: Probability(0.5),
            loss_good: Probability(0.01),
        };
        assert!((cfg.mean_loss() - 0.255).abs() < 1e-12);
        let mut m = GilbertElliott::new(&cfg);
        let mut rng = stream_rng(7, Stream::LinkLoss, 3);
        let lost = (0..1_000_000).filter(|_| m.lose(&mut rng)).count();
        assert!((lost as f64 / 1e6 / 0.255 - 1.0).abs() < 0.05, "{lost}");
    }
}
