//! The run's trace writer thread: it writes the blocks of every direct trace file
//! ([`DirectFile`]) in the order they were handed over, from a bounded pool of aligned blocks.
//!
//! One thread per run, whatever its number of files: the simulation hands over a full block
//! and goes on while the disk takes it. Memory stays bounded by [`DIRECT_BUDGET_BYTES`]: each
//! direct file's writer fills one block, and the pool makes at most one more per direct file
//! (a short-lived partial block at close) and [`QUEUED_BLOCKS`] for the queue; when none is free
//! the simulation waits for the disk (wall time, not CPU). A run with more traces than the
//! budget has blocks for writes the rest buffered (a 1,000-flow run has 2,000 traces).

use super::block::{Block, ALIGN};
use super::direct::{DirectFile, Shared};
use super::sink::QlogSink;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

/// Bytes of one direct write: with the writer's slack, a block is 512 KiB ([`Block`]). `O_DIRECT`
/// costs the kernel ~0.10 ns per byte in 256 KiB writes, ~0.04 in 1 MiB ones and ~0.02 in 4 MiB
/// ones (ext4 here; a buffered write ~0.17), but the kernel is not where a traced run's time goes:
/// the text's memory is. A one-flow run cycles five blocks through its two traces, and the larger
/// they are, the further from the core each new line of text is found (the same records formatted
/// into one reused 2 MiB block per trace and never written: 1.54–1.60× qlog off; into five cycling
/// ones: 1.74–1.86×, as written). Within-round medians of on/off over 81 interleaved rounds of
/// `cclab-bench`'s 200 MB case (load 4–5.7), against 2 MiB blocks' 1.83–1.85×: 512 KiB
/// 1.69–1.72× (lower in 51 and 53 of the 81 rounds), 1 MiB 1.73–1.75×, 256 KiB 1.79× (the
/// kernel's cost per write takes back what the smaller footprint gives).
pub(super) const BLOCK_BYTES: usize = (512 << 10) - super::CHUNK_SLACK;

/// Bytes of a block as the pool makes it: [`BLOCK_BYTES`] and the room a qlog writer keeps past
/// its chunk for the record that crosses it.
pub(super) const POOL_BLOCK_BYTES: usize = BLOCK_BYTES + super::CHUNK_SLACK;

/// Memory of a run's blocks at most: two per direct file and [`QUEUED_BLOCKS`]; as many direct
/// files as with the 2 MiB blocks this budget was set for (32 MiB then).
const DIRECT_BUDGET_BYTES: usize = 8 << 20;

/// Blocks the pool may make beyond two per direct file: one, so that the disk takes a block while
/// every direct file fills its next. Each block made is fresh memory the run faults in; 4 were
/// no faster in steady state (`cclab-bench --qlog`) and cost more at the start of a short run.
const QUEUED_BLOCKS: usize = 1;

/// Direct files a run opens at most (7 with 512 KiB blocks).
const MAX_DIRECT_FILES: usize = (DIRECT_BUDGET_BYTES / POOL_BLOCK_BYTES - QUEUED_BLOCKS) / 2;

/// The blocks of a run: free ones, and how many exist.
struct Pool {
    /// Free blocks, blocks made, and how many may be made: one per direct file and
    /// [`QUEUED_BLOCKS`].
    state: Mutex<(Vec<Block>, usize, usize)>,
    returned: Condvar,
}

impl Pool {
    /// A free block, a new one while under the cap, or else the next one the thread returns.
    fn take(&self) -> Block {
        let mut st = self.state.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(b) = st.0.pop() {
                return b;
            }
            if st.1 < st.2 {
                st.1 += 1;
                return Block::with_len(POOL_BLOCK_BYTES);
            }
            st = self.returned.wait(st).unwrap_or_else(|p| p.into_inner());
        }
    }

    fn give(&self, b: Block) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).0.push(b);
        self.returned.notify_one();
    }
}

/// Work for the thread.
pub(super) enum Job {
    /// The first `len` bytes of `block` at `offset`, a multiple of [`ALIGN`].
    Write {
        file: Arc<Shared>,
        offset: u64,
        block: Block,
        len: usize,
    },
    /// The first `len` bytes of `block` (if any), the file's last, at `offset`; then its close.
    Close {
        file: Arc<Shared>,
        offset: u64,
        block: Option<Block>,
        len: usize,
        reply: mpsc::SyncSender<io::Result<()>>,
    },
    /// Everything before it is done: the thread ends.
    Exit,
}

