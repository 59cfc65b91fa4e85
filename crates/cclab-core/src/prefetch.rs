//! Cache prefetch hints, for data a hot path will read soon at an address hardware cannot guess.
//!
//! A prefetch only asks the CPU to start loading lines: it reads nothing architecturally and
//! cannot fault, even on an address that is no longer allocated, so these take plain addresses
//! and are safe. On targets without the instruction they do nothing.

/// Cache line size on every target this tunes for.
const LINE: usize = 64;

/// Starts loading the cache lines of `*r` (at most the first three: the values this is used on are
/// one to three lines long).
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    let addr = r as *const T as usize;
    let size = size_of::<T>();
    line(addr);
    if size > LINE {
        line(addr + LINE);
    }
    if size > 2 * LINE {
        line(addr + size - 1);
    }
}

/// Starts loading every cache line of the `len` bytes at `addr`.
#[inline]
pub fn prefetch_bytes(addr: usize, len: usize) {
    let mut a = addr & !(LINE - 1);
    while a < addr + len {
        line(a);
        a += LINE;
    }
}

/// Starts loading the cache line at `addr` to be written (`PREFETCHW`): a store to a line not in the
/// cache waits for it to be read in first, and enough such stores fill the store buffer and stall
/// everything after them.
#[inline(always)]
pub fn prefetch_write(addr: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHW is a hint with no architectural effect; it never faults.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_ET0};
        _mm_prefetch::<_MM_HINT_ET0>(addr as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}

#[inline(always)]
fn line(addr: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: PREFETCHT0 is a hint with no architectural effect; it never faults.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(addr as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}
