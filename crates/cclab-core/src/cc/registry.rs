//! The controller registry: the `algorithm` names a scenario file may use.
//! Adding an algorithm = its file in `cc/` + one variant here + one arm in `build`.

use super::bbr::{Bbr, BbrConfig};
use super::bbr3::{Bbr3, Bbr3Config};
use super::cubic::picoquic::{PicoquicCubic, PicoquicCubicConfig};
use super::cubic::{Cubic, CubicConfig};
use super::new_reno::{NewReno, NewRenoConfig};
use super::scalable::{Dctcp, DctcpConfig, Prague, PragueConfig};
use super::CongestionController;
use crate::time::Time;
use crate::units::Bytes;
use serde::Deserialize;

/// A controller choice with its parameters, as written in a scenario (`[flow.cc] algorithm = "cubic"`).
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "algorithm", rename_all = "lowercase", deny_unknown_fields)]
pub enum CcConfig {
    // Variants are added by the algorithm files: NewReno(NewRenoConfig), Cubic(CubicConfig), ...
    /// NewReno, RFC 9002 §7.
    NewReno(NewRenoConfig),
    /// CUBIC, RFC 9438, with HyStart++ (RFC 9406) by default.
    Cubic(CubicConfig),
    /// CUBIC as picoquic's cubic.c implements it (`algorithm = "cubic-picoquic"`).
    #[serde(rename = "cubic-picoquic")]
    CubicPicoquic(PicoquicCubicConfig),
    /// BBRv1, draft-cardwell-iccrg-bbr-congestion-control-00.
    Bbr(BbrConfig),
    /// BBRv3, draft-ietf-ccwg-bbr-01 with Linux v3's details (`algorithm = "bbr3"`).
    Bbr3(Bbr3Config),
    /// DCTCP, RFC 8257.
    Dctcp(DctcpConfig),
    /// Prague, draft-briscoe-iccrg-prague-congestion-control-04 (L4S; marks ECT(1)).
    Prague(PragueConfig),
}

impl CcConfig {
    /// Builds the controller for a sender whose full-sized packet counts `mss` bytes in flight.
    pub fn build(&self, now: Time, mss: u64) -> Box<dyn CongestionController> {
        match self {
            CcConfig::NewReno(c) => Box::new(NewReno::new(c, mss)),
            CcConfig::Cubic(c) => Box::new(Cubic::new(c, now, mss)),
            CcConfig::CubicPicoquic(c) => Box::new(PicoquicCubic::new(c, mss)),
            CcConfig::Bbr(c) => Box::new(Bbr::new(c, now, mss)),
            CcConfig::Bbr3(c) => Box::new(Bbr3::new(c, now, mss)),
            CcConfig::Dctcp(c) => Box::new(Dctcp::new(c, mss)),
            CcConfig::Prague(c) => Box::new(Prague::new(c, mss)),
        }
    }

    /// The same controller with an initial window of one segment of `mss` bytes: TCP's window after
    /// a lost SYN or SYN-ACK (RFC 5681 §3.1, RFC 6928 §2), set where each controller takes its
    /// initial window, so everything that derives from it (BBR's first pacing rate) follows. BBR
    /// starts from it but keeps its configured window as InitialCwnd for its checks, as Linux's
    /// `tcp_bbr.c` compares with `TCP_INIT_CWND` (`BbrConfig::start_window_packets`).
    pub fn with_one_segment_window(&self, mss: u64) -> CcConfig {
        let mut c = self.clone();
        match &mut c {
            CcConfig::NewReno(c) => c.initial_window = Some(Bytes(mss)),
            CcConfig::Cubic(c) => c.initial_window = Some(Bytes(mss)),
            CcConfig::CubicPicoquic(c) => c.initial_window = Some(Bytes(mss)),
            CcConfig::Bbr(c) => c.start_window_packets = Some(1),
            CcConfig::Bbr3(c) => c.start_window_packets = Some(1),
            CcConfig::Dctcp(c) => c.initial_window = Some(Bytes(mss)),
            CcConfig::Prague(c) => c.initial_window = Some(Bytes(mss)),
        }
        c
    }
}
