//! A cache prefetch hint for data a hot path will read soon at an address hardware cannot guess.

/// Asks the CPU to start loading the cache lines of `*r` (at most the first three: the values this is
/// used on are one to three lines long). Only a hint: it reads nothing architecturally and cannot
/// fault, so it is safe on any reference; on targets without the instruction it does nothing.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let first = (r as *const T).cast::<i8>();
        let size = size_of::<T>();
        // SAFETY: PREFETCHT0 is a hint with no architectural effect; it never faults, even on an
        // address past the end of an allocation.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(first);
            if size > 64 {
                _mm_prefetch::<_MM_HINT_T0>(first.wrapping_add(64));
            }
            if size > 128 {
                _mm_prefetch::<_MM_HINT_T0>(first.wrapping_add(size - 1));
            }
        }
    }
}
