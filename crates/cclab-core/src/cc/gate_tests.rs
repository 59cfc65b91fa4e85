//! `CongestionController::gate_is_window`: a controller that says so must answer `send_gate` with its
//! window alone through every kind of input, since the sender then stops asking for the rest.

use super::test_util::{event, rtt_of};
use super::{AckedPacket, CcConfig, CongestionController, LostPacket, SendGate};
use crate::time::{Dur, Time};

const MSS: u64 = 1200;

fn build(toml_cc: &str) -> Box<dyn CongestionController> {
    let cfg: CcConfig = toml::from_str(toml_cc).expect(toml_cc);
    cfg.build(Time::ZERO, MSS)
}

/// Sends and ACKs rounds of packets, with a loss in one round, and checks the gate after each input.
fn drive_and_check(cc: &mut dyn CongestionController, name: &str) {
    let rtt = rtt_of(Dur::from_millis(10));
    let check = |cc: &dyn CongestionController, at: &str| {
        if cc.gate_is_window() {
            assert_eq!(cc.send_gate(), SendGate::of_window(cc.window()), "{name} {at}");
        }
    };
    let mut pn = 0;
    for round in 0..40u64 {
        let now = Time(round * 10_000_000);
        let packets = (cc.window() / MSS).clamp(1, 64);
        let first = pn;
        for _ in 0..packets {
            cc.on_packet_sent(now, pn, MSS, (pn - first + 1) * MSS);
            pn += 1;
            check(cc, "after a send");
        }
        let acked: Vec<AckedPacket> = (first..pn)
            .filter(|&p| round != 20 || p != first)
            .map(|p| AckedPacket {
                pn: p,
                bytes: MSS,
                time_sent: now,
            })
            .collect();
        let lost: Vec<LostPacket> = (round == 20)
            .then(|| LostPacket {
                pn: first,
                bytes: MSS,
                time_sent: now,
                ..Default::default()
            })
            .into_iter()
            .collect();
        let later = Time(now.0 + 10_000_000 - 1);
        cc.on_congestion_event(&event(later, &acked, &lost, &rtt));
        check(cc, "after an ACK");
    }
}

#[test]
fn a_gate_said_to_be_the_window_is_the_window_through_sends_acks_and_losses() {
    let window_only = [
        "algorithm = \"newreno\"",
        "algorithm = \"newreno\"\nslow_start = { kind = \"hystart++\" }",
        "algorithm = \"newreno\"\nslow_start = { kind = \"picoquic\" }",
        "algorithm = \"cubic\"",
        "algorithm = \"cubic\"\nslow_start = { kind = \"linux-hystart\" }",
        "algorithm = \"cubic-picoquic\"",
        "algorithm = \"dctcp\"",
    ];
    for cfg in window_only {
        let mut cc = build(cfg);
        assert!(cc.gate_is_window(), "{cfg}");
        drive_and_check(cc.as_mut(), cfg);
    }
}

#[test]
fn a_controller_that_paces_pauses_or_trains_does_not_say_its_gate_is_the_window() {
    // The train estimator pauses the sender and releases trains; Prague bounds its bursts and paces;
    // BBR paces and sends quanta.
    for cfg in [
        "algorithm = \"newreno\"\nslow_start = { kind = \"train\", pacing_pause_on_failed_estimate = true }",
        "algorithm = \"cubic\"\nslow_start = { kind = \"train\" }",
        "algorithm = \"cubic-picoquic\"\nslow_start = { kind = \"train\" }",
        "algorithm = \"prague\"",
        "algorithm = \"bbr\"",
        "algorithm = \"bbr3\"",
    ] {
        assert!(!build(cfg).gate_is_window(), "{cfg}");
    }
}
