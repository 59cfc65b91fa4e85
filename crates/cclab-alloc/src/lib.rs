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
//! or a kernel without them) the advice is ignored. All `unsafe` code of the workspace's allocator is here.

mod heap;

pub use heap::{huge_pages_on, HugePages};
use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator whose main heap takes huge pages while [`HugePages`] is on; use as `#[global_allocator]`.
#[derive(Debug, Default, Clone, Copy)]
pub struct HugePageAlloc;

// SAFETY: every call is forwarded unchanged to `System`, which upholds the `GlobalAlloc` contract; `heap::note`
// only reads the returned pointer's address (null included) and never touches the block.
unsafe impl GlobalAlloc for HugePageAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract (non-zero size) is `System`'s.
        let block = unsafe { System.alloc(layout) };
        heap::note(block);
        block
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        let block = unsafe { System.alloc_zeroed(layout) };
        heap::note(block);
        block
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with `layout` (every block of this allocator does).
        unsafe { System.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from `System` with `layout`; the caller's contract on `new_size` is `System`'s.
        let block = unsafe { System.realloc(ptr, layout, new_size) };
        heap::note(block);
        block
    }
}
