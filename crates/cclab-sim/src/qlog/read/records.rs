//! JSON-SEQ framing (RFC 7464 §2): the records of a plain or gzip file, with the line each starts on.
//!
//! Lines and record boundaries follow the Python reader (`_seq_records`), which iterates over the text in
//! universal-newline mode: a line ends at `\n`, `\r\n` or a lone `\r`; line 1 is the line of the first RS (blank
//! lines before it are not counted); a record starts at an RS that begins a line and runs up to the next one
//! (an RS inside a line stays in the record, where it makes the JSON invalid).

use super::ReadError;
use flate2::bufread::MultiGzDecoder;
use std::io::{BufRead, BufReader, Read};
use std::ops::Range;

/// The first two bytes of a gzip member (RFC 1952 §2.3.1).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// The record separator (RFC 7464 §2).
const RS: u8 = 0x1e;
/// Read buffer per file, bytes.
const BUF_BYTES: usize = 1 << 18;

/// One record: the line its RS is on, its bytes after the RS (line ends included), and whether it is the last.
pub(super) struct Record<'a> {
    pub(super) line: u64,
    pub(super) bytes: &'a [u8],
    pub(super) last: bool,
}

/// Reads records one at a time into reused buffers.
pub(super) struct Records {
    input: Box<dyn BufRead>,
    /// Input up to and including the next `\n`, and how much of it has been handed out as lines.
    raw: Vec<u8>,
    raw_pos: usize,
    /// Lines read so far.
    line: u64,
    /// The record being assembled and the line it starts on.
    current: Vec<u8>,
    current_line: u64,
    /// The record handed out last.
    done: Vec<u8>,
    finished: bool,
}

impl Records {
    /// Reads `input` (gzip or not, told by its first bytes); [`ReadError::NotSeq`] when its text does not
    /// start (after blanks) with an RS.
    pub(super) fn new(input: impl Read + 'static) -> Result<Self, ReadError> {
        let io = |e: std::io::Error| ReadError::Bad {
            line: 0,
            msg: e.to_string(),
        };
        let mut file = BufReader::with_capacity(BUF_BYTES, input);
        let compressed = file.fill_buf().map_err(io)?.starts_with(&GZIP_MAGIC);
        let mut input: Box<dyn BufRead> = if compressed {
            Box::new(BufReader::with_capacity(BUF_BYTES, MultiGzDecoder::new(file)))
        } else {
            Box::new(file)
        };
        // Python skips " \t\r\n" one character at a time before it decides the flavour.
        loop {
            let buf = input.fill_buf().map_err(|e| gzip_error(0, e))?;
            match buf.first() {
                Some(b' ' | b'\t' | b'\r' | b'\n') => input.consume(1),
                Some(&RS) => {
                    input.consume(1);
                    break;
                }
                _ => return Err(ReadError::NotSeq),
            }
        }
        let mut records = Records {
            input,
            raw: Vec::with_capacity(4096),
            raw_pos: 0,
            line: 0,
            current: Vec::with_capacity(4096),
            current_line: 1,
            done: Vec::with_capacity(4096),
            finished: false,
        };
        // The rest of the first RS's line belongs to the first record, whatever it starts with.
        if let Some(r) = records.next_line()? {
            records.current.extend_from_slice(&records.raw[r]);
        }
        Ok(records)
    }

    /// The next record, `None` after the last.
    pub(super) fn next_record(&mut self) -> Result<Option<Record<'_>>, ReadError> {
        if self.finished {
            return Ok(None);
        }
        loop {
            let Some(r) = self.next_line()? else {
                self.finished = true;
                return Ok(Some(Record {
                    line: self.current_line,
                    bytes: &self.current,
                    last: true,
                }));
            };
            let text = &self.raw[r];
            if text.first() == Some(&RS) {
                self.done.clear();
                self.done.extend_from_slice(&text[1..]);
                std::mem::swap(&mut self.current, &mut self.done);
                let line = std::mem::replace(&mut self.current_line, self.line);
                return Ok(Some(Record {
                    line,
                    bytes: &self.done,
                    last: false,
                }));
            }
            self.current.extend_from_slice(text);
        }
    }

    /// The range in `raw` of the next line (with its line end), `None` at the end of the input.
    fn next_line(&mut self) -> Result<Option<Range<usize>>, ReadError> {
        if self.raw_pos == self.raw.len() {
            self.raw.clear();
            self.raw_pos = 0;
            let n = self
                .input
                .read_until(b'\n', &mut self.raw)
                .map_err(|e| gzip_error(self.line + 1, e))?;
            if n == 0 {
                return Ok(None);
            }
        }
        let start = self.raw_pos;
        let rest = &self.raw[start..];
        // `raw` ends at its only `\n`; a `\r` before the end is a line end unless the `\n` follows it.
        let end = match memchr::memchr(b'\r', rest) {
            Some(k) if rest.get(k + 1) == Some(&b'\n') => k + 2,
            Some(k) => k + 1,
            None => rest.len(),
        };
        self.raw_pos = start + end;
        self.line += 1;
        Ok(Some(start..start + end))
    }
}

/// A read error: on a gzip file, damage or truncation of the compressed stream.
fn gzip_error(line: u64, e: std::io::Error) -> ReadError {
    ReadError::Bad {
        line,
        msg: format!("damaged or truncated gzip: {e}"),
    }
}
