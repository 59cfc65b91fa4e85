//! The switch, and huge pages for glibc's main heap while it is on.
//!
//! glibc grows its main heap with `brk`, and the kernel backs a 2 MiB-aligned range of it with one huge page only
//! if the whole range lies in a mapping advised `MADV_HUGEPAGE` when it is first touched (THP in `madvise` mode).
//! So on the first block after the switch turns on, three glibc parameters are set: grow the heap [`TOP_PAD`]
//! ahead of need, so each growth spans whole 2 MiB ranges; give memory back only past [`TRIM_THRESHOLD`] free at
//! the top, so the heap does not shrink and regrow across huge pages; and map blocks of [`MMAP_MIN`] bytes and more
//! on their own (rings and columns that grow by doubling then grow by `mremap`, without copies, in 4 KiB pages:
//! advising those too made the 10,000-flow dumbbell slower, 842 against 794 ns per packet, as they are written
//! once in order and a fresh huge page is slow to fault in). And whenever a block lands past the part of the heap
//! already advised, the heap is advised up to its current end (each `brk` growth is a new mapping, so each needs
//! its own advice). When the last [`HugePages`] is dropped, glibc's parameters go back to their documented defaults
//! and growth is no longer advised.
//!
//! The heap as it stood when the switch turned on (the scenario parsed, and the garbage of parsing it: 36 MB for
//! 10,000 flows, which the run's state fills first) is trimmed (`malloc_trim` gives its free pages back) and advised
//! from its start, so its free 2 MiB ranges fault in again as huge pages (20 of those 36 MB at 10,000 flows); live
//! 4 KiB pages stay (`MADV_COLLAPSE`, which copies them into huge pages, took 0.26 s for those 36 MB here: it paid
//! less than trimming, 807 against 794–806 ns per packet).
//!
//! Limits: other threads' arenas are mappings of their own and are left alone; the range advised stays advised
//! after the switch is off (a later regrowth into it, after glibc trimmed the heap, gets huge pages); and once the
//! switch was on, glibc no longer adjusts its mapping threshold by itself (setting any of these parameters turns
//! that off for the life of the process).

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

/// How far ahead of need glibc extends the heap while the switch is on, in bytes: the 2 MiB range a growth leaves
/// partly outside the heap stays in 4 KiB pages, one per growth, so larger steps leave fewer (address space only:
/// untouched pages cost nothing). s9-pages measured on the 1,000-flow dumbbell: 4 MiB −8..−14 % CPU, 8 MiB
/// −15..−18 %, 32 MiB −16..−20 %.
const TOP_PAD: usize = 32 << 20;

/// How much free memory may sit at the heap's top before glibc gives it back while the switch is on, in bytes.
const TRIM_THRESHOLD: usize = 64 << 20;

/// The smallest block, in bytes, that glibc maps on its own while the switch is on.
pub(crate) const MMAP_MIN: usize = 1 << 20;

/// glibc's defaults for the three parameters (mallopt(3)), restored when the switch turns off.
const GLIBC_DEFAULT: usize = 128 << 10;

/// Blocks at or past this address need a look (0: the switch just turned on; `usize::MAX`: it is off).
static NEXT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The switch's state; changes to it, and to `NEXT` past the initial load, happen under this lock.
static STATE: Mutex<State> = Mutex::new(State {
    holders: 0,
    glibc_set: false,
    from: 0,
    start: None,
});

struct State {
    /// How many [`HugePages`] are alive.
    holders: usize,
    /// glibc's parameters are this module's (set by the first block after the switch turned on, so a process
    /// whose global allocator is not [`crate::HugePageAlloc`] has them untouched).
    glibc_set: bool,
    /// The start of the heap range not advised yet.
    from: usize,
    /// Where the heap starts, if the kernel says.
    start: Option<usize>,
}

fn state() -> std::sync::MutexGuard<'static, State> {
    // The state stays consistent whatever panicked while holding it: every change is a single store.
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The process-wide switch: while one of these lives, glibc's main heap grows in huge pages.
///
/// Turn it on before allocating the state that should live in huge pages; several may live at once (runs on
/// several threads), and the switch turns off when the last one is dropped. It does nothing in a process whose
/// global allocator is not [`crate::HugePageAlloc`].
#[derive(Debug)]
#[must_use = "the switch turns off again when this is dropped"]
pub struct HugePages(());

