//! DCTCP, Data Center TCP (RFC 8257, <https://www.rfc-editor.org/rfc/rfc8257>): Reno growth,
//! a window cut of `alpha/2` once per window with CE marks (§3.4), Reno's halving on loss (§3.5).

use super::{Response, ScalableWindow};
use crate::cc::{CcState, CongestionController, CongestionEvent};
use crate::time::{Dur, Time};
use crate::units::Bytes;
use crate::wire::packet::Ecn;
use serde::Deserialize;

/// DCTCP parameters.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DctcpConfig {
    /// Initial window, bytes. `None` = RFC 9002 §7.2: `min(10·mss, max(14720, 2·mss))`.
    pub initial_window: Option<Bytes>,
    /// Estimation gain g (RFC 8257 §4.2: 1/16).
    pub gain: f64,
    /// Initial alpha (RFC 8257 §3.3 leaves it open; 1, as Linux `dctcp_alpha_on_init`, makes the
    /// first response a halving).
    pub initial_alpha: f64,
    /// Mark packets ECT(1), the L4S identifier (RFC 9331 §4.1), instead of ECT(0) (default false:
    /// RFC 8257 DCTCP is for data centres and uses ECT(0)).
    pub ect1: bool,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            initial_window: None,
            gain: 1.0 / 16.0,
            initial_alpha: 1.0,
            ect1: false,
        }
    }
}

/// The DCTCP controller.
#[derive(Clone, Debug)]
pub struct Dctcp {
    w: ScalableWindow,
    ecn: Ecn,
}

impl Dctcp {
    /// A controller for full-sized packets of `mss` bytes.
    pub fn new(cfg: &DctcpConfig, mss: u64) -> Dctcp {
        let iw = cfg.initial_window.map_or((10 * mss).min(14720.max(2 * mss)), |b| b.0);
        Dctcp {
            w: ScalableWindow::new(mss, iw, 2 * mss, cfg.initial_alpha, cfg.gain, Response::Dctcp),
            ecn: if cfg.ect1 { Ecn::Ect1 } else { Ecn::Ect0 },
        }
    }

    /// The current estimate of the marked fraction.
    pub fn alpha(&self) -> f64 {
        self.w.alpha()
    }
}

impl CongestionController for Dctcp {
    fn on_congestion_event(&mut self, ev: &CongestionEvent<'_>) {
        // Reno's additive increase: one MSS per window (RFC 8257 §3.2 leaves growth to the base TCP).
        self.w.on_event(ev, 1.0, Dur::ZERO);
    }
    fn on_persistent_congestion(&mut self, _now: Time) {
        self.w.on_persistent_congestion();
    }
    fn window(&self) -> u64 {
        self.w.window()
    }
    fn ssthresh(&self) -> u64 {
        self.w.ssthresh()
    }
    fn ecn_codepoint(&self) -> Option<Ecn> {
        Some(self.ecn)
    }
    fn gate_is_window(&self) -> bool {
        true
    }
    fn reads_rate_samples(&self) -> bool {
        false
    }
    fn reads_sends(&self) -> bool {
        // Alpha's observation windows end at SND.NXT, which the ACK carries.
        false
    }

    fn state(&self) -> CcState {
        self.w.state()
    }
    fn name(&self) -> &'static str {
        "dctcp"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::test_util::{event, rtt_of};
    use crate::cc::AckedPacket;
    use crate::time::Dur;

    fn acked(pns: std::ops::Range<u64>, sent: Time) -> Vec<AckedPacket> {
        pns.map(|pn| AckedPacket {
            pn,
            bytes: 1000,
            time_sent: sent,
        })
        .collect()
    }

    #[test]
    fn dctcp_cuts_by_half_alpha_once_per_window() {
        let mut c = Dctcp::new(&DctcpConfig::default(), 1000);
        let rtt = rtt_of(Dur::from_millis(10));
        // Packets 0..10 sent. Window 1: packet 0 acked without marks opens alpha's window (ends at pn 10).
        let a = acked(0..1, Time::ZERO);
        c.on_congestion_event(&CongestionEvent {
            next_pn: 10,
            ..event(Time(10_000_000), &a, &[], &rtt)
        });
        assert_eq!(c.window(), 10_000 + 1000, "slow start");
        // Packets 10..40 sent; packets 1..=10 acked, 2 CE marks: the window ends at pn 10, alpha = 15/16 + 0.2/16 =
        // 0.95; slow start reaches 21000, then RFC 8257 §3.4: cwnd = 21000 · (1 − 0.95/2) = 11025.
        let a = acked(1..11, Time(5_000_000));
        let ev = CongestionEvent {
            ecn_ce: 2,
            next_pn: 40,
            ..event(Time(20_000_000), &a, &[], &rtt)
        };
        c.on_congestion_event(&ev);
        assert!((c.alpha() - 0.95).abs() < 1e-12, "alpha {}", c.alpha());
        assert_eq!(c.window(), 11_025);
        assert_eq!(c.ssthresh(), 11_025);
        // More marks for packets sent before the cut: no second reduction in the same window.
        let a = acked(11..13, Time(15_000_000));
        let ev = CongestionEvent {
            ecn_ce: 2,
            next_pn: 40,
            ..event(Time(21_000_000), &a, &[], &rtt)
        };
        c.on_congestion_event(&ev);
        assert_eq!(c.window(), 11_025);
        assert_eq!(c.ecn_codepoint(), Some(Ecn::Ect0));
    }

    #[test]
    fn dctcp_halves_on_loss() {
        let mut c = Dctcp::new(&DctcpConfig::default(), 1000);
        let rtt = rtt_of(Dur::from_millis(10));
        let lost = [crate::cc::LostPacket {
            pn: 3,
            bytes: 1000,
            time_sent: Time(1),
            ..Default::default()
        }];
        c.on_congestion_event(&event(Time(10_000_000), &[], &lost, &rtt));
        assert_eq!(c.window(), 5000);
    }
}
