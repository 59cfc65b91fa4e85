//! The JSON-SEQ header record (qlog main schema: `trace.vantage_point`, `common_fields`, `configuration`).

use super::pyvalue::{as_str, object, or, py_str, truthy, Unsupported};
use super::value::{Json, Obj};

/// How event times count (qlog main schema `time_format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TimeFormat {
    Relative,
    Delta,
    Absolute,
}

/// What the tables need from the header.
pub(super) struct Header {
    pub(super) vantage: String,
    pub(super) protocol: String,
    pub(super) schema: String,
    /// Seconds per unit of event time (ms unless `configuration.time_units` says `us` or `s`).
    pub(super) unit_s: f64,
    pub(super) time_format: TimeFormat,
}

impl Header {
    /// The header of the record `head` (`trace`, or the first of `traces`); fields of the wrong type are
    /// ignored, as in Python's `_header_from`.
    pub(super) fn from_record(head: &Obj<'_>) -> Result<Self, Unsupported> {
        let trace = if truthy(head.get("trace")) {
            head.get("trace")
        } else {
            match head.get("traces") {
                Some(Json::Arr(a)) => a.first(),
                _ => None,
            }
        };
        let trace = object(trace);
        let (vp, common) = (object(trace.get("vantage_point")), object(trace.get("common_fields")));
        let config = object(trace.get("configuration"));
        let protocol = match or(common.get("protocol_type"), common.get("protocol_types")) {
            Some(Json::Arr(items)) => {
                let names: Option<Vec<&str>> = items.iter().map(Json::as_str).collect();
                names
                    .ok_or(Unsupported("a protocol_type list with non-strings"))?
                    .join(",")
            }
            v => text(v)?,
        };
        let unit_s = match as_str(config.get("time_units")) {
            Some("us") => 1e-6,
            Some("s") => 1.0,
            _ => 1e-3,
        };
        let time_format = match as_str(common.get("time_format")) {
            Some("delta") => TimeFormat::Delta,
            Some("absolute") => TimeFormat::Absolute,
            _ => TimeFormat::Relative,
        };
        Ok(Header {
            vantage: text(or(vp.get("type"), vp.get("name")))?,
            protocol,
            schema: text(or(head.get("qlog_version"), head.get("file_schema")))?,
            unit_s,
            time_format,
        })
    }
}

/// Python's `str(a or "")` once the `or` chain is resolved.
fn text(v: Option<&Json<'_>>) -> Result<String, Unsupported> {
    if truthy(v) {
        py_str(v.unwrap_or(&Json::Null))
    } else {
        Ok(String::new())
    }
}
