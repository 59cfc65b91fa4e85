//! The window and pacing rate a sender keeps between inputs (`Sender::kept_gate_matches`,
//! `endpoint/sender/kept_gate.rs`), checked against the controller and the RTT estimator after every
//! step of paced transfers (the driver asks at each of its checks): with and without losses, PRR,
//! TSO, a flow-control limit, an application-limited source, and controllers that may and may not
//! have their gate kept. A kept gate that an ACK or a timer changed without dropping it fails the
//! driver's check; each transfer must also have used a kept gate, where one may be kept.

mod sender_pair;

use cclab_core::cc::{BbrConfig, CcConfig, CubicConfig, NewRenoConfig};
use cclab_core::endpoint::sender::{Sender, SenderConfig, TsoConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::Endpoint;
use cclab_core::time::{Dur, Time};
use cclab_core::units::{Bytes, Rate};
use cclab_core::wire::packet::FlowId;
use cclab_core::wire::size::{Profile, QuicProfile};
use sender_pair::Pair;

const BULK: SourceConfig = SourceConfig::Bulk { size: Bytes(3_000_000) };

/// Runs a paced transfer at 100 Mbit/s and 10 ms one way, dropping every `drop_every`th data packet
/// (0: none), for at most 3 s; returns the steps after which a kept gate was current.
fn kept_steps(cfg: SenderConfig, cc: CcConfig, source: &SourceConfig, drop_every: u64) -> u64 {
    let profile = Profile::Quic(QuicProfile::default());
    let s = Sender::new(FlowId(0), profile, &cfg, &cc, source, Time::ZERO);
    let mut p = Pair::new(s, Dur::from_millis(10), 100_000_000);
    if drop_every > 0 {
        p.drop_data = Box::new(move |_, d| d.packet.pn % drop_every == drop_every - 1);
    }
    let mut kept = 0;
    let limit = Time::ZERO + Dur::from_secs(3);
    while !p.sender.is_done() && p.now < limit {
        assert!(p.step(), "stalled at {}", p.now);
        kept += (p.sender.kept_gate_matches() == Some(true)) as u64;
    }
    kept
}

fn newreno() -> CcConfig {
    CcConfig::NewReno(NewRenoConfig::default())
}

#[test]
fn kept_gate_stays_current_with_and_without_losses() {
    for drop_every in [0, 50, 7] {
        let kept = kept_steps(SenderConfig::default(), newreno(), &BULK, drop_every);
        assert!(kept > 0, "drop every {drop_every}: no gate kept");
    }
    let cubic = kept_steps(
        SenderConfig::default(),
        CcConfig::Cubic(CubicConfig::default()),
        &BULK,
        50,
    );
    assert!(cubic > 0, "CUBIC: no gate kept");
}

#[test]
fn kept_gate_stays_current_with_prr_tso_and_flow_control() {
    let prr = SenderConfig {
        proportional_rate_reduction: true,
        ..SenderConfig::default()
    };
    let tso = SenderConfig {
        tso: TsoConfig {
            enabled: true,
            ..TsoConfig::default()
        },
        ..SenderConfig::default()
    };
    let credit = SenderConfig {
        receive_window: Some(Bytes(65_536)),
        ..SenderConfig::default()
    };
    for (name, cfg) in [("prr", prr), ("tso", tso), ("flow control", credit)] {
        assert!(kept_steps(cfg, newreno(), &BULK, 50) > 0, "{name}: no gate kept");
    }
}

#[test]
fn kept_gate_stays_current_for_an_application_limited_source() {
    let cbr = SourceConfig::Cbr {
        packet_size: Bytes(1_000),
        rate: Rate(20_000_000),
        duration: Some(Dur::from_millis(500)),
    };
    assert!(kept_steps(SenderConfig::default(), newreno(), &cbr, 50) > 0);
}

#[test]
fn no_gate_is_kept_for_a_controller_with_more_than_a_window() {
    // BBR sets its own pacing rate and send quantum: its gate is read on every attempt.
    let kept = kept_steps(SenderConfig::default(), CcConfig::Bbr(BbrConfig::default()), &BULK, 50);
    assert_eq!(kept, 0);
}
