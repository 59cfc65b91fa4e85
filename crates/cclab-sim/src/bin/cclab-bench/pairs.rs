//! Paired readings of a ratio target (`cclab-bench --pairs K`): the ratio's two cases run back to back K times, the
//! order alternating (A B, B A, A B, ...), and the ratio is read as the median of the K ratios within a pair.
//!
//! In the suite's rounds a case runs seconds from its partner, with other cases between. On a VM whose speed changes
//! in spells of seconds (up to 2× here) a round's ratio can divide a fast spell's case by a slow spell's. Back to
//! back, the two cases of a pair mostly share a spell, and alternating the order keeps a spell that starts or ends
//! within pairs from favouring the side that runs second.

use cclab_sim::{run, RunOptions, Scenario};

use crate::{bench_options, ns_per_packet};

/// One side of a ratio: a scenario and the options it runs with.
pub(crate) struct Side {
    pub(crate) label: &'static str,
    pub(crate) scenario: Scenario,
    pub(crate) opts: RunOptions,
}

impl Side {
    pub(crate) fn new(label: &'static str, text: &str, opts: RunOptions) -> Side {
        let scenario = Scenario::from_toml_str(text, label, &[]).unwrap_or_else(|e| panic!("{e}"));
        Side { label, scenario, opts }
    }

    /// One run's CPU nanoseconds per data packet.
    fn cost(&self) -> f64 {
        let out = run(&self.scenario, bench_options(&self.opts)).unwrap_or_else(|e| panic!("{}: {e}", self.label));
        ns_per_packet(&out)
    }
}

/// `dear / cheap` read over `k` alternating pairs.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Paired {
    /// The ratio within each pair, in the order run.
    pub(crate) ratios: Vec<f64>,
    /// The cheapest run of `dear` over the cheapest of `cheap`.
    pub(crate) cheapest: f64,
}

impl Paired {
    /// The median of the ratios within a pair (the upper one of an even count).
    pub(crate) fn median(&self) -> f64 {
        let mut r = self.ratios.clone();
        r.sort_by(f64::total_cmp);
        r[r.len() / 2]
    }

    /// The ratios of pairs (`dear` cost, `cheap` cost).
    fn from_costs(costs: &[(f64, f64)]) -> Paired {
        let min = |f: fn(&(f64, f64)) -> f64| costs.iter().map(f).fold(f64::MAX, f64::min);
        Paired {
            ratios: costs.iter().map(|(d, c)| d / c).collect(),
            cheapest: min(|c| c.0) / min(|c| c.1),
        }
    }
}

/// Runs `k` (≥ 1) pairs of `dear` and `cheap`, `dear` first in the odd ones, and prints the reading.
pub(crate) fn paired(label: &str, dear: &Side, cheap: &Side, k: u32) -> Paired {
    let costs: Vec<(f64, f64)> = (0..k.max(1))
        .map(|i| {
            if i % 2 == 0 {
                let d = dear.cost();
                (d, cheap.cost())
            } else {
                let c = cheap.cost();
                (dear.cost(), c)
            }
        })
        .collect();
    let p = Paired::from_costs(&costs);
    let each: Vec<String> = p.ratios.iter().map(|r| format!("{r:.2}")).collect();
    println!(
        "{label:<58} median {:.2}x  cheapest {:.2}x  ({} / {}, each pair: {})",
        p.median(),
        p.cheapest,
        dear.label,
        cheap.label,
        each.join(" ")
    );
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_is_read_within_itself_not_across_spells() {
        // The second pair ran in a slow spell: both its cases cost twice as much, and its ratio is the same as the
        // others'. Across pairs, the cheap side's fast run over the dear side's slow one would read 0.6.
        let p = Paired::from_costs(&[(360.0, 300.0), (720.0, 600.0), (330.0, 300.0)]);
        assert_eq!(p.ratios, vec![1.2, 1.2, 1.1]);
        assert_eq!(p.median(), 1.2);
        assert_eq!(p.cheapest, 1.1);
        // An even count reads the upper middle.
        assert_eq!(Paired::from_costs(&[(300.0, 300.0), (450.0, 300.0)]).median(), 1.5);
    }
}
