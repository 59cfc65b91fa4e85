//! The answers a controller gives once, when it is built, for its whole life: `gate_is_window` (its
//! `send_gate` is its window alone, and the sender stops asking for the rest) and `reads_sends` (its
//! `on_packet_sent` changes nothing, and the sender stops calling it). Each must hold through every kind
//! of input.

use super::test_util::{event, rtt_of};
use super::{AckedPacket, CcConfig, CongestionController, LostPacket, SendGate};
use crate::time::{Dur, Time};

const MSS: u64 = 1200;

fn build(toml_cc: &str) -> Box<dyn CongestionController> {
    let cfg: CcConfig = toml::from_str(toml_cc).expect(toml_cc);
    cfg.build(Time::ZERO, MSS)
}

/// Sends and ACKs rounds of packets, with a loss in one round, and checks the gate after each input;
/// `tell_sends: false` leaves the sends unannounced (`on_packet_sent` not called). Returns what the
/// controller answered after each ACK.
fn drive_and_check(cc: &mut dyn CongestionController, name: &str, tell_sends: bool) -> Vec<(u64, u64, SendGate)> {
    let mut answers = Vec::new();
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
            if tell_sends {
                cc.on_packet_sent(now, pn, MSS, (pn - first + 1) * MSS);
            }
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
        answers.push((cc.window(), cc.ssthresh(), cc.send_gate()));
    }
    answers
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
        drive_and_check(cc.as_mut(), cfg, true);
    }
}

#[test]
fn a_controller_that_says_it_does_not_read_sends_answers_alike_without_them() {
    // HyStart++ and Linux's HyStart count rounds by the packets sent, the train estimator its train:
    // told of no send they answer otherwise, which is what this test would catch in a controller that
    // said `reads_sends` wrongly.
    for (cfg, reads) in [
        ("algorithm = \"newreno\"", false),
        ("algorithm = \"newreno\"\nslow_start = { kind = \"picoquic\" }", false),
        ("algorithm = \"cubic\"\nslow_start = { kind = \"classic\" }", false),
        ("algorithm = \"cubic-picoquic\"", false),
        ("algorithm = \"newreno\"\nslow_start = { kind = \"hystart++\" }", true),
        ("algorithm = \"cubic\"", true),
        ("algorithm = \"dctcp\"", true),
        ("algorithm = \"bbr\"", true),
    ] {
        assert_eq!(build(cfg).reads_sends(), reads, "{cfg}");
        if !reads {
            let told = drive_and_check(build(cfg).as_mut(), cfg, true);
            let untold = drive_and_check(build(cfg).as_mut(), cfg, false);
            assert_eq!(told, untold, "{cfg}");
        }
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
