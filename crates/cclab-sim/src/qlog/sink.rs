//! Where a trace's bytes go: a plain file, written buffered or direct, or a gzip stream
//! (`[output] qlog_compression`).

use super::direct::DirectFile;
use flate2::write::GzEncoder;
use serde::Deserialize;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

/// How trace files are compressed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QlogCompression {
    /// Plain JSON-SEQ (`trace.sqlog`), what qvis opens directly.
    #[default]
    None,
    /// gzip (RFC 1952) at level 1, `trace.sqlog.gz`: about a tenth of the bytes; any gzip tool,
    /// or `python/cclab/traces`, reads it back to exactly the plain file.
    Gzip,
}

/// Level 1 of 9: most of the size gain for a fraction of the CPU of the default 6 (measured in
/// `cclab-bench --qlog`); qlog's repeated keys compress well even at the fastest level. The
/// encoder is zlib-rs (flate2 feature `zlib-rs`), whose level 1 is zlib-ng's quick deflate: on a
/// 10 Gbit/s trace ~60 % of miniz_oxide's level-1 CPU for ~20 % more bytes (level 2 would be
/// miniz's CPU for 11 % fewer bytes). Its output depends on the input alone: the CPU-specific
/// code paths (AVX2 match comparison, hash sliding) compute the same values as the portable ones.
const GZIP_LEVEL: u32 = 1;

impl QlogCompression {
    /// What the compressed file's name adds to the plain one (`""` or `".gz"`).
    pub fn extension(self) -> &'static str {
        match self {
            QlogCompression::None => "",
            QlogCompression::Gzip => ".gz",
        }
    }
}

impl core::str::FromStr for QlogCompression {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(QlogCompression::None),
            "gzip" => Ok(QlogCompression::Gzip),
            _ => Err(format!("unknown qlog compression {s:?}: expected \"none\" or \"gzip\"")),
        }
    }
}

/// An open trace file, compressed or not. Close it with [`QlogSink::close`] so a gzip stream
/// gets its trailer and write errors surface (dropping it finishes the stream too, silently).
pub enum QlogSink {
    /// Bytes straight to the file (the writer already sends them in large chunks).
    Plain(File),
    /// Bytes to a file the run's writer thread writes with `O_DIRECT` (`TraceWriter::create`).
    Direct(DirectFile),
    /// Bytes through a gzip encoder into the file (boxed: zlib-rs's stream state is ~230 bytes).
    Gzip(Box<GzEncoder<File>>),
}

impl QlogSink {
    /// Creates (or truncates) `path` for `compression`; the caller has put the extension on.
    pub fn create(path: &Path, compression: QlogCompression) -> io::Result<QlogSink> {
        let f = File::create(path)?;
        Ok(match compression {
            QlogCompression::None => QlogSink::Plain(f),
            QlogCompression::Gzip => QlogSink::Gzip(Box::new(GzEncoder::new(f, flate2::Compression::new(GZIP_LEVEL)))),
        })
    }

    /// Ends the stream (gzip trailer) and flushes the file.
    pub fn close(self) -> io::Result<()> {
        match self {
            QlogSink::Plain(mut f) => f.flush(),
            QlogSink::Direct(d) => d.close(),
            QlogSink::Gzip(e) => e.finish()?.flush(),
        }
    }
}

impl Write for QlogSink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        match self {
            QlogSink::Plain(f) => f.write(bytes),
            QlogSink::Direct(d) => d.write(bytes),
            QlogSink::Gzip(e) => e.write(bytes),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self {
            QlogSink::Plain(f) => f.write_all(bytes),
            QlogSink::Direct(d) => d.write_all(bytes),
            QlogSink::Gzip(e) => e.write_all(bytes),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            QlogSink::Plain(f) => f.flush(),
            QlogSink::Direct(d) => d.flush(),
            // Only the file: flushing the encoder would cut a sync point into the stream (more bytes,
            // no use to a reader, which needs the trailer `close` writes anyway).
            QlogSink::Gzip(e) => e.get_mut().flush(),
        }
    }
}
