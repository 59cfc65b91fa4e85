//! Blocks aligned past glibc's 16 bytes and of 1 MiB or more (a link's ring of cache-line packets): each lives in
//! a mapping of its own that grows by moving its pages, so a doubling neither copies the block nor faults its old
//! part in again. A plain `main` (no libtest harness), so that no other thread's page faults are counted.

use cclab_alloc::HugePageAlloc;
use std::collections::VecDeque;

#[global_allocator]
static GLOBAL: HugePageAlloc = HugePageAlloc;

/// One cache line, as the simulator's `InFlight`.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u64; 8]);

/// Minor page faults of this thread so far.
fn faults() -> i64 {
    // SAFETY: getrusage only writes the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; RUSAGE_THREAD is Linux's, and the test runs on Linux only.
    assert_eq!(unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) }, 0);
    u.ru_minflt
}

/// A full ring of `n` lines grows to twice that: every line keeps its place, alignment and contents, and the pages
/// of the old part are not faulted in again (a copy into a new block would fault each of them).
fn doubling_moves_pages(n: usize) {
    let mut q: VecDeque<Line> = VecDeque::with_capacity(n);
    // Wrapped when it grows: pop a quarter from the front and push as many behind.
    for i in 0..n {
        q.push_back(Line([i as u64; 8]));
    }
    for i in n..n + n / 4 {
        q.pop_front();
        q.push_back(Line([i as u64; 8]));
    }
    assert_eq!(q.len(), q.capacity().min(n));
    let before = faults();
    q.push_back(Line([(n + n / 4) as u64; 8]));
    let after = faults();
    let pages = n * 64 / 4096;
    // The new half's pages are populated at once (`populate`, counted as faults too), and VecDeque moves the shorter
    // wrapped part (a quarter of the ring) into them; a copy would fault the old part's as many again.
    assert!(
        after - before <= (pages + 8) as i64,
        "{n} lines ({pages} pages) grew with {} page faults: the block was copied",
        after - before
    );
    for (k, line) in q.iter().enumerate() {
        assert_eq!(line as *const Line as usize % 64, 0, "line {k} off its cache line");
        assert_eq!(line.0, [(n / 4 + k) as u64; 8], "line {k} lost its contents");
    }
}

fn main() {
    // 1 MiB to 2 MiB, and 8 MiB to 16 MiB, as BDP 100k's link ring does.
    doubling_moves_pages(16_384);
    doubling_moves_pages(131_072);
    // Across the threshold both ways, and blocks below it (glibc's), keep their contents.
    let mut v: Vec<Line> = Vec::with_capacity(8192);
    for i in 0..32_768 {
        v.push(Line([i; 8]));
    }
    v.truncate(100);
    v.shrink_to_fit();
    assert!(v.iter().enumerate().all(|(i, l)| l.0 == [i as u64; 8]));
    let z: Vec<Line> = vec![Line([0; 8]); 32_768];
    assert!(z.iter().all(|l| l.0 == [0; 8]));
    println!("mapped: ok");
}
