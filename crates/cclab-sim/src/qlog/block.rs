//! Page-aligned byte buffers: what a qlog writer formats its records into, and what a direct
//! trace file hands to the disk as it is (`O_DIRECT` needs aligned memory).

use std::ptr::NonNull;

/// Alignment of a direct write's memory, length and file offset: the page size, a multiple of
/// any logical block size (`open(2)`, "O_DIRECT").
pub(super) const ALIGN: usize = 4096;

/// Size and alignment of a transparent huge page (x86-64, arm64 with 4 KiB pages).
const HUGE: usize = 2 << 20;

/// Bytes aligned to [`ALIGN`], a whole number of pages long, zero until written and not touched
/// before: a run with 2,000 traces has 2,000 writer buffers, of which a short trace touches a
/// page or two. Blocks of [`HUGE`] bytes or more are aligned to it and asked to be backed by
/// huge pages (`MADV_HUGEPAGE`, where the kernel offers them). Why: a direct write pins the
/// block's pages for the device, 512 of them per 2 MiB in 4 KiB pages (`gup_fast_fallback`, a
/// third of the writer thread's time), and the qlog writer formats into the block (one TLB entry
/// instead of 512). On a 1 GB traced run of the bench's path: 392 → 342 ns per data packet, the
/// writer thread's share of the samples 8.9 → 4.5 %.
pub(super) struct Block {
    /// The first byte, aligned.
    ptr: NonNull<u8>,
    len: usize,
    owner: Owner,
}

/// What holds a block's bytes.
enum Owner {
    /// Memory from the allocator, zeroed by it (`calloc`: fresh pages are not written).
    Heap(*mut [u8]),
    /// An anonymous mapping of `size` bytes at `base` (its first fault decides its page size, so
    /// the advice must come before any write: heap memory may have been written).
    Map { base: *mut libc::c_void, size: usize },
}

// SAFETY: a block owns its memory, as a `Box<[u8]>` would.
unsafe impl Send for Block {}

impl Block {
    /// A zeroed block of at least `len` bytes.
    pub(super) fn with_len(len: usize) -> Block {
        let len = len.div_ceil(ALIGN) * ALIGN;
        if len >= HUGE {
            if let Some(b) = Block::mapped(len) {
                return b;
            }
        }
        let raw = Box::into_raw(vec![0u8; len + ALIGN].into_boxed_slice());
        let base = raw.cast::<u8>();
        // SAFETY: the offset to the next aligned byte is under ALIGN, inside the allocation.
        let ptr = unsafe { base.add(base.align_offset(ALIGN)) };
        Block {
            ptr: NonNull::new(ptr).expect("allocations are not null"),
            len,
            owner: Owner::Heap(raw),
        }
    }

    /// A block in a mapping of its own, on huge pages if the kernel gives them; `None` if the
    /// mapping fails.
    fn mapped(len: usize) -> Option<Block> {
        let size = len + HUGE;
        // SAFETY: a new private anonymous mapping; no existing memory is affected.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let at = base.cast::<u8>();
        // SAFETY: the offset to the next HUGE-aligned byte is under HUGE, inside the mapping.
        let ptr = unsafe { at.add(at.align_offset(HUGE)) };
        // SAFETY: advice on a range of the mapping just made; it changes how it is backed only.
        unsafe { libc::madvise(ptr.cast(), len, libc::MADV_HUGEPAGE) };
        Some(Block {
            ptr: NonNull::new(ptr)?,
            len,
            owner: Owner::Map { base, size },
        })
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
        match self.owner {
            // SAFETY: made by `Box::into_raw` in `with_len`, dropped once.
            Owner::Heap(raw) => drop(unsafe { Box::from_raw(raw) }),
            // SAFETY: the mapping made in `mapped`, unmapped once.
            Owner::Map { base, size } => unsafe {
                libc::munmap(base, size);
            },
        }
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
        let mut huge = Block::with_len(HUGE);
        assert_eq!(huge.bytes().as_ptr() as usize % HUGE, 0);
        assert!(huge.bytes().iter().all(|&b| b == 0));
        huge.bytes_mut()[HUGE - 1] = 9;
        assert_eq!(huge.bytes()[HUGE - 1], 9);
    }
}