impl HugePages {
    /// Turns the switch on (or keeps it on) until the returned value is dropped.
    pub fn on() -> HugePages {
        // Read here, where allocating is allowed, not in the allocator.
        let start = heap_start();
        let mut st = state();
        st.holders += 1;
        if st.holders == 1 {
            st.start = start;
            NEXT.store(0, Relaxed);
        }
        HugePages(())
    }
}

impl Drop for HugePages {
    fn drop(&mut self) {
        let mut st = state();
        st.holders -= 1;
        if st.holders == 0 {
            NEXT.store(usize::MAX, Relaxed);
            if st.glibc_set {
                set_glibc(GLIBC_DEFAULT, GLIBC_DEFAULT, GLIBC_DEFAULT);
                st.glibc_set = false;
            }
        }
    }
}

/// Whether the switch is on.
pub fn huge_pages_on() -> bool {
    NEXT.load(Relaxed) != usize::MAX
}

fn set_glibc(top_pad: usize, trim_threshold: usize, mmap_min: usize) {
    // SAFETY: mallopt only sets glibc parameters; every value is positive and fits an int.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, top_pad as libc::c_int);
        libc::mallopt(libc::M_TRIM_THRESHOLD, trim_threshold as libc::c_int);
        libc::mallopt(libc::M_MMAP_THRESHOLD, mmap_min as libc::c_int);
    }
}

/// Called with every block the system allocator hands out (null included): one load and compare while the switch
/// is off.
#[inline]
pub(crate) fn note(block: *mut u8) {
    if (block as usize) >= NEXT.load(Relaxed) {
        advise_to_end(block as usize);
    }
}

/// Sets glibc's parameters and advises the heap so far on the first block after the switch turned on, and advises
/// the heap grown since on later ones. Nothing here allocates, so taking the lock inside the allocator cannot
/// recurse; the lock is only ever held around `mallopt`, `malloc_trim`, `madvise` and `sbrk(0)`, which do not call
/// back into it.
#[cold]
fn advise_to_end(block: usize) {
    let mut st = state();
    if st.holders == 0 {
        return;
    }
    if !st.glibc_set {
        set_glibc(TOP_PAD, TRIM_THRESHOLD, MMAP_MIN);
        st.glibc_set = true;
        // SAFETY: malloc_trim only gives whole free pages back to the kernel; live blocks keep their contents.
        unsafe { libc::malloc_trim(0) };
        // SAFETY: as below.
        let end = unsafe { libc::sbrk(0) } as usize;
        if let Some(start) = st.start.filter(|&s| s < end) {
            let at = start & !(page_size() - 1);
            // SAFETY: `at..end` is the heap; advice changes no contents, and an error only means 4 KiB pages.
            unsafe { libc::madvise(at as *mut libc::c_void, end - at, libc::MADV_HUGEPAGE) };
        }
        st.from = end;
        NEXT.store(end, Relaxed);
        return;
    }
    // SAFETY: sbrk(0) only reads glibc's record of the heap's end (no system call).
    let end = unsafe { libc::sbrk(0) } as usize;
    // A block at or past the heap's end is in a mapping (another arena, a large block): not in the heap.
    if block >= end || end <= st.from {
        return;
    }
    let start = st.from & !(page_size() - 1);
    // SAFETY: `start..end` lies in the heap, between two of its past ends; advice changes no contents, and an error
    // (a kernel without transparent huge pages) only means no huge pages.
    unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    st.from = end;
    NEXT.store(end, Relaxed);
}

/// Where the heap starts: `start_brk`, field 47 of `/proc/self/stat` (Linux 3.5+).
fn heap_start() -> Option<usize> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields from the third on follow the last ')' (the second, the command, may hold spaces and parentheses).
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(47 - 3)?.parse().ok()
}

fn page_size() -> usize {
    // SAFETY: sysconf only reads a system constant.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}
