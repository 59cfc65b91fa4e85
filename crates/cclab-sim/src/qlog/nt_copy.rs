//! Copies of whole 64-byte lines of trace text that bypass the caches (non-temporal stores).
//!
//! Why: a trace's text is written once and then only read by the disk (DMA, `O_DIRECT`), yet a
//! plain store first reads its line for ownership and leaves it in the caches. The writer's
//! blocks cycle through ~10 MiB, more than the 4 MiB L2, so every new line of text was a miss
//! that also evicted the simulation's own state. Streaming stores (Intel SDM Vol. 1 §10.4.6.2,
//! "Caching of Temporal vs. Non-Temporal Data"; `MOVNTDQ`) write whole lines through
//! write-combining buffers without reading them. SSE2 is part of the x86_64 baseline; other
//! architectures copy plainly.

/// Bytes of a cache line: the unit a write-combining buffer fills and sends.
pub(super) const LINE: usize = 64;

/// Copies `n` bytes, a multiple of [`LINE`], from `src` to `dst`, a [`LINE`]-aligned address,
/// with non-temporal stores. Call [`fence`] before anything else reads, writes or frees those
/// bytes, or hands them to another thread.
///
/// # Safety
/// `src` must be valid for reads and `dst` for writes of `n` bytes, the two must not overlap, and
/// `dst` must be [`LINE`]-aligned (the stores need 16).
#[cfg(target_arch = "x86_64")]
pub(super) unsafe fn copy_lines(dst: *mut u8, src: *const u8, n: usize) {
    use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
    debug_assert!(n % LINE == 0 && dst as usize % LINE == 0);
    let mut i = 0;
    while i < n {
        // SAFETY: the caller guarantees `i + 16 <= n` bytes readable at `src` and writable at the
        // 16-byte-aligned `dst` (n and dst are multiples of 64, `i` of 16).
        unsafe {
            let v = _mm_loadu_si128(src.add(i).cast::<__m128i>());
            _mm_stream_si128(dst.add(i).cast::<__m128i>(), v);
        }
        i += 16;
    }
}

/// Orders every non-temporal store of this thread before its later stores (`SFENCE`): the bytes
/// [`copy_lines`] wrote may then be read, freed or handed over like any others. Non-temporal
/// stores are weakly ordered, even for the thread that made them under Rust's memory model
/// (`_mm_stream_si128`'s documentation). Not after every copy: a fence per 4 KiB of text waits
/// for the write-combining buffers each time, and the block is read only when it leaves.
#[cfg(target_arch = "x86_64")]
pub(super) fn fence() {
    // SAFETY: SFENCE needs SSE, which every x86_64 processor has (the target's baseline).
    unsafe { core::arch::x86_64::_mm_sfence() };
}

/// [`copy_lines`] where there are no streaming stores: a plain copy.
///
/// # Safety
/// As for the x86_64 version.
#[cfg(not(target_arch = "x86_64"))]
pub(super) unsafe fn copy_lines(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: the caller's guarantees are those of `copy_nonoverlapping`.
    unsafe { std::ptr::copy_nonoverlapping(src, dst, n) };
}

/// [`fence`] where plain copies need none.
#[cfg(not(target_arch = "x86_64"))]
pub(super) fn fence() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_lines_copies_exactly_the_lines_asked() {
        let src: Vec<u8> = (0..4 * LINE).map(|i| (i * 7 + 3) as u8).collect();
        let mut dst = super::super::block::Block::with_len(8 * LINE);
        let d = dst.bytes_mut();
        d.fill(0xee);
        // Into the second line of the block, three lines: the first and last lines stay untouched.
        // SAFETY: 3 lines from `src` (4 long) into `d` from byte 64 (8 lines long), aligned.
        unsafe { copy_lines(d[LINE..].as_mut_ptr(), src[1..].as_ptr(), 3 * LINE) };
        fence();
        assert!(d[..LINE].iter().all(|&b| b == 0xee));
        assert_eq!(&d[LINE..4 * LINE], &src[1..1 + 3 * LINE]);
        assert!(d[4 * LINE..].iter().all(|&b| b == 0xee));
    }
}
