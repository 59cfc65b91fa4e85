//! Large blocks aligned past glibc's 16 bytes, each in a mapping of its own that grows by `mremap`.
//!
//! glibc keeps its own large blocks (128 KiB and more by default, 1 MiB under the many-flow switch) in mappings of their own and grows them with
//! `mremap`, which moves their pages rather than copying them. Rust's `System` allocator hands glibc only blocks
//! aligned to at most 16 bytes to `realloc`: a block aligned past that (a link's ring of 64-byte `InFlight`
//! packets, each on a cache line of its own) grows by allocating a new block, copying and freeing the old one.
//! At 100,000 packets of BDP (1 GB at 10 Gbit/s) a link ring's doublings copied ~8 MB that way, and the copies
//! wrote the first half of each new block: 2,350 of the run's 20,500 page faults, each ~2.5-3 µs of kernel time on
//! the VM this was measured on, and as many pages freed again with the old blocks. A mapping is aligned to a page,
//! so such blocks are mapped here and grow by `mremap`: the old part's pages move, and only the new part is faulted
//! in, at once (`populate`; docs/performance.md, sessions 24 and 26).

use std::alloc::Layout;

/// The smallest block mapped on its own here, in bytes: the threshold glibc maps its own blocks from while the
/// many-flow switch is on (`heap::MMAP_MIN`; 128 KiB otherwise), so no block that lay in huge pages leaves them.
/// Whether a block is mapped depends on its layout alone, which `dealloc` and `realloc` are given again.
const MAPPED_MIN: usize = crate::heap::MMAP_MIN;

/// The alignment glibc's `malloc` gives every block on x86-64 and AArch64 (and Rust's `System` relies on).
pub(crate) const GLIBC_ALIGN: usize = 16;

/// The alignment a mapping is sure to have: the smallest page size of the targets this runs on.
pub(crate) const PAGE: usize = 4096;

/// Whether a block of this layout lives in a mapping of its own.
#[inline]
pub(crate) fn is_mapped(size: usize, align: usize) -> bool {
    size >= MAPPED_MIN && align > GLIBC_ALIGN && align <= PAGE
}

/// The length of the mapping that holds `size` bytes: whole pages.
fn mapping_len(size: usize) -> usize {
    size.next_multiple_of(PAGE)
}

/// A new mapping of at least `size` bytes, zeroed, or null.
///
/// # Safety
/// `size` is non-zero.
pub(crate) unsafe fn map(size: usize) -> *mut u8 {
    // SAFETY: an anonymous private mapping at an address of the kernel's choosing touches no existing memory.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            mapping_len(size),
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        std::ptr::null_mut()
    } else {
        p.cast()
    }
}

/// Unmaps a block [`map`] or [`remap`] returned for `size` bytes.
///
/// # Safety
/// `ptr` is such a block, of `size` bytes, and nothing uses it afterwards.
pub(crate) unsafe fn unmap(ptr: *mut u8, size: usize) {
    // SAFETY: the caller's contract: `ptr..ptr + mapping_len(size)` is one mapping of ours. An error could only
    // leave the pages mapped, which leaks them and nothing else.
    unsafe { libc::munmap(ptr.cast(), mapping_len(size)) };
}

/// Grows or shrinks a block [`map`] returned for `old` bytes to `new` bytes, moving its pages (and the mapping,
/// if it cannot grow where it lies); null, with the block unchanged, if the kernel refuses.
///
/// # Safety
/// `ptr` is such a block, of `old` bytes; `new` is non-zero. On success `ptr` is no longer valid.
pub(crate) unsafe fn remap(ptr: *mut u8, old: usize, new: usize) -> *mut u8 {
    // SAFETY: the caller's contract: `ptr..ptr + mapping_len(old)` is one mapping of ours; with MREMAP_MAYMOVE the
    // kernel picks a free range if it must move it, and leaves the old mapping untouched when it fails.
    let p = unsafe { libc::mremap(ptr.cast(), mapping_len(old), mapping_len(new), libc::MREMAP_MAYMOVE) };
    if p == libc::MAP_FAILED {
        return std::ptr::null_mut();
    }
    if crate::populate::grown_past(old, new) {
        // The new part's pages at once (`populate`): a ring laps all of it.
        crate::populate::populate(p as usize + mapping_len(old), p as usize + mapping_len(new));
    }
    p.cast()
}

/// Whether `layout`'s block is mapped here (the same test for a block's allocation and its release).
#[inline]
pub(crate) fn layout_mapped(layout: Layout) -> bool {
    is_mapped(layout.size(), layout.align())
}
