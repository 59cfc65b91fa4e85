//! The controller registry: the `algorithm` names a scenario file may use.
//! Adding an algorithm = its file in `cc/` + one variant here + one arm in `build`.

use super::CongestionController;
use crate::time::Time;
use serde::Deserialize;

/// A controller choice with its parameters, as written in a scenario (`[flow.cc] algorithm = "cubic"`).
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "algorithm", rename_all = "lowercase", deny_unknown_fields)]
pub enum CcConfig {
    // Variants are added by the algorithm files: NewReno(NewRenoConfig), Cubic(CubicConfig), ...
}

impl CcConfig {
    /// Builds the controller for a sender whose full-sized packet counts `mss` bytes in flight.
    pub fn build(&self, _now: Time, _mss: u64) -> Box<dyn CongestionController> {
        match *self {}
    }
}
