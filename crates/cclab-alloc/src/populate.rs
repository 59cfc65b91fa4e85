//! Grown memory's pages faulted in at once, writable, rather than one fault at a time as they are first written.
//!
//! A fresh 4 KiB page costs the kernel its allocation, its memory-cgroup charge and its clearing whichever way it
//! comes; faulted in by a write it also costs a trap that stops the simulation's thread (on the VM this was
//! measured on ~1.5–2.4 µs a page one by one against ~1.0 µs asked for in a range by
//! `madvise(MADV_POPULATE_WRITE)`, Linux 5.14). Growth is memory a program is about to write, so it is populated:
//! - glibc's main heap, which grows by `brk` in small steps (the request plus glibc's 128 KiB of top padding),
//!   only when no free block fits: the new range is where the next blocks are carved from (at 100,000 packets of
//!   BDP the ACK frames' range buffers, the resend queue and the range sets: ~5,000 of 8,800 faults);
//! - a block's new part when it grows by [`GROWN_MIN`] or more: rings (a link's, the sent packets', which lap
//!   their whole capacity) and lists that double as they fill. A list whose growth stops soon after leaves part of
//!   its new half populated but unused: at 100,000 packets of BDP, 1.3 MB of 70 MB.
//!
//! While the many-flow switch is on ([`crate::HugePages`]) the heap's growth is left alone: it grows 32 MiB ahead
//! of need in huge pages there. Where the kernel refuses the advice, pages fault in one by one as before.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// Blocks within [`LOOK_SPAN`] bytes at or past this address need a look: the heap's end when last looked at
/// (0 before the first look, when every block needs one).
static LOOK_FROM: AtomicUsize = AtomicUsize::new(0);

/// How far past [`LOOK_FROM`] a block is taken for one of the heap's (`usize::MAX` before the first look). One
/// growth of glibc's heap is below its largest mapping threshold (32 MiB) plus the padding; blocks past that
/// are in mappings (other arenas, large blocks) far above the heap, and need no look.
static LOOK_SPAN: AtomicUsize = AtomicUsize::new(usize::MAX);

/// What `LOOK_SPAN` becomes after the first look.
const SPAN: usize = 64 << 20;

/// The least growth of a block, in bytes, whose new part is populated at once: a ring's or a list's doubling
/// from 64 KiB on (smaller ones are a few pages, and their next blocks' pages come with the heap's growth).
const GROWN_MIN: usize = 64 << 10;

/// Whether a block grown from `old` to `new` bytes has its new part populated.
#[inline]
pub(crate) fn grown_past(old: usize, new: usize) -> bool {
    new.saturating_sub(old) >= GROWN_MIN
}

/// Called with every block of `size` bytes glibc hands out (null included): two loads, a subtraction and a
/// compare, unless the block ends past the heap's end when last looked at (the heap grew for it, or before it).
#[inline]
pub(crate) fn note_heap(block: *mut u8, size: usize) {
    let end = (block as usize).wrapping_add(size);
    if end.wrapping_sub(LOOK_FROM.load(Relaxed)) < LOOK_SPAN.load(Relaxed) {
        heap_grew(block as usize, end);
    }
}

/// Populates the heap from its end when last looked at to its end now, for a block at `block..end`. The first
/// look only notes the end: the heap before it (the program's start-up) is written already; and a heap glibc trimmed
/// below that end refaults one page at a time until it grows past it again (at BDP 100k glibc trimmed 1.3 of 18 MB).
/// A block that lies
/// past the heap's end is in a mapping: glibc puts its main heap's growth in mappings when `brk` fails (under
/// valgrind, or with a mapping right above the heap), and the blocks carved from them would be looked at one
/// by one; the span then shrinks to end below the block, so they are not (the heap cannot grow past it).
#[cold]
fn heap_grew(block: usize, end: usize) {
    // SAFETY: sbrk(0) only reads glibc's record of the heap's end (no system call).
    let heap_end = unsafe { libc::sbrk(0) } as usize;
    let first = LOOK_SPAN.load(Relaxed) == usize::MAX;
    if end > heap_end && !first {
        LOOK_SPAN.store(block.saturating_sub(LOOK_FROM.load(Relaxed)), Relaxed);
        return;
    }
    let from = LOOK_FROM.swap(heap_end, Relaxed);
    if first {
        LOOK_SPAN.store(SPAN, Relaxed);
    }
    if first || heap_end <= from || crate::huge_pages_on() {
        return;
    }
    populate(from, heap_end);
}

/// Faults in, writable, the pages of `from..to` that are not yet.
pub(crate) fn populate(from: usize, to: usize) {
    let start = from & !(crate::mapped::PAGE - 1);
    if to <= start {
        return;
    }
    // SAFETY: MADV_POPULATE_WRITE faults pages in as a write would, without writing (contents stay as they are,
    // zero for fresh pages); an error (an old kernel, a range another thread trimmed meanwhile) only leaves pages
    // to fault in later.
    unsafe { libc::madvise(start as *mut libc::c_void, to - start, libc::MADV_POPULATE_WRITE) };
}
