//! The receiver obeying ACK_FREQUENCY and IMMEDIATE_ACK frames (draft-ietf-quic-ack-frequency-14
//! §4–6). Packets arrive 10 µs apart, far below any delayed-ACK timer.

mod receiver_util;

use cclab_core::ack::{AckFrequencyPolicyConfig, AckPolicyConfig};
use cclab_core::clock::ClockConfig;
use cclab_core::endpoint::receiver::ReceiverConfig;
use cclab_core::endpoint::Endpoint;
use cclab_core::wire::packet::{AckFrequencyFrame, Ecn, Packet};
use cclab_core::Dur;
use receiver_util::{data, freq, ms, quic, us, Script};

fn policy() -> AckPolicyConfig {
    AckPolicyConfig::AckFrequency(AckFrequencyPolicyConfig::default())
}

fn with_frame(pn: u64, f: AckFrequencyFrame) -> Packet {
    data(pn).with_ack_frequency(f)
}

#[test]
fn ack_frequency_behaves_as_rfc9000_before_any_frame() {
    let mut s = Script::new(quic(), policy());
    for pn in 0..10 {
        s.recv(us(10 * pn), data(pn));
    }
    assert_eq!(s.largests(), vec![1, 3, 5, 7, 9]);
    assert_eq!(s.r.policy().max_ack_delay(), Dur::from_millis(25));
}

#[test]
fn ack_frequency_threshold_from_frame_is_honoured() {
    let mut s = Script::new(quic(), policy());
    // Threshold 9: ACK after more than 9 ack-eliciting packets, i.e. on every 10th (§6).
    s.recv(us(0), with_frame(0, freq(0, 9, Dur::from_millis(5), 1)));
    for pn in 1..100 {
        s.recv(us(10 * pn), data(pn));
    }
    assert_eq!(s.largests(), (1..=10).map(|k| 10 * k - 1).collect::<Vec<_>>());
}

#[test]
fn ack_frequency_requested_delay_is_floored_by_min_ack_delay() {
    let mut s = Script::new(quic(), policy());
    // 100 µs requested, min_ack_delay 1 ms: the receiver uses 1 ms.
    s.recv(ms(10), with_frame(0, freq(0, 100, Dur::from_micros(100), 1)));
    assert_eq!(s.r.policy().max_ack_delay(), Dur::from_millis(1));
    s.advance(ms(20));
    assert_eq!(s.acks.iter().map(|a| a.0).collect::<Vec<_>>(), vec![ms(11)]);
}

#[test]
fn ack_frequency_delay_fires_on_the_timer_granularity() {
    // Timers fire on 1 ms boundaries: a 1 ms delay armed at 10.3 ms fires at 12 ms, not 11.3 ms.
    let cfg = ReceiverConfig {
        ack: policy(),
        clock: ClockConfig {
            timer_granularity: Dur::from_millis(1),
            ..Default::default()
        },
        ..Default::default()
    };
    let mut s = Script::with_config(quic(), &cfg);
    s.recv(us(10_300), with_frame(0, freq(0, 100, Dur::from_millis(1), 1)));
    assert_eq!(s.r.poll_timeout(), Some(ms(12)));
    s.advance(ms(20));
    assert_eq!(s.acks.len(), 1);
    assert_eq!(s.acks[0].0, ms(12));
}

#[test]
fn ack_frequency_frame_moves_the_timer_already_armed() {
    // pn 0 arms the 25 ms timer at 1 ms; pn 1 carries a frame asking for 4 ms while pn 0 still waits (and
    // a threshold of 9, so no ACK is sent at once): the timer now fires at 1 + 4 = 5 ms, as if the delay
    // were read at every poll, not at 26 ms as armed.
    let mut s = Script::new(quic(), policy());
    s.recv(ms(1), data(0));
    assert_eq!(s.r.poll_timeout(), Some(ms(26)));
    s.recv(ms(2), with_frame(1, freq(0, 9, Dur::from_millis(4), 1)));
    assert_eq!(s.r.poll_timeout(), Some(ms(5)));
    s.advance(ms(30));
    assert_eq!(s.acks.iter().map(|a| a.0).collect::<Vec<_>>(), vec![ms(5)]);
}

