//! Pinpointing the key a schema error is about, and whether a `--set` put it there.
//!
//! serde reports the path of the value it was deserialising. For an unknown field that path
//! already ends in the field (at the root) or stops at the table holding it (deeper); for an
//! internally tagged enum (`[flow.cc] algorithm = …`, `queue = { kind = … }`) it stops at the
//! table, because serde buffers the table before it picks the variant. These helpers walk the
//! TOML tree to name the key itself.

use toml::{Table, Value};

use super::overrides::Override;

/// The key an error at `key` with `msg` is about: `key` itself, or the one child of the table
/// at `key` whose value the message quotes (an unknown variant, an invalid type or value).
pub(super) fn refine(tree: &Table, key: &str, msg: &str) -> String {
    if let Some(name) = msg.strip_prefix("unknown field `").and_then(|r| r.split('`').next()) {
        return if key == "." || key.is_empty() {
            name.to_string()
        } else if key == name || key.ends_with(&format!(".{name}")) {
            key.to_string()
        } else {
            format!("{key}.{name}")
        };
    }
    let Some(Value::Table(table)) = lookup(tree, key) else {
        return key.to_string();
    };
    let Some(quoted) = quoted_value(msg) else {
        return key.to_string();
    };
    let mut hits = table
        .iter()
        .filter(|(_, v)| describe(v).as_deref() == Some(quoted.as_str()));
    match (hits.next(), hits.next()) {
        (Some((child, _)), None) if key == "." => child.clone(),
        (Some((child, _)), None) => format!("{key}.{child}"),
        _ => key.to_string(),
    }
}

/// The `--set` argument that wrote `key` or a table around or inside it, if any (the last one wins).
pub(super) fn set_by<'a>(overrides: &'a [(String, Override)], key: &str) -> Option<&'a str> {
    let norm = |k: &str| k.replace('[', ".").replace(']', "");
    let key = norm(key);
    let related = |o: &str| {
        let o = norm(o);
        o == key || o.starts_with(&format!("{key}.")) || key.starts_with(&format!("{o}."))
    };
    overrides
        .iter()
        .rev()
        .find(|(_, o)| related(o.key()))
        .map(|(arg, _)| arg.as_str())
}

/// The value at a serde path such as `flow[0].cc` or `path.forward.queue`.
fn lookup<'a>(tree: &'a Table, key: &str) -> Option<&'a Value> {
    let mut segments = key.split(['.', '[']).filter(|s| !s.is_empty());
    let first = segments.next()?;
    let mut cur = tree.get(first)?;
    for seg in segments {
        cur = match (seg.strip_suffix(']'), cur) {
            (Some(i), Value::Array(a)) => a.get(i.parse::<usize>().ok()?)?,
            (None, Value::Table(t)) => t.get(seg)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// The offending value as serde's `Unexpected` prints it inside `invalid type: …, expected`,
/// `invalid value: …, expected` and `` unknown variant `…` ``.
fn quoted_value(msg: &str) -> Option<String> {
    if let Some(rest) = msg.strip_prefix("unknown variant `") {
        return rest.split('`').next().map(|v| format!("string {v:?}"));
    }
    let rest = msg
        .strip_prefix("invalid type: ")
        .or_else(|| msg.strip_prefix("invalid value: "))?;
    rest.rsplit_once(", expected").map(|(v, _)| v.to_string())
}

/// A scalar TOML value as serde's `Unexpected` displays it (`string "x"`, `integer `5``).
fn describe(v: &Value) -> Option<String> {
    Some(match v {
        Value::String(s) => format!("string {s:?}"),
        Value::Integer(i) => format!("integer `{i}`"),
        Value::Float(f) => format!("floating point `{f:?}`"),
        Value::Boolean(b) => format!("boolean `{b}`"),
        _ => return None,
    })
}
