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
    each_line(addr, len, line);
}

/// Calls `f` with the address of every cache line of the `len` bytes at `addr`, in order, four
/// lines a step: a line at a time, the loop's add, compare and branch cost three instructions
/// more than the prefetch itself, and a link's look-ahead prefetches ~28 lines a data packet
/// with 1,000 flows (an endpoint's 1,280 bytes, 20 lines, among them).
#[inline(always)]
fn each_line(addr: usize, len: usize, mut f: impl FnMut(usize)) {
    let end = addr + len;
    let mut a = addr & !(LINE - 1);
    while a + 3 * LINE < end {
        f(a);
        f(a + LINE);
        f(a + 2 * LINE);
        f(a + 3 * LINE);
        a += 4 * LINE;
    }
    while a < end {
        f(a);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefetch_bytes_visits_each_line_of_the_range_once_in_order() {
        for addr in [0, 1, 63, 64, 100, 4096 + 65] {
            for len in 0..(24 * LINE + 3) {
                let mut seen = Vec::new();
                each_line(addr, len, |a| seen.push(a));
                let want: Vec<usize> = (addr / LINE..(addr + len).div_ceil(LINE)).map(|l| l * LINE).collect();
                assert_eq!(seen, want, "addr {addr}, len {len}");
            }
        }
    }
}
