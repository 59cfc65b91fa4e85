//! Scenario errors: which file, which key, what was expected.

use core::fmt;

/// A scenario file or an override is invalid. Displays as `FILE: KEY.PATH: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    origin: String,
    key: Option<String>,
    message: String,
}

impl ScenarioError {
    /// An error in `origin` (a file name, or `<string>`), at `key` if known.
    pub fn new(origin: &str, key: Option<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            origin: origin.to_string(),
            key: key.filter(|k| !k.is_empty()),
            message: message.into(),
        }
    }

    /// Dotted key path of the offending value (`path.forward.rate`, `flow[0].cc`), if known.
    pub fn key_path(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// What was wrong, without file and key.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.key {
            Some(k) => write!(f, "{}: {}: {}", self.origin, k, self.message),
            None => write!(f, "{}: {}", self.origin, self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}
