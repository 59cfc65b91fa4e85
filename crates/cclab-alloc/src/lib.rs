//! cclab-alloc: the global allocator of `cclab-bench` and the Python extension.
//!
//! It is the system allocator (glibc's malloc), plus a process-wide switch, [`HugePages`], that the simulator turns
//! on while it runs a network with many flows (`cclab-sim`'s `run/build.rs` says how many). While it is on, glibc's
//! main heap, where the small per-flow blocks live, grows in transparent huge pages (`heap`): thousands of flows'
//! state then shares one TLB entry per 2 MiB instead of one per 4 KiB. Everything else keeps 4 KiB pages: a fresh
//! 2 MiB page costs ~1.7 ms to fault in on the VM this was measured on (2–6× a 4 KiB page per MB), which made
//! one-flow runs with large buffers (BDP 100k: ~80 MB of sent records) and short runs slower whenever the policy
//! was process-wide. With the switch never turned on, the allocator is `System` plus one load and compare per
//! allocation: glibc's parameters are not touched and nothing is advised. Without transparent huge pages (`never`,
//! or a kernel without them) the advice is ignored. Blocks of 1 MiB and more aligned past glibc's 16 bytes (a link's
//! ring of cache-line packets) are mapped on their own and grow by `mremap` (`mapped`), as glibc's own large blocks
//! do, rather than by a copy into a new block. Memory that grows (glibc's heap, a block grown by 64 KiB or more) has
//! its new pages faulted in with one request rather than a fault per page (`populate`). All `unsafe` code of the
//! workspace's allocator is here.

mod heap;
mod mapped;
mod populate;

pub use heap::{huge_pages_on, HugePages};
use mapped::GLIBC_ALIGN;
use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator whose main heap takes huge pages while [`HugePages`] is on; use as `#[global_allocator]`.
#[derive(Debug, Default, Clone, Copy)]
pub struct HugePageAlloc;

// SAFETY: every call is forwarded unchanged to `System`, which upholds the `GlobalAlloc` contract, except for
// layouts `mapped` serves: whole anonymous mappings, aligned to a page (at least the layout's alignment, which
// `mapped::is_mapped` bounds), zeroed when new, freed and resized by the same layout test, so a block never
// changes hands between the two. `heap::note` only reads the returned pointer's address (null included) and
// never touches the block.
unsafe impl GlobalAlloc for HugePageAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if mapped::layout_mapped(layout) {
            // SAFETY: the layout's size is non-zero (past the mapped threshold).
            return unsafe { mapped::map(layout.size()) };
        }
        // SAFETY: the caller's contract (non-zero size) is `System`'s.
        let block = unsafe { System.alloc(layout) };
        heap::note(block);
        populate::note_heap(block, layout.size());
        block
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if mapped::layout_mapped(layout) {
            // SAFETY: as in `alloc`; a new anonymous mapping reads as zeros.
            return unsafe { mapped::map(layout.size()) };
        }
        // SAFETY: as in `alloc`.
        let block = unsafe { System.alloc_zeroed(layout) };
        heap::note(block);
        populate::note_heap(block, layout.size());
        block
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if mapped::layout_mapped(layout) {
            // SAFETY: a block of this layout came from `mapped::map` or `mapped::remap` with its size.
            return unsafe { mapped::unmap(ptr, layout.size()) };
        }
        // SAFETY: `ptr` came from `System` with `layout` (every other block of this allocator does).
        unsafe { System.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let (was, will) = (
            mapped::layout_mapped(layout),
            mapped::is_mapped(new_size, layout.align()),
        );
        if !was && !will {
            if populate::grown_past(layout.size(), new_size) && layout.align() > GLIBC_ALIGN {
                // What `System` does for such a block (glibc's `realloc` keeps only 16 bytes of alignment), with the
                // new block's pages populated before the copy writes them.
                // SAFETY: as in the copy across the threshold below.
                return unsafe { self.grow_by_copy(ptr, layout, new_size) };
            }
            // SAFETY: `ptr` came from `System` with `layout`; the caller's contract on `new_size` is `System`'s.
            let block = unsafe { System.realloc(ptr, layout, new_size) };
            heap::note(block);
            populate::note_heap(block, new_size);
            if populate::grown_past(layout.size(), new_size) && !block.is_null() {
                populate::populate(block as usize + layout.size(), block as usize + new_size);
            }
            return block;
        }
        if was && will {
            // SAFETY: `ptr` came from `mapped` with `layout`'s size; `new_size` is past the threshold, so non-zero.
            return unsafe { mapped::remap(ptr, layout.size(), new_size) };
        }
        // Across the threshold: a block from the other side, the contents copied, the old block freed.
        // SAFETY: the caller's contract.
        unsafe { self.grow_by_copy(ptr, layout, new_size) }
    }
}

impl HugePageAlloc {
    /// A new block of `new_size` bytes with `ptr`'s contents (as far as both reach), `ptr` freed; a larger block's
    /// pages populated first when it grew by enough ([`populate::grown_past`]), so the copy and the writes after it
    /// take no fault each. Null, with `ptr` unchanged, if no block could be had.
    ///
    /// # Safety
    /// `realloc`'s contract: `ptr` came from this allocator with `layout`, `new_size` is non-zero and, rounded up
    /// to `layout.align()`, fits an `isize`.
    unsafe fn grow_by_copy(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size`, rounded up to `layout.align()`, fits an `isize`.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: `new_size` is non-zero (the caller's contract).
        let block = unsafe { self.alloc(new_layout) };
        if !block.is_null() {
            if populate::grown_past(layout.size(), new_size) {
                populate::populate(block as usize, block as usize + new_size);
            }
            // SAFETY: both blocks are valid for the shorter length and distinct; `ptr` was allocated with `layout`.
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, block, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        block
    }
}