#[test]
fn ack_frequency_reordering_threshold_zero_never_acks_at_once() {
    let mut s = Script::new(quic(), policy());
    s.recv(us(0), with_frame(0, freq(0, 100, Dur::from_millis(5), 0)));
    // Gaps and reordering, 5 packets: none triggers an immediate ACK (§6.2).
    for (k, pn) in [5u64, 3, 9, 1, 2].into_iter().enumerate() {
        assert_eq!(s.recv(us(10 * (k as u64 + 1)), data(pn)), 0, "pn {pn}");
    }
    // The 5 ms timer from pn 0 sends one ACK.
    s.advance(ms(10));
    assert_eq!(s.acks.iter().map(|a| a.0).collect::<Vec<_>>(), vec![ms(5)]);
}

/// Feeds `pns` (the first carries the frame) with reordering threshold `t` and an
/// Ack-Eliciting Threshold too large to matter; returns the packet numbers that triggered an
/// immediate ACK.
fn reorder_run(t: u64, pns: &[u64]) -> Vec<u64> {
    let mut s = Script::new(quic(), policy());
    let mut acked = Vec::new();
    for (k, &pn) in pns.iter().enumerate() {
        let p = if k == 0 {
            with_frame(pn, freq(0, 1000, Dur::from_millis(25), t))
        } else {
            data(pn)
        };
        if s.recv(us(10 * k as u64), p) > 0 {
            acked.push(pn);
        }
    }
    acked
}

#[test]
fn ack_frequency_reordering_threshold_follows_draft_tables() {
    // §6.2.1 Table 1 (threshold 3) and Table 2 (threshold 5).
    assert_eq!(reorder_run(3, &[0, 1, 3, 4, 5, 8, 9, 10]), vec![5, 9, 10]);
    assert_eq!(reorder_run(5, &[0, 1, 3, 5, 6, 7, 8, 9]), vec![7, 9]);
}

#[test]
fn ack_frequency_stale_sequence_is_ignored() {
    let mut s = Script::new(quic(), policy());
    s.recv(us(0), with_frame(0, freq(5, 9, Dur::from_millis(5), 1)));
    // Sequence 3 and a repeated 5 are stale: threshold stays 9, delay 5 ms.
    s.recv(us(10), with_frame(1, freq(3, 0, Dur::from_millis(2), 1)));
    s.recv(us(20), with_frame(2, freq(5, 0, Dur::from_millis(2), 1)));
    for pn in 3..20 {
        s.recv(us(10 * pn), data(pn));
    }
    assert_eq!(s.largests(), vec![9, 19]);
    assert_eq!(s.r.policy().max_ack_delay(), Dur::from_millis(5));
    // A newer sequence applies.
    s.recv(us(200), with_frame(20, freq(6, 0, Dur::from_millis(2), 1)));
    assert_eq!(s.largests(), vec![9, 19, 20]);
}

#[test]
fn ack_frequency_immediate_ack_is_honoured() {
    let mut s = Script::new(quic(), policy());
    s.recv(us(0), with_frame(0, freq(0, 100, Dur::from_millis(25), 1)));
    assert_eq!(s.recv(us(10), data(1)), 0);
    assert_eq!(
        s.recv(
            us(20),
            Packet {
                immediate_ack: true,
                ..data(2)
            }
        ),
        1
    );
    assert_eq!(s.acks[0].1.ranges, vec![(0, 2)]);
}

#[test]
fn ack_frequency_ce_acks_only_on_transition_above_threshold_one() {
    let mut s = Script::new(quic(), policy());
    s.recv(us(0), with_frame(0, freq(0, 100, Dur::from_millis(25), 1)));
    // §6.3: CE after not-CE → ACK; CE after CE → no; not-CE then CE → ACK again.
    let marks = [Ecn::Ce, Ecn::Ce, Ecn::Ce, Ecn::Ect0, Ecn::Ce];
    let acks: Vec<usize> = (1..=5)
        .map(|pn| s.recv_ecn(us(10 * pn), data(pn), marks[pn as usize - 1]))
        .collect();
    assert_eq!(acks, vec![1, 0, 0, 0, 1]);
}