/// What a direct file holds of the run's writer: where jobs go and where blocks come from.
#[derive(Clone)]
pub(super) struct TraceIo {
    jobs: mpsc::Sender<Job>,
    pool: Arc<Pool>,
}

impl TraceIo {
    pub(super) fn send(&self, job: Job) -> Result<(), mpsc::SendError<Job>> {
        self.jobs.send(job)
    }

    pub(super) fn take_block(&self) -> Block {
        self.pool.take()
    }
}

/// The run's trace writer: opens trace files, direct while the budget allows, and owns the thread
/// that writes them. [`TraceWriter::finish`] ends it and returns the thread's CPU time.
pub struct TraceWriter {
    io: TraceIo,
    thread: Option<JoinHandle<u64>>,
    /// Direct files opened so far.
    direct_files: usize,
}

impl TraceWriter {
    /// Starts the thread.
    pub fn start() -> io::Result<TraceWriter> {
        let (jobs, queue) = mpsc::channel();
        let pool = Arc::new(Pool {
            state: Mutex::new((Vec::new(), 0, QUEUED_BLOCKS)),
            returned: Condvar::new(),
        });
        let thread_pool = pool.clone();
        let thread = std::thread::Builder::new()
            .name("cclab-trace-io".into())
            .spawn(move || serve(queue, &thread_pool))?;
        Ok(TraceWriter {
            io: TraceIo { jobs, pool },
            thread: Some(thread),
            direct_files: 0,
        })
    }

    /// Creates (or truncates) the plain trace file `path`: direct while the budget has blocks for
    /// it and the file system takes `O_DIRECT`, buffered otherwise.
    pub fn create(&mut self, path: &Path) -> io::Result<QlogSink> {
        if self.direct_files < MAX_DIRECT_FILES {
            if let Some(f) = DirectFile::create(path, &self.io)? {
                self.direct_files += 1;
                self.io.pool.state.lock().unwrap_or_else(|p| p.into_inner()).2 += 1;
                return Ok(QlogSink::Direct(f));
            }
        }
        Ok(QlogSink::Plain(File::create(path)?))
    }

    /// Lets the thread write what was handed over (every file should be closed by now), ends it
    /// and returns its CPU time in ns: the run counts it as its own.
    pub fn finish(mut self) -> u64 {
        self.stop()
    }

    fn stop(&mut self) -> u64 {
        let Some(thread) = self.thread.take() else { return 0 };
        let _ = self.io.send(Job::Exit);
        thread.join().unwrap_or(0)
    }
}

impl Drop for TraceWriter {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The thread: jobs in order until `Exit`; returns its CPU time in ns.
fn serve(queue: mpsc::Receiver<Job>, pool: &Pool) -> u64 {
    for job in queue {
        match job {
            Job::Write {
                file,
                offset,
                block,
                len,
            } => {
                if no_error(&file) {
                    if let Err(e) = write_direct(&file.file, &block.bytes()[..len], offset) {
                        fail(&file, e);
                    }
                }
                pool.give(block);
            }
            Job::Close {
                file,
                offset,
                block,
                len,
                reply,
            } => {
                let mut r = Ok(());
                if let Some(block) = block {
                    if no_error(&file) {
                        r = write_tail(&file.file, &block.bytes()[..len], offset);
                    }
                    pool.give(block);
                }
                // The file closes as its last holder drops it; a plain file's close reports nothing either.
                let _ = reply.send(r);
            }
            Job::Exit => break,
        }
    }
    crate::run::thread_cpu_ns().unwrap_or(0)
}

fn no_error(file: &Shared) -> bool {
    file.error.lock().unwrap_or_else(|p| p.into_inner()).is_none()
}

fn fail(file: &Shared, e: io::Error) {
    *file.error.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
}

/// Writes aligned `bytes` at `offset`; if the file system refuses the direct write (`EINVAL`,
/// e.g. one that accepted the flag at open), writes them buffered.
fn write_direct(f: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    match f.write_all_at(bytes, offset) {
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
            clear_direct(f)?;
            f.write_all_at(bytes, offset)
        }
        r => r,
    }
}

