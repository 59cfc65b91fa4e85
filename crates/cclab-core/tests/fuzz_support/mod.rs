//! The proptest configuration shared by the property-fuzzing tests of every crate (included with `#[path]`).

use proptest::test_runner::{Config as ProptestConfig, RngSeed};

/// 2000 cases from a fixed seed, so a run is reproducible; `PROPTEST_CASES` and `PROPTEST_RNG_SEED` override
/// them. No failure-persistence files are written into the source tree.
pub(crate) fn config() -> ProptestConfig {
    let env = ProptestConfig::default();
    let cases = if std::env::var_os("PROPTEST_CASES").is_some() {
        env.cases
    } else {
        2000
    };
    let rng_seed = match env.rng_seed {
        RngSeed::Random => RngSeed::Fixed(0xcc1a_b0de),
        fixed => fixed,
    };
    ProptestConfig {
        cases,
        rng_seed,
        failure_persistence: None,
        ..env
    }
}
