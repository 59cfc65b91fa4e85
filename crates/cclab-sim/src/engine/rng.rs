//! Seeded randomness: one independent stream per model, derived from the scenario seed.
//!
//! Each model (a link's loss model, its queue, its jitter, a flow's controller...) draws from
//! its own `Xoshiro256PlusPlus`, seeded from `(scenario seed, stream label)` through SplitMix64.
//! Adding a model or a flow therefore never shifts the draws of another.

use cclab_core::time::Dur;
use rand_xoshiro::rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The random number generator every model uses.
pub type Rng = Xoshiro256PlusPlus;

/// What a random stream is for; with the owner's index it names the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Stream {
    /// A link's loss model.
    LinkLoss = 1,
    /// A link's queue (RED's marking draws).
    LinkQueue = 2,
    /// A link's delay jitter.
    LinkJitter = 3,
    /// A link's reordering draws.
    LinkReorder = 4,
    /// A link's cross-traffic source.
    LinkCross = 5,
    /// A link's duplication draws.
    LinkDuplicate = 7,
    /// A host's scheduling stalls.
    HostStall = 6,
    /// A flow's sender (its controller's randomness, e.g. BBR's probe phases).
    FlowSender = 16,
    /// A flow's receiver.
    FlowReceiver = 17,
}

/// SplitMix64 finaliser (Steele, Lea, Flood 2014): a bijective 64-bit mixer.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of stream `stream` of owner `index` (link or flow index) in a run seeded `seed`.
pub fn derive_seed(seed: u64, stream: Stream, index: u32) -> u64 {
    mix(mix(seed) ^ ((stream as u64) << 32 | index as u64))
}

/// A generator for stream `stream` of owner `index`.
pub fn stream_rng(seed: u64, stream: Stream, index: u32) -> Rng {
    Rng::seed_from_u64(derive_seed(seed, stream, index))
}

/// A uniform draw in [0, 1) with 53 random bits.
pub fn uniform(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// An exponentially distributed duration of mean `mean` (inverse-transform sampling).
pub fn exponential(rng: &mut Rng, mean: Dur) -> Dur {
    Dur::from_secs_f64(-mean.as_secs_f64() * (1.0 - uniform(rng)).ln())
}

/// `true` with probability `p`.
pub fn chance(rng: &mut Rng, p: f64) -> bool {
    uniform(rng) < p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_differ_by_label_and_index_and_repeat_by_seed() {
        let a = stream_rng(1, Stream::LinkLoss, 0).next_u64();
        assert_eq!(a, stream_rng(1, Stream::LinkLoss, 0).next_u64());
        assert_ne!(a, stream_rng(1, Stream::LinkLoss, 1).next_u64());
        assert_ne!(a, stream_rng(1, Stream::LinkJitter, 0).next_u64());
        assert_ne!(a, stream_rng(2, Stream::LinkLoss, 0).next_u64());
    }

    #[test]
    fn uniform_mean_is_one_half() {
        let mut r = stream_rng(7, Stream::LinkLoss, 0);
        let n = 100_000;
        let mean = (0..n).map(|_| uniform(&mut r)).sum::<f64>() / n as f64;
        // Standard error of the mean: sqrt(1/12/n) ≈ 0.0009.
        assert!((mean - 0.5).abs() < 0.004, "{mean}");
    }

    #[test]
    fn exponential_has_its_mean_and_median() {
        let mut r = stream_rng(7, Stream::HostStall, 0);
        let n = 100_000;
        let mut d: Vec<f64> = (0..n)
            .map(|_| exponential(&mut r, Dur::from_millis(2)).as_secs_f64())
            .collect();
        // Mean 2 ms (standard error 2 ms / sqrt(n) = 6.3 µs); median 2 ms · ln 2 = 1.386 ms.
        let mean = d.iter().sum::<f64>() / n as f64;
        assert!((mean - 2e-3).abs() < 3e-5, "{mean}");
        d.sort_by(f64::total_cmp);
        assert!((d[n / 2] - 2e-3 * std::f64::consts::LN_2).abs() < 3e-5, "{}", d[n / 2]);
    }
}
