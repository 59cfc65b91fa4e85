//! A plain trace file written with `O_DIRECT` in large aligned blocks by the run's writer thread
//! ([`TraceIo`]).
//!
//! Why: a buffered `write` of a trace costs the kernel ~0.17 ns per byte (page-cache allocation,
//! copy, ext4 delayed allocation), ~115 ns per data packet of a 10 Gbit/s trace, as much as
//! formatting its records. `O_DIRECT` writes of 1 MiB or more cost it ~0.02–0.04 ns per byte, and
//! on the writer thread they overlap the simulation instead of blocking it. The bytes in the file
//! are the same: whole blocks go out as they fill, and the last, partial one at close, its
//! aligned part direct and the rest (under 4 KiB) buffered, with `O_DIRECT` cleared by `fcntl`.
//!
//! A qlog writer formats its records into a small buffer that stays in the core's first-level
//! cache and hands its text over every [`STAGE_BYTES`] ([`DirectFile::take`]), which moves it into
//! the block in whole 64-byte lines with non-temporal stores ([`copy_lines`]): the block's lines
//! are neither read for ownership nor left in the caches, since only the disk reads them (DMA).
//! (A plain copy of each ~700-byte packet record into a block cost as much as it saved.)

use super::json::Buf;
use super::nt_copy::{copy_lines, fence, LINE};
use super::trace_io::{Job, TraceIo, BLOCK_BYTES};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

/// Text a qlog writer collects before [`DirectFile::take`] moves it into the block: a few records,
/// so the buffer stays in the first-level cache and the move is one call per few records.
pub(super) const STAGE_BYTES: usize = 4096;

/// What a direct file shares with the writer thread.
pub(super) struct Shared {
    pub(super) file: File,
    /// First error of a write the thread did; the file's next `write` or its `close` returns it.
    pub(super) error: Mutex<Option<io::Error>>,
}

/// An open trace file whose blocks the run's writer thread writes. Close it with
/// [`DirectFile::close`] to learn of write errors; dropping it still writes everything (a
/// cancelled run keeps its partial trace), silently.
pub struct DirectFile {
    shared: Arc<Shared>,
    io: TraceIo,
    /// The block being filled, by [`DirectFile::take`] or `write`; taken from the pool at the
    /// first byte that needs it.
    block: Option<super::block::Block>,
    /// Bytes in `block`.
    len: usize,
    /// File offset of `block`'s first byte.
    offset: u64,
    closed: bool,
}

impl DirectFile {
    /// Creates (or truncates) `path` with `O_DIRECT`; `None` when the file system refuses it
    /// (`EINVAL`: no direct I/O there), so that the caller writes the file buffered instead.
    pub(super) fn create(path: &Path, io: &TraceIo) -> io::Result<Option<DirectFile>> {
        let file = match OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
        {
            Ok(f) => f,
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => return Ok(None),
            Err(e) => return Err(e),
        };
        Ok(Some(DirectFile::with_file(file, io)))
    }

    /// A direct file writing to `file`, from its start.
    pub(super) fn with_file(file: File, io: &TraceIo) -> DirectFile {
        DirectFile {
            shared: Arc::new(Shared {
                file,
                error: Mutex::new(None),
            }),
            io: io.clone(),
            block: None,
            len: 0,
            offset: 0,
            closed: false,
        }
    }

    /// The first error the writer thread met, if it has not been returned yet.
    fn take_error(&self) -> io::Result<()> {
        match self.shared.error.lock().unwrap_or_else(|p| p.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Hands the rest of the file to the writer thread; the receiver gets the close's outcome.
    fn submit_close(&mut self) -> mpsc::Receiver<io::Result<()>> {
        self.closed = true;
        // The thread reads the block's lines `take` streamed.
        fence();
        let (reply, outcome) = mpsc::sync_channel(1);
        let job = Job::Close {
            file: self.shared.clone(),
            offset: self.offset,
            block: self.block.take(),
            len: self.len,
            reply,
        };
        // A send fails only if the thread is gone (a panic in it): `close` then reports it.
        let _ = self.io.send(job);
        outcome
    }

    /// Hands the full block to the writer thread.
    fn send_block(&mut self) -> io::Result<()> {
        // The thread reads the block's lines `take` streamed.
        fence();
        let job = Job::Write {
            file: self.shared.clone(),
            offset: self.offset,
            block: self.block.take().expect("a full block is there"),
            len: BLOCK_BYTES,
        };
        self.io.send(job).map_err(|_| thread_gone())?;
        self.offset += BLOCK_BYTES as u64;
        self.len = 0;
        Ok(())
    }

    /// Moves `buf`'s text into the file's blocks up to its last whole line, with non-temporal
    /// stores, handing each full block to the writer thread; the rest (under a line) stays in
    /// `buf`. Copies all of it plainly instead when `write` left the block mid-line.
    pub(super) fn take(&mut self, buf: &mut Buf) -> io::Result<()> {
        if self.len % LINE != 0 {
            let r = self.write_all(buf.text());
            buf.clear();
            return r;
        }
        let text = buf.text();
        let whole = text.len() / LINE * LINE;
        let mut at = 0;
        while at < whole {
            let block = self.block.get_or_insert_with(|| self.io.take_block());
            let n = (whole - at).min(BLOCK_BYTES - self.len);
            let dst = block.bytes_mut()[self.len..self.len + n].as_mut_ptr();
            // SAFETY: `n` bytes of the block from `len`, a multiple of LINE in a page-aligned
            // block, and `n` of the text from `at`, a multiple of LINE as `n` is (BLOCK_BYTES is
            // one); the two are different allocations. The block is fenced before it is handed
            // over (`send_block`, `submit_close`) and only `take` and `write` touch it before.
            unsafe { copy_lines(dst, text[at..].as_ptr(), n) };
            self.len += n;
            at += n;
            if self.len == BLOCK_BYTES {
                // The thread's errors show here, once a block, not at every take (a lock each).
                let sent = self.take_error().and_then(|()| self.send_block());
                if sent.is_err() {
                    buf.clear();
                    return sent;
                }
            }
        }
        buf.keep_from(whole);
        Ok(())
    }

    /// [`DirectFile::take`], then the rest of `buf`'s text (copied): everything is handed over.
    pub(super) fn take_all(&mut self, buf: &mut Buf) -> io::Result<()> {
        self.take(buf)?;
        let r = self.write_all(buf.text());
        buf.clear();
        r
    }

    /// Writes what is left and closes the file; returns the first write error.
    pub fn close(mut self) -> io::Result<()> {
        let outcome = self.submit_close();
        let r = outcome.recv().unwrap_or_else(|_| Err(thread_gone()));
        self.take_error().and(r)
    }
}

impl Write for DirectFile {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    fn write_all(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        self.take_error()?;
        while !bytes.is_empty() {
            let block = self.block.get_or_insert_with(|| self.io.take_block());
            let n = bytes.len().min(BLOCK_BYTES - self.len);
            block.bytes_mut()[self.len..self.len + n].copy_from_slice(&bytes[..n]);
            self.len += n;
            bytes = &bytes[n..];
            if self.len == BLOCK_BYTES {
                self.send_block()?;
            }
        }
        Ok(())
    }

    /// Nothing to do before close: a partial block cannot go out direct.
    fn flush(&mut self) -> io::Result<()> {
        self.take_error()
    }
}

impl Drop for DirectFile {
    fn drop(&mut self) {
        if !self.closed {
            drop(self.submit_close());
        }
    }
}

/// The error of a write whose thread is gone.
fn thread_gone() -> io::Error {
    io::Error::other("the trace writer thread stopped")
}
