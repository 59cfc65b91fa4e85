//! `--set key.path=value` overrides, applied to the parsed TOML tree before it is checked
//! against the schema. The value is read as TOML (`0.01`, `true`, `{ kind = "red" }`), and as a
//! plain string when it is not valid TOML (`10Mbps`). Array elements are named `flow[1]` or
//! `flow.1`; missing tables are created.

use toml::{Table, Value};

/// One parsed override.
#[derive(Clone, Debug, PartialEq)]
pub struct Override {
    /// Key path segments.
    path: Vec<Segment>,
    /// Dotted key path as written.
    key: String,
    value: Value,
}

#[derive(Clone, Debug, PartialEq)]
enum Segment {
    Key(String),
    Index(usize),
}

impl Override {
    /// Parses `key.path=value`; the error says what is wrong with it.
    pub fn parse(arg: &str) -> Result<Override, String> {
        let (key, raw) = arg
            .split_once('=')
            .ok_or_else(|| format!("expected key.path=value, got {arg:?}"))?;
        let key = key.trim();
        let mut path = Vec::new();
        for part in key.split('.') {
            let (name, mut rest) = match part.find('[') {
                Some(i) => (&part[..i], &part[i..]),
                None => (part, ""),
            };
            if name.is_empty() && (rest.is_empty() || path.is_empty()) {
                return Err(format!("empty key segment in {key:?}"));
            }
            if !name.is_empty() {
                path.push(match name.parse::<usize>() {
                    Ok(i) if !path.is_empty() => Segment::Index(i),
                    _ => Segment::Key(name.to_string()),
                });
            }
            while !rest.is_empty() {
                let close = rest.find(']').ok_or_else(|| format!("unclosed '[' in {key:?}"))?;
                let i = rest[1..close]
                    .parse()
                    .map_err(|_| format!("bad array index in {key:?}"))?;
                path.push(Segment::Index(i));
                rest = &rest[close + 1..];
                if !rest.is_empty() && !rest.starts_with('[') {
                    return Err(format!("unexpected {rest:?} after an array index in {key:?}"));
                }
            }
        }
        let raw = raw.trim();
        let value = format!("v = {raw}")
            .parse::<Table>()
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| Value::String(raw.to_string()));
        Ok(Override {
            path,
            key: key.to_string(),
            value,
        })
    }

    /// The key path as written.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// Sets the value in `root`, creating missing tables.
    pub fn apply(&self, root: &mut Table) -> Result<(), String> {
        let mut tree = Value::Table(std::mem::take(root));
        let result = self.apply_to(&mut tree);
        if let Value::Table(t) = tree {
            *root = t;
        }
        result
    }

    fn apply_to(&self, tree: &mut Value) -> Result<(), String> {
        let (last, parents) = self.path.split_last().expect("parse gives at least one segment");
        let mut cur = tree;
        for depth in 0..parents.len() {
            cur = step(cur, &self.path[..=depth])?;
        }
        match (last, cur) {
            (Segment::Key(k), Value::Table(t)) => {
                t.insert(k.clone(), self.value.clone());
                Ok(())
            }
            (Segment::Index(i), Value::Array(a)) => {
                let n = a.len();
                *a.get_mut(*i)
                    .ok_or_else(|| format!("index {i} is out of range ({n} elements)"))? = self.value.clone();
                Ok(())
            }
            (_, v) => Err(format!(
                "{} is a {}, not a {}",
                render(parents),
                v.type_str(),
                container(last)
            )),
        }
    }
}

fn container(seg: &Segment) -> &'static str {
    match seg {
        Segment::Key(_) => "table",
        Segment::Index(_) => "array",
    }
}

fn render(path: &[Segment]) -> String {
    let mut s = String::new();
    for seg in path {
        match seg {
            Segment::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Segment::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Moves from `cur` (the value at `path` minus its last segment) to the value at `path`.
fn step<'a>(cur: &'a mut Value, path: &[Segment]) -> Result<&'a mut Value, String> {
    let (seg, parent) = path.split_last().expect("non-empty path");
    match (seg, cur) {
        (Segment::Key(k), Value::Table(t)) => Ok(t.entry(k.clone()).or_insert_with(|| Value::Table(Table::new()))),
        (Segment::Index(i), Value::Array(a)) => {
            let n = a.len();
            a.get_mut(*i)
                .ok_or_else(|| format!("{}: index {i} is out of range ({n} elements)", render(path)))
        }
        (seg, v) => Err(format!(
            "{} is a {}, not a {}",
            render(parent),
            v.type_str(),
            container(seg)
        )),
    }
}
