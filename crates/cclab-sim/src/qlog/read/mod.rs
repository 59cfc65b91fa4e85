//! Reading JSON-SEQ qlog (RFC 7464 `.sqlog`, plain or gzip) into the tables of `cclab.traces.QlogTrace`.
//!
//! The Python reader (`python/cclab/traces/qlog.py`) is the reference: for every file this module accepts, the
//! tables are the ones Python builds, float for float (same parsing, correctly rounded; same arithmetic in the
//! same order). It reads qlog 0.3 (`transport:packet_sent`) and the IETF schema (`quic:packet_sent`); a JSON
//! document (picoquic's `.qlog`) is [`ReadError::NotSeq`], and a value whose Python meaning is not reproduced
//! here is [`ReadError::Unsupported`]: `read_qlog` then reads the file in Python. It lives beside the writer
//! because both speak the same schemas and the fuzz crate already links this crate.
//!
//! Work per record is bounded by its size (a nesting limit of 128, one pass over frames and ACK
//! ranges, binary searches into the packets not yet acknowledged), memory by the tables kept.

mod header;
mod pn_sets;
mod pyvalue;
mod records;
mod tables;
mod value;

use bumpalo::Bump;
use header::{Header, TimeFormat};
use pyvalue::{num, py_str, Unsupported};
use records::{Record, Records};
use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use value::{Json, Obj};

pub use tables::{QlogTables, Table};

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// Not JSON-SEQ: the first character after blanks is not a record separator.
    NotSeq,
    /// Malformed, truncated or unreadable; `line` 0 when no line applies.
    Bad { line: u64, msg: String },
    /// A value this reader does not interpret as Python would (see `pyvalue`).
    Unsupported { line: u64, what: &'static str },
}

impl ReadError {
    /// The message, in the Python reader's form: `path:line: what`.
    pub fn message(&self, path: &Path) -> String {
        let p = path.display();
        match self {
            ReadError::NotSeq => format!("{p}:1: not a JSON-SEQ qlog file"),
            ReadError::Bad { line: 0, msg } => format!("{p}: {msg}"),
            ReadError::Bad { line, msg } => format!("{p}:{line}: {msg}"),
            ReadError::Unsupported { line, what } => format!("{p}:{line}: not read in Rust: {what}"),
        }
    }
}

/// Reads a JSON-SEQ qlog file. RTTs are scaled by `rtt_unit_s` when given, else as `read_qlog` documents.
pub fn read_seq(path: &Path, rtt_unit_s: Option<f64>) -> Result<QlogTables, ReadError> {
    let file = File::open(path).map_err(|e| ReadError::Bad {
        line: 0,
        msg: e.to_string(),
    })?;
    read_seq_from(file, rtt_unit_s)
}

/// [`read_seq`] of a stream (plain or gzip JSON-SEQ).
pub fn read_seq_from(input: impl Read + 'static, rtt_unit_s: Option<f64>) -> Result<QlogTables, ReadError> {
    let mut records = Records::new(input)?;
    let mut arena = Bump::new();
    let (line, head) = match records.next_record()? {
        Some(rec) => match decode(&rec, &arena)? {
            Some(obj) => (rec.line, obj),
            None => {
                return Err(ReadError::Bad {
                    line: 1,
                    msg: "empty JSON-SEQ file".into(),
                })
            }
        },
        None => {
            return Err(ReadError::Bad {
                line: 1,
                msg: "empty JSON-SEQ file".into(),
            })
        }
    };
    if !head.contains_key("trace") && !head.contains_key("traces") {
        let msg = "the first record is not a qlog header (no 'trace')".into();
        return Err(ReadError::Bad { line, msg });
    }
    let header = Header::from_record(&head).map_err(|u| unsupported(line, u))?;
    let mut tables = tables::Builder::new(&header, rtt_unit_s);
    let mut clock = Clock::new(header.time_format);
    loop {
        arena.reset();
        let Some(rec) = records.next_record()? else { break };
        let Some(obj) = decode(&rec, &arena)? else { break };
        let line = rec.line;
        let (name, raw_t) = name_and_time(&obj).map_err(|u| unsupported(line, u))?;
        let (Some(name), Some(raw_t)) = (name, raw_t) else {
            return Err(ReadError::Bad {
                line,
                msg: "event without a name and a numeric time".into(),
            });
        };
        let time_s = clock.relative(raw_t) * header.unit_s;
        let short = short_name(&name);
        let data = pyvalue::object(obj.get("data"));
        tables
            .add(short, time_s, data, rec.bytes)
            .map_err(|u| unsupported(line, u))?;
    }
    tables.finish().ok_or(ReadError::Bad {
        line: 0,
        msg: "no qlog events".into(),
    })
}

