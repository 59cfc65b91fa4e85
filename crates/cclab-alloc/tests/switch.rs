//! The switch in a process of its own, whose main thread allocates as `cclab-bench` and `cclab run` do: heap that
//! grows while the switch is off is not advised; blocks allocated while it is on lie in advised heap (the heap as
//! it stood is advised too) and, where transparent huge pages are available, largely in huge pages; heap that grows
//! after it turned off again (past the free top it left) is not advised. A plain `main` (no libtest harness), so
//! the blocks come from glibc's main heap.

use cclab_alloc::{huge_pages_on, HugePageAlloc, HugePages};

#[global_allocator]
static GLOBAL: HugePageAlloc = HugePageAlloc;

/// What `/proc/self/smaps` says about one mapping.
#[derive(Debug, Clone)]
struct Mapping {
    /// Its addresses.
    range: (usize, usize),
    /// Its name is `[heap]`.
    heap: bool,
    /// `VmFlags` has `hg` (advised `MADV_HUGEPAGE`).
    advised: bool,
    /// `AnonHugePages`, in kB.
    huge_kb: u64,
}

/// The range `start..end` of a `/proc/self/smaps` header line.
fn range(line: &str) -> Option<(usize, usize)> {
    let (start, rest) = line.split_once('-')?;
    let end = rest.split_whitespace().next()?;
    Some((
        usize::from_str_radix(start, 16).ok()?,
        usize::from_str_radix(end, 16).ok()?,
    ))
}

/// Every mapping of the process, read once.
fn mappings() -> Vec<Mapping> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").expect("/proc/self/smaps is readable");
    let mut all: Vec<Mapping> = Vec::new();
    for l in smaps.lines() {
        if let Some(v) = l.strip_prefix("AnonHugePages:") {
            let kb = v
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .expect("AnonHugePages in kB");
            all.last_mut().expect("a mapping's header first").huge_kb = kb;
        } else if let Some(flags) = l.strip_prefix("VmFlags:") {
            all.last_mut().expect("a mapping's header first").advised = flags.split_whitespace().any(|f| f == "hg");
        } else if let Some(r) = range(l).filter(|_| !l.contains(": ")) {
            all.push(Mapping {
                range: r,
                heap: l.ends_with("[heap]"),
                advised: false,
                huge_kb: 0,
            });
        }
    }
    all
}

fn mapping_of(all: &[Mapping], addr: usize) -> &Mapping {
    all.iter()
        .find(|m| m.range.0 <= addr && addr < m.range.1)
        .expect("the address is in a mapping")
}

/// Why huge pages cannot show up in this process, if they cannot.
fn thp_unavailable() -> Option<String> {
    let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    if !(thp.contains("[madvise]") || thp.contains("[always]")) {
        return Some(format!("transparent huge pages are {:?}", thp.trim()));
    }
    // `prctl(PR_SET_THP_DISABLE)` (inherited from the parent) turns them off for this process alone.
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if status
        .lines()
        .any(|l| l.replace(char::is_whitespace, "") == "THP_enabled:0")
    {
        return Some("transparent huge pages are disabled for this process".into());
    }
    None
}

/// 64 MB of 4 KiB blocks written through, as a run's per-flow state is: more than twice what glibc keeps free at
/// the heap's top while the switch is on, so the last block lies in heap grown for these blocks.
fn grow_heap() -> Vec<Box<[u8; 4096]>> {
    (0..16_384).map(|i| Box::new([i as u8; 4096])).collect()
}

/// Checks that the heap holding the newest of `blocks` is neither advised nor in huge pages; `when` says why it
/// should not be.
fn assert_last_not_advised(blocks: &[Box<[u8; 4096]>], when: &str) {
    let m = mapping_of(&mappings(), blocks.last().unwrap().as_ptr() as usize).clone();
    assert!(
        m.heap,
        "a 4 KiB block of the main thread should be in glibc's main heap: {m:?}"
    );
    assert!(!m.advised && m.huge_kb == 0, "{when}, yet the heap is advised: {m:?}");
}

fn main() {
    assert!(!huge_pages_on());
    let before = grow_heap();
    assert_last_not_advised(&before, "the switch was never on");
    println!("test heap_grown_before_the_switch_is_not_advised ... ok");

    let switch = HugePages::on();
    let nested = HugePages::on();
    assert!(huge_pages_on());
    let during = grow_heap();
    // Each growth of the heap is a mapping of its own: add up those that hold the blocks.
    let all = mappings();
    let mut seen = Vec::new();
    let mut huge_kb = 0;
    for b in &during {
        let m = mapping_of(&all, b.as_ptr() as usize);
        assert!(
            m.heap && m.advised,
            "the switch is on, yet heap it holds blocks in is not advised: {m:?}"
        );
        if !seen.contains(&m.range) {
            seen.push(m.range);
            huge_kb += m.huge_kb;
        }
    }
    match thp_unavailable() {
        // 64 MB in 32 MiB growth steps: all but the first and last 2 MiB range of each step can be huge.
        None => assert!(
            huge_kb >= 32 << 10,
            "the heap grown under the switch has {huge_kb} kB in huge pages"
        ),
        Some(why) => println!("{why}: huge pages not checked"),
    }
    println!("test heap_grown_while_the_switch_is_on_is_in_huge_pages ... ok");

    drop(nested);
    assert!(huge_pages_on(), "one holder is left");
    drop(switch);
    assert!(!huge_pages_on());
    let after = grow_heap();
    assert_last_not_advised(&after, "the switch is off again");
    println!("test heap_grown_after_the_switch_is_off_is_not_advised ... ok");

    for (i, blocks) in [&before, &during, &after].into_iter().enumerate() {
        assert!(
            blocks.iter().enumerate().all(|(j, b)| b.iter().all(|&x| x == j as u8)),
            "contents of set {i}"
        );
    }
    println!("3 passed, 0 failed");
}
