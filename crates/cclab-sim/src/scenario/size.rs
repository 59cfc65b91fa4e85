//! The bound on scenario text, checked before the TOML parser sees a byte: the parser builds the whole
//! document as a tree (many times the text's size in memory), so the text's size bounds the work per input.
//! Files are read through [`read_scenario_text`], which stops one byte past the limit (a pipe or a device
//! has no size to check first).

use std::io::Read;
use std::path::Path;

use super::ScenarioError;

/// Most bytes of scenario text, the file plus its `--set` values: 4 MiB. A 10,000-flow file written as one
/// `[[flow]]` table per flow takes 0.8 MB (source and cc only) to 2.1 MB (six keys a flow), and `count = N`
/// writes many flows in one table. Parsing and checking took 35–89 bytes of memory per byte of text
/// (a 50 MB file 4.1 GB and 72 s), so this bounds a hostile file at ~0.4 GB and ~5 s.
pub const MAX_SCENARIO_BYTES: u64 = 4 << 20;

/// Refuses scenario text of `text` bytes plus `set` bytes of `--set` values above [`MAX_SCENARIO_BYTES`].
pub(super) fn check(origin: &str, text: u64, set: u64) -> Result<(), ScenarioError> {
    if text.saturating_add(set) <= MAX_SCENARIO_BYTES {
        return Ok(());
    }
    let what = if set == 0 {
        format!("{text} bytes")
    } else {
        format!("{text} bytes and {set} bytes of --set values")
    };
    Err(ScenarioError::new(
        origin,
        None,
        format!(
            "{what}, over the limit of {MAX_SCENARIO_BYTES} bytes of scenario text; for many flows, one [[flow]] table with `count = N` makes N copies"
        ),
    ))
}

/// Reads the text at `path`, refusing more than [`MAX_SCENARIO_BYTES`] before reading it (a regular file's
/// size) or after reading one byte more (anything else); errors name the file.
pub fn read_scenario_text(path: &Path) -> Result<String, ScenarioError> {
    let origin = path.display().to_string();
    let cannot = |e: &dyn std::fmt::Display| ScenarioError::new(&origin, None, format!("cannot read: {e}"));
    let file = std::fs::File::open(path).map_err(|e| cannot(&e))?;
    if let Some(meta) = file.metadata().ok().filter(std::fs::Metadata::is_file) {
        check(&origin, meta.len(), 0)?;
    }
    let mut bytes = Vec::new();
    file.take(MAX_SCENARIO_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| cannot(&e))?;
    check(&origin, bytes.len() as u64, 0)?;
    String::from_utf8(bytes).map_err(|_| cannot(&"stream did not contain valid UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_size_limit_counts_set_values_with_the_text() {
        assert!(check("s.toml", MAX_SCENARIO_BYTES, 0).is_ok());
        let e = check("s.toml", MAX_SCENARIO_BYTES - 10, 11).unwrap_err().to_string();
        assert!(
            e.starts_with("s.toml: ") && e.contains("11 bytes of --set values"),
            "{e}"
        );
    }
}
