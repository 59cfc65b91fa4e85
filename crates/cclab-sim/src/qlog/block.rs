//! Page-aligned byte buffers: what a qlog writer formats its records into, and what a direct
//! trace file hands to the disk as it is (`O_DIRECT` needs aligned memory).

use std::ptr::NonNull;

/// Alignment of a direct write's memory, length and file offset: the page size, a multiple of
/// any logical block size (`open(2)`, "O_DIRECT").
pub(super) const ALIGN: usize = 4096;

/// Bytes aligned to [`ALIGN`], a whole number of pages long, zero until written and not touched
/// before: a run with 2,000 traces has 2,000 writer buffers, of which a short trace touches a
/// page or two (`calloc` leaves fresh pages unwritten).
///
/// Plain pages, not transparent huge pages: huge pages spared the direct write pinning 512 pages
/// per 2 MiB block (1 GB traced 392 → 342 ns per data packet), but on this project's VM a fresh
/// huge page took ~1.7 ms to fault in whenever the host had to back it, so a run's first blocks
/// cost 0–20 ms at random: `cclab-bench`'s 200 MB qlog case, whole suite, on/off 1.65–4.3×
/// (median 2.4×) with them, 1.83–2.0× without.
pub(super) struct Block {
    /// The first byte, aligned.
    ptr: NonNull<u8>,
    len: usize,
    /// The allocation `ptr` lies in (zeroed by the allocator).
    raw: *mut [u8],
}

// SAFETY: a block owns its memory, as a `Box<[u8]>` would.
unsafe impl Send for Block {}

impl Block {
    /// A zeroed block of at least `len` bytes.
    pub(super) fn with_len(len: usize) -> Block {
        let len = len.div_ceil(ALIGN) * ALIGN;
        let raw = Box::into_raw(vec![0u8; len + ALIGN].into_boxed_slice());
        let base = raw.cast::<u8>();
        // SAFETY: the offset to the next aligned byte is under ALIGN, inside the allocation.
        let ptr = unsafe { base.add(base.align_offset(ALIGN)) };
        Block {
            ptr: NonNull::new(ptr).expect("allocations are not null"),
            len,
            raw,
        }
    }

    /// Its length in bytes.
    #[inline(always)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Its bytes.
    #[inline(always)]
    pub(super) fn bytes(&self) -> &[u8] {
        // SAFETY: `len` initialised (zeroed) bytes at `ptr`, owned by the block.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// Its bytes, to fill.
    #[inline(always)]
    pub(super) fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`, and `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        // SAFETY: made by `Box::into_raw` in `with_len`, dropped once.
        drop(unsafe { Box::from_raw(self.raw) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_is_aligned_and_rounded_up_to_pages() {
        let mut b = Block::with_len(ALIGN + 1);
        assert_eq!(b.len(), 2 * ALIGN);
        assert_eq!(b.bytes().as_ptr() as usize % ALIGN, 0);
        b.bytes_mut()[2 * ALIGN - 1] = 7;
        assert_eq!(b.bytes()[2 * ALIGN - 1], 7);
        assert_eq!(Block::with_len(0).len(), 0);
        let mut big = Block::with_len(2 << 20);
        assert_eq!(big.bytes().as_ptr() as usize % ALIGN, 0);
        assert!(big.bytes().iter().all(|&b| b == 0));
        big.bytes_mut()[(2 << 20) - 1] = 9;
        assert_eq!(big.bytes()[(2 << 20) - 1], 9);
    }
}