fn unsupported(line: u64, u: Unsupported) -> ReadError {
    ReadError::Unsupported { line, what: u.0 }
}

/// One record as a JSON object; `None` for a last record of blanks only (Python skips it).
///
/// Parsed from bytes: strings are checked to be UTF-8, and any other byte outside ASCII is a syntax error, so a
/// record is accepted only if Python's UTF-8 decoding and `json.loads` accept it too.
fn decode<'a>(rec: &Record<'a>, arena: &'a Bump) -> Result<Option<Obj<'a>>, ReadError> {
    if rec.last {
        let text = std::str::from_utf8(rec.bytes).map_err(|_| ReadError::Bad {
            line: rec.line,
            msg: "not UTF-8 text".into(),
        })?;
        if text.chars().all(pyvalue::is_py_space) {
            return Ok(None);
        }
    }
    match value::parse(rec.bytes, arena) {
        Ok(Json::Obj(obj)) => Ok(Some(obj)),
        Ok(_) => Err(ReadError::Bad {
            line: rec.line,
            msg: "record is not a JSON object".into(),
        }),
        Err(e) => {
            // A bad last record without its closing newline is a cut file, any other a malformed one.
            let cut = rec.last && !rec.bytes.ends_with(b"\n");
            let what = if cut { "truncated record" } else { "malformed record" };
            let line = rec.line + memchr::memchr_iter(b'\n', &rec.bytes[..e.offset]).count() as u64;
            Err(ReadError::Bad {
                line,
                msg: format!("{what}: {} (byte {} of the record)", e.msg, e.offset + 1),
            })
        }
    }
}

/// The event's full name (`name`, or `category:event` in older drafts) and its time in the trace's unit.
fn name_and_time<'v>(obj: &'v Obj<'_>) -> Result<(Option<Cow<'v, str>>, Option<f64>), Unsupported> {
    let name = match obj.get("name") {
        Some(Json::Str(s)) => Some(Cow::Borrowed(*s)),
        None | Some(Json::Null) => match obj.get("event") {
            Some(event) => {
                let category = obj.get("category").map(py_str).transpose()?.unwrap_or_default();
                Some(Cow::Owned(format!("{category}:{}", py_str(event)?)))
            }
            None => None,
        },
        Some(_) => None,
    };
    let t = if obj.contains_key("time") {
        obj.get("time")
    } else {
        obj.get("relative_time")
    };
    Ok((name, num(t)?))
}

/// The short name handlers go by: the part after the last ':', with the schemas' differences aliased
/// (quic-events-12 §1 `recovery_metrics_updated` is draft-02's `metrics_updated`; qlog 0.3's
/// `recovery:parameters_set` would collide with `transport:parameters_set`).
fn short_name(name: &str) -> &str {
    if name == "recovery:parameters_set" {
        return "recovery_parameters_set";
    }
    match name.rsplit(':').next().unwrap_or(name) {
        "recovery_metrics_updated" => "metrics_updated",
        short => short,
    }
}

/// Event times: relative as written, or accumulated (`delta`), or since the first event (`absolute`).
struct Clock {
    format: TimeFormat,
    previous: f64,
    first: Option<f64>,
}

impl Clock {
    fn new(format: TimeFormat) -> Self {
        Clock {
            format,
            previous: 0.0,
            first: None,
        }
    }

    /// The time since the trace's reference, in the trace's unit.
    fn relative(&mut self, t: f64) -> f64 {
        match self.format {
            TimeFormat::Relative => t,
            TimeFormat::Delta => {
                self.previous += t;
                self.previous
            }
            TimeFormat::Absolute => t - *self.first.get_or_insert(t),
        }
    }
}
