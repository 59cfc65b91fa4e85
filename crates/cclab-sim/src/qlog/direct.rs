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
//! A qlog writer hands over its own buffer ([`DirectFile::take`]), not a copy of it (a copy of
//! each ~700-byte packet record into a block cost as much as it saved).

use super::block::ALIGN;
use super::json::Buf;
use super::trace_io::{Job, TraceIo, BLOCK_BYTES};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

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
    /// The block being filled by `write` (the generic path; a qlog writer's buffer goes out
    /// whole through [`DirectFile::take`]); taken from the pool at the first byte that needs it.
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

    /// Takes the aligned part of `buf`'s text for the writer thread, with the memory that holds it:
    /// `buf` goes on in a block from the pool, holding the rest (under [`ALIGN`] bytes). Falls back
    /// to a copy while `write` has a partial block (the writes must stay in order).
    pub(super) fn take(&mut self, buf: &mut Buf) -> io::Result<()> {
        if let Err(e) = self.take_error() {
            buf.clear();
            return Err(e);
        }
        let aligned = buf.len() / ALIGN * ALIGN;
        if self.block.is_some() || aligned == 0 {
            let r = self.write_all(buf.text());
            buf.clear();
            return r;
        }
        let block = buf.swap_storage(self.io.take_block(), aligned);
        let job = Job::Write {
            file: self.shared.clone(),
            offset: self.offset,
            block,
            len: aligned,
        };
        self.io.send(job).map_err(|_| thread_gone())?;
        self.offset += aligned as u64;
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
                let job = Job::Write {
                    file: self.shared.clone(),
                    offset: self.offset,
                    block: self.block.take().expect("a full block is there"),
                    len: BLOCK_BYTES,
                };
                self.io.send(job).map_err(|_| thread_gone())?;
                self.offset += BLOCK_BYTES as u64;
                self.len = 0;
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
