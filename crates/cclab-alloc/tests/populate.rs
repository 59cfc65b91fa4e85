//! Grown memory's pages are faulted in at once: glibc's main heap as it grows, and a block's new part when it
//! grows by 64 KiB or more, whether glibc grows it (16-byte alignment), this allocator copies it (a ring of
//! cache-line records below 1 MiB) or moves its mapping (1 MiB and more; the blocks below that may lie in the heap's
//! populated growth, depending on glibc's own mapping threshold). Checked with `mincore`: a page nothing
//! wrote is resident only if it was populated. A plain `main` (no libtest harness), so the blocks come from glibc's
//! main heap; a kernel without `MADV_POPULATE_WRITE` (before Linux 5.14) is told apart and only reported.

use cclab_alloc::HugePageAlloc;

#[global_allocator]
static GLOBAL: HugePageAlloc = HugePageAlloc;

const PAGE: usize = 4096;

/// One cache line, as the simulator's `InFlight` and sent records.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u64; 8]);

/// How many of the whole pages within `from..to` are resident.
fn resident(from: usize, to: usize) -> (usize, usize) {
    let start = from.next_multiple_of(PAGE);
    let end = to & !(PAGE - 1);
    if end <= start {
        return (0, 0);
    }
    let mut vec = vec![0u8; (end - start) / PAGE];
    // SAFETY: `start..end` is page-aligned memory of this process (a block's part, or the heap below its end);
    // mincore only writes one byte per page into `vec`, which has one per page.
    let r = unsafe { libc::mincore(start as *mut libc::c_void, end - start, vec.as_mut_ptr()) };
    assert_eq!(r, 0, "mincore {start:#x}..{end:#x}");
    (vec.iter().filter(|&&b| b & 1 == 1).count(), vec.len())
}

/// Whether this kernel populates ranges on request (Linux 5.14+).
fn kernel_populates() -> bool {
    let mut probe = vec![0u8; 4 * PAGE];
    let at = (probe.as_mut_ptr() as usize).next_multiple_of(PAGE);
    // SAFETY: one page inside `probe`, which this function holds; the advice writes nothing.
    unsafe { libc::madvise(at as *mut libc::c_void, PAGE, libc::MADV_POPULATE_WRITE) == 0 }
}

#[track_caller]
fn check(what: &str, (res, all): (usize, usize), populates: bool) {
    if populates {
        assert_eq!(res, all, "{what}: {res} of {all} unwritten pages resident");
    } else {
        println!("populate: {what}: {res} of {all} pages resident (the kernel does not populate)");
    }
}

/// Small blocks until glibc's heap grows: its new range, beyond the blocks written so far, is resident.
fn heap_growth(populates: bool) {
    // SAFETY: sbrk(0) only reads glibc's record of the heap's end.
    let end = || unsafe { libc::sbrk(0) } as usize;
    let before = end();
    let mut kept = Vec::with_capacity(1 << 16);
    while end() == before {
        kept.push(Box::new([0u8; 200]));
    }
    let last = &**kept.last().expect("blocks") as *const [u8; 200] as usize;
    // The range past the last block written: the rest of the growth, which only the request faulted in.
    check("heap growth", resident(last + 4 * PAGE, end()), populates);
}

/// A block grown from `n` to `2 n` elements: the new part, never written, is resident.
fn block_growth<T: Copy>(what: &str, fill: T, n: usize, populates: bool) {
    let mut v: Vec<T> = Vec::with_capacity(n);
    v.resize(n, fill);
    v.reserve_exact(n);
    let base = v.as_ptr() as usize;
    let size = size_of::<T>();
    check(what, resident(base + n * size, base + 2 * n * size), populates);
    v.resize(2 * n, fill);
    assert_eq!(v.len(), 2 * n);
}

fn main() {
    let populates = kernel_populates();
    heap_growth(populates);
    // glibc's realloc of its own mapped block (16-byte alignment): 256 KiB to 512 KiB.
    block_growth("u64 list", 7u64, 32_768, populates);
    // Cache-line records below 1 MiB, copied here: 256 KiB to 512 KiB.
    block_growth("line ring", Line([3; 8]), 4_096, populates);
    // Cache-line records in a mapping of their own, moved by mremap: 1 MiB to 2 MiB.
    block_growth("mapped line ring", Line([5; 8]), 16_384, populates);
    println!("populate: ok");
}