/// Writes the last block's `bytes` at `offset`: its aligned part direct, the rest buffered.
fn write_tail(f: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    let aligned = bytes.len() / ALIGN * ALIGN;
    if aligned > 0 {
        write_direct(f, &bytes[..aligned], offset)?;
    }
    if aligned < bytes.len() {
        clear_direct(f)?;
        f.write_all_at(&bytes[aligned..], offset + aligned as u64)?;
    }
    Ok(())
}

/// Turns `O_DIRECT` off on `f` (`fcntl(2)` `F_SETFL` may change it), for a write of any length.
fn clear_direct(f: &File) -> io::Result<()> {
    let fd = f.as_raw_fd();
    // SAFETY: fcntl on a descriptor `f` owns; F_GETFL and F_SETFL read and set its status flags only.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_DIRECT) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp_dir(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("cclab-trace-io-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Text of `n` bytes that differs at every offset of a block, so that a block written at the
    /// wrong place or twice shows.
    fn text(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i % 251) as u8 ^ (i / 4096) as u8).collect()
    }

    #[test]
    fn direct_file_holds_exactly_the_bytes_written_across_blocks_and_tail() {
        let dir = temp_dir("bytes");
        let mut w = TraceWriter::start().unwrap();
        // Whole blocks, a tail with an aligned part and a remainder, and an empty file.
        let want = text(2 * BLOCK_BYTES + 3 * ALIGN + 123);
        let mut sink = w.create(&dir.join("a")).unwrap();
        assert!(matches!(sink, QlogSink::Direct(_)), "the temp dir takes O_DIRECT here");
        for piece in want.chunks(300_007) {
            sink.write_all(piece).unwrap();
        }
        sink.close().unwrap();
        w.create(&dir.join("empty")).unwrap().close().unwrap();
        assert!(w.finish() > 0, "the thread's CPU time is counted");
        assert_eq!(std::fs::read(dir.join("a")).unwrap(), want);
        assert_eq!(std::fs::read(dir.join("empty")).unwrap(), b"");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn dropped_direct_file_keeps_its_partial_trace() {
        let dir = temp_dir("drop");
        let want = text(BLOCK_BYTES + 5000);
        {
            let mut w = TraceWriter::start().unwrap();
            let mut sink = w.create(&dir.join("a")).unwrap();
            sink.write_all(&want).unwrap();
            // Dropped without close (a cancelled run), then the writer, which writes what it was handed.
        }
        assert_eq!(std::fs::read(dir.join("a")).unwrap(), want);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn refused_direct_open_falls_back_to_a_buffered_file() {
        // /dev/full refuses O_DIRECT (EINVAL at open): the file is opened buffered, and its
        // writes fail as they would have (ENOSPC).
        let mut w = TraceWriter::start().unwrap();
        let mut sink = w.create(Path::new("/dev/full")).unwrap();
        assert!(matches!(sink, QlogSink::Plain(_)));
        let e = sink.write_all(b"x").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::StorageFull);
    }

    #[test]
    fn a_failed_block_write_fails_the_next_write_or_the_close() {
        // A read-only descriptor: the thread's first block write fails (EBADF) after `write_all`
        // handed the block over; the file reports it at its next write or at close.
        let dir = temp_dir("fail");
        let path = dir.join("a");
        std::fs::write(&path, b"").unwrap();
        let w = TraceWriter::start().unwrap();
        let mut f = DirectFile::with_file(File::open(&path).unwrap(), &w.io);
        let bytes = text(BLOCK_BYTES);
        let mut first = Ok(());
        for _ in 0..3 {
            first = f.write_all(&bytes);
            if first.is_err() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let e = first.and_then(|()| f.close()).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EBADF), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn direct_files_stop_at_the_memory_budget() {
        let dir = temp_dir("budget");
        let mut w = TraceWriter::start().unwrap();
        let budget_files = MAX_DIRECT_FILES;
        assert!(budget_files >= 2, "a one-flow run's two traces go direct");
        let sinks: Vec<_> = (0..budget_files + 3)
            .map(|i| w.create(&dir.join(i.to_string())).unwrap())
            .collect();
        let direct = sinks.iter().filter(|s| matches!(s, QlogSink::Direct(_))).count();
        assert_eq!(direct, budget_files);
        assert!(matches!(sinks.last(), Some(QlogSink::Plain(_))));
        for s in sinks {
            s.close().unwrap();
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
