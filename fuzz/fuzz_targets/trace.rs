//! `MahimahiTrace::parse` on arbitrary UTF-8: no panic (debug builds check every overflow), every error names
//! what was wrong, and an accepted trace gives non-decreasing opportunity times that `first_at_or_after`
//! finds again.
#![no_main]

use cclab_core::time::Time;
use cclab_sim::link::MahimahiTrace;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let t = match MahimahiTrace::parse(text) {
        Ok(t) => t,
        Err(e) => {
            assert!(!e.is_empty());
            return;
        }
    };
    // Opportunities of the first periods and around the end of time.
    for k in (0..64).chain((u64::MAX - 64)..u64::MAX) {
        assert!(t.time(k) <= t.time(k + 1), "opportunity {k} after {}", k + 1);
    }
    for k in 0..64 {
        let at = t.time(k);
        if at < Time(u64::MAX) {
            assert!(t.first_at_or_after(at) <= k, "opportunity {k} at {at:?} not found again");
        }
    }
});
