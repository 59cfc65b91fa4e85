//! `CongestionController::reads_sends`: a controller that says it does not read sends must act the
//! same whether or not `on_packet_sent` is called, since the sender then stops calling it.

use super::test_util::{event, rtt_of};
use super::{AckedPacket, CcConfig, CongestionController, CongestionEvent, LostPacket};
use crate::time::{Dur, Time};

const MSS: u64 = 1200;

fn build(toml_cc: &str) -> Box<dyn CongestionController> {
    let cfg: CcConfig = toml::from_str(toml_cc).expect(toml_cc);
    cfg.build(Time::ZERO, MSS)
}

/// Every registered controller, with each slow start where it has one.
const CONFIGS: [&str; 14] = [
    "algorithm = \"newreno\"",
    "algorithm = \"newreno\"\nslow_start = { kind = \"hystart++\" }",
    "algorithm = \"newreno\"\nslow_start = { kind = \"picoquic\" }",
    "algorithm = \"newreno\"\nslow_start = { kind = \"train\", pacing_pause_on_failed_estimate = true }",
    "algorithm = \"cubic\"",
    "algorithm = \"cubic\"\nslow_start = { kind = \"linux-hystart\" }",
    "algorithm = \"cubic\"\nslow_start = { kind = \"train\" }",
    "algorithm = \"cubic-picoquic\"",
    "algorithm = \"cubic-picoquic\"\nslow_start = { kind = \"hystart++\" }",
    "algorithm = \"cubic-picoquic\"\nslow_start = { kind = \"train\" }",
    "algorithm = \"dctcp\"",
    "algorithm = \"prague\"",
    "algorithm = \"bbr\"",
    "algorithm = \"bbr3\"",
];

/// What a sender reads of a controller, after one input.
fn seen(cc: &dyn CongestionController) -> String {
    format!("{:?} {:?} {}", cc.send_gate(), cc.state(), cc.ssthresh())
}

/// Runs 40 rounds of sends, each acknowledged by four ACKs 1 ms apart one RTT later, and returns what
/// the sender reads after every input. The RTT starts above the train estimator's long-RTT threshold
/// (its pause and post-pause train) and rises by 20 ms a round from round 10 on (HyStart's rounds and
/// delay tests); round 20 loses a packet. `skip` leaves out the sends of a controller that says it
/// does not read them.
fn drive(cc: &mut dyn CongestionController, skip: bool) -> Vec<String> {
    let mut log = Vec::new();
    let mut rtt = rtt_of(Dur::from_millis(150));
    let (mut pn, mut now) = (0, Time::ZERO);
    for round in 0..40u64 {
        let packets = (cc.window() / MSS).clamp(4, 64);
        let first = pn;
        for _ in 0..packets {
            if !skip || cc.reads_sends() {
                cc.on_packet_sent(now, pn, MSS, (pn - first + 1) * MSS);
            }
            pn += 1;
            log.push(seen(cc));
        }
        let sample = Dur::from_millis(150 + round.saturating_sub(10) * 20);
        let lost_pn = (round == 20).then_some(first);
        let sent_at = now;
        for (k, chunk) in (first..pn)
            .collect::<Vec<_>>()
            .chunks(packets.div_ceil(4) as usize)
            .enumerate()
        {
            now = Time(sent_at.0 + sample.0 + k as u64 * 1_000_000);
            rtt.update(now, sample, Dur::ZERO);
            let acked: Vec<AckedPacket> = chunk
                .iter()
                .filter(|&&p| Some(p) != lost_pn)
                .map(|&p| AckedPacket {
                    pn: p,
                    bytes: MSS,
                    time_sent: sent_at,
                })
                .collect();
            let lost: Vec<LostPacket> = lost_pn
                .filter(|_| k == 0)
                .map(|p| LostPacket {
                    pn: p,
                    bytes: MSS,
                    time_sent: sent_at,
                    ..Default::default()
                })
                .into_iter()
                .collect();
            let ev = CongestionEvent {
                next_pn: pn,
                ..event(now, &acked, &lost, &rtt)
            };
            cc.on_congestion_event(&ev);
            log.push(seen(cc));
        }
    }
    log
}

#[test]
fn a_controller_that_says_it_reads_no_sends_acts_the_same_without_them() {
    for cfg in CONFIGS {
        let with = drive(build(cfg).as_mut(), false);
        let without = drive(build(cfg).as_mut(), true);
        assert_eq!(with, without, "{cfg}");
    }
}

#[test]
fn only_the_train_estimator_and_bbr_read_sends() {
    // HyStart++, Linux's HyStart, DCTCP's and Prague's alpha take SND.NXT from the ACK; the train
    // estimator times its train by the sends, BBR and BBRv3 track what is in flight.
    let reads = |cfg: &str| cfg.contains("train") || cfg.contains("bbr");
    for cfg in CONFIGS {
        assert_eq!(build(cfg).reads_sends(), reads(cfg), "{cfg}");
    }
}
