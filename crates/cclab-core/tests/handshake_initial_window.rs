//! The data sender's first window after its handshake: one segment after a lost TCP SYN (RFC 5681
//! §3.1, RFC 6928 §2), the controller's own initial window otherwise, and always for QUIC.
//!
//! ```text
//!  client = data sender ──forward: 10 ms, or as `fwd(k)` says for its k-th datagram──▶ server
//!                       ◀──return:  10 ms, or as `ret(k)` says for the server's k-th──
//! ```
//! No link rate: a flight is every data packet the sender sends before the first ACK of data
//! comes back.

mod handshake_pair;

use handshake_pair::tcp;

use cclab_core::cc::cubic::picoquic::PicoquicCubicConfig;
use cclab_core::cc::{Bbr3Config, BbrConfig, CcConfig, CubicConfig, DctcpConfig, NewRenoConfig, PragueConfig};
use cclab_core::endpoint::handshake::{HandshakeConfig, SynLossWindow};
use cclab_core::endpoint::receiver::{Receiver, ReceiverConfig};
use cclab_core::endpoint::sender::{Sender, SenderConfig};
use cclab_core::endpoint::source::SourceConfig;
use cclab_core::endpoint::Endpoint;
use cclab_core::time::{Dur, Time};
use cclab_core::units::Bytes;
use cclab_core::wire::packet::{Datagram, FlowId};
use cclab_core::wire::size::{Profile, QuicProfile};

const ONE_WAY: Dur = Dur::from_millis(10);

/// Every registry controller with its defaults.
fn controllers() -> Vec<CcConfig> {
    vec![
        CcConfig::NewReno(NewRenoConfig::default()),
        CcConfig::Cubic(CubicConfig::default()),
        CcConfig::CubicPicoquic(PicoquicCubicConfig::default()),
        CcConfig::Bbr(BbrConfig::default()),
        CcConfig::Bbr3(Bbr3Config::default()),
        CcConfig::Dctcp(DctcpConfig::default()),
        CcConfig::Prague(PragueConfig::default()),
    ]
}

/// What a run showed: data packets sent before the first ACK of data arrived, the window after
/// each ACK of data (bytes), and the sender at the end.
struct Run {
    first_flight: usize,
    windows: Vec<u64>,
    sender: Sender,
}

/// Runs a handshake and bulk data until 5 s over the path above. `fwd(k)`/`ret(k)`: one-way delay
/// of the k-th datagram in each direction, `None` = lost.
fn run(profile: Profile, cc: &CcConfig, fwd: impl Fn(usize) -> Option<Dur>, ret: impl Fn(usize) -> Option<Dur>) -> Run {
    run_with(HandshakeConfig::default(), profile, cc, fwd, ret)
}

/// `run` with the handshake configured by `hs`.
fn run_with(
    hs: HandshakeConfig,
    profile: Profile,
    cc: &CcConfig,
    fwd: impl Fn(usize) -> Option<Dur>,
    ret: impl Fn(usize) -> Option<Dur>,
) -> Run {
    let (mut s, mut r) = handshake_pair::pair(profile, hs, cc, 1_000_000);
    // (arrival, towards the receiver, datagram)
    let mut wire: Vec<(Time, bool, Datagram)> = Vec::new();
    let (mut sent_fwd, mut sent_ret) = (0, 0);
    let (mut data_sent, mut first_flight, mut windows) = (0, None, Vec::new());
    let stop = Time::ZERO + Dur::from_secs(5);
    let mut now = Time::ZERO;
    for _ in 0..100_000 {
        while let Some(d) = s.poll_transmit(now) {
            data_sent += usize::from(d.packet.data.is_some());
            if let Some(delay) = fwd(sent_fwd) {
                wire.push((now + delay, true, d));
            }
            sent_fwd += 1;
        }
        while let Some(d) = r.poll_transmit(now) {
            if let Some(delay) = ret(sent_ret) {
                wire.push((now + delay, false, d));
            }
            sent_ret += 1;
        }
        let arrival = wire.iter().map(|w| w.0).min();
        let next = [arrival, s.poll_timeout(), r.poll_timeout()]
            .into_iter()
            .flatten()
            .min();
        let Some(next) = next.filter(|&t| t <= stop) else {
            break;
        };
        now = now.max(next);
        wire.sort_by_key(|w| w.0);
        let due = wire.iter().take_while(|w| w.0 <= now).count();
        for (_, to_receiver, d) in wire.drain(..due) {
            if to_receiver {
                r.handle_datagram(now, d);
            } else {
                let acks_data = d.packet.ack.is_some();
                s.handle_datagram(now, d);
                if acks_data && data_sent > 0 {
                    first_flight.get_or_insert(data_sent);
                    windows.push(s.controller().window());
                }
            }
        }
        if s.poll_timeout().is_some_and(|t| t <= now) {
            s.handle_timeout(now);
        }
        if r.poll_timeout().is_some_and(|t| t <= now) {
            r.handle_timeout(now);
        }
    }
    Run {
        first_flight: first_flight.expect("an ACK of data came back"),
        windows,
        sender: s,
    }
}

fn on_time(_: usize) -> Option<Dur> {
    Some(ONE_WAY)
}

/// The first datagram is lost, the rest arrive after 10 ms.
fn first_lost(k: usize) -> Option<Dur> {
    (k > 0).then_some(ONE_WAY)
}

#[test]
fn tcp_lost_syn_starts_data_from_one_segment_then_slow_start() {
    for cc in controllers() {
        let run = run(tcp(true), &cc, first_lost, on_time);
        let name = run.sender.controller().name();
        assert_eq!(run.first_flight, 1, "{name}: one segment after the lost SYN");
        assert!(
            run.windows[0] > 1448,
            "{name}: slow start grows it: {:?}",
            &run.windows[..4]
        );
    }
    // A lost SYN-ACK reaches the client as its SYN's timeout: the same.
    let nr = CcConfig::NewReno(Default::default());
    assert_eq!(run(tcp(true), &nr, on_time, first_lost).first_flight, 1);
    // NewReno's slow start: +1 segment per segment acknowledged (RFC 5681 §3.1). Without a link
    // rate a flight arrives at once and one ACK covers it, so the window doubles per ACK.
    let run = run(tcp(true), &nr, first_lost, on_time);
    assert_eq!(
        run.windows[..4],
        [2, 4, 8, 16].map(|n| n * 1448),
        "{:?}",
        &run.windows[..6]
    );
}

#[test]
fn tcp_linux_rule_cuts_the_window_only_after_a_second_resent_syn() {
    // Linux's `tcp_init_transfer`: cwnd 1 only when `total_retrans > 1`. The first two SYNs lost:
    // resent at 1 s and again at 3 s.
    let linux = HandshakeConfig {
        syn_loss_window: Some(SynLossWindow::Linux),
        ..Default::default()
    };
    let first_two_lost = |k: usize| (k > 1).then_some(ONE_WAY);
    for cc in controllers() {
        let one = run_with(linux.clone(), tcp(true), &cc, first_lost, on_time);
        let name = one.sender.controller().name();
        assert_eq!(one.first_flight, 10, "{name}: one resent SYN keeps RFC 6928's ten");
        let two = run_with(linux.clone(), tcp(true), &cc, first_two_lost, on_time);
        assert_eq!(two.first_flight, 1, "{name}: two resent SYNs cut it to one");
    }
    // The default, said or not, is the RFCs' rule: one resent SYN is enough.
    let rfc = HandshakeConfig {
        syn_loss_window: Some(SynLossWindow::Rfc5681),
        ..Default::default()
    };
    let nr = CcConfig::NewReno(Default::default());
    assert_eq!(run_with(rfc, tcp(true), &nr, first_lost, on_time).first_flight, 1);
    // A lost SYN-ACK is the client's SYN resent once: the full window under Linux's rule.
    assert_eq!(run_with(linux, tcp(true), &nr, on_time, first_lost).first_flight, 10);
}

#[test]
fn tcp_clean_handshake_keeps_the_full_initial_window() {
    for cc in controllers() {
        let run = run(tcp(true), &cc, on_time, on_time);
        let name = run.sender.controller().name();
        assert_eq!(run.first_flight, 10, "{name}: RFC 6928's ten segments");
    }
}

#[test]
fn tcp_syn_ack_to_the_first_syn_shows_a_spurious_timeout_with_timestamps() {
    // The SYN-ACKs take 1.5 s: the SYN is resent at 1 s, but the first SYN-ACK (echoing the
    // first SYN in its TSecr) opens the connection. Nothing was lost: the full window, and the
    // 1.51 s round trip as the first RTT sample. Without timestamps the client cannot tell which
    // SYN was answered: one segment, and no sample (Karn, RFC 6298 §3).
    let slow_syn_acks = |k: usize| Some(if k < 2 { Dur::from_millis(1500) } else { ONE_WAY });
    let cc = CcConfig::NewReno(Default::default());
    let with_ts = run(tcp(true), &cc, on_time, slow_syn_acks);
    assert_eq!(with_ts.first_flight, 10);
    let without = run(tcp(false), &cc, on_time, slow_syn_acks);
    assert_eq!(without.first_flight, 1);
}

#[test]
fn tcp_syn_ack_after_a_resent_syn_gives_an_rtt_sample_only_with_timestamps() {
    let ms = |x: u64| Time::ZERO + Dur::from_millis(x);
    let hs = Some(HandshakeConfig::default());
    for timestamps in [false, true] {
        let scfg = SenderConfig {
            handshake: hs.clone(),
            ..Default::default()
        };
        let cc = CcConfig::NewReno(Default::default());
        let source = SourceConfig::Bulk { size: Bytes(10_000) };
        let mut s = Sender::new(FlowId(0), tcp(timestamps), &scfg, &cc, &source, Time::ZERO);
        let rcfg = ReceiverConfig {
            handshake: hs.clone(),
            ..Default::default()
        };
        let mut r = Receiver::new(FlowId(0), tcp(timestamps), &rcfg, Time::ZERO);
        s.poll_transmit(Time::ZERO).expect("the SYN, lost");
        s.handle_timeout(ms(1000));
        let syn = s.poll_transmit(ms(1000)).expect("the SYN again");
        r.handle_datagram(ms(1010), syn);
        let syn_ack = r.poll_transmit(ms(1010)).expect("the SYN-ACK");
        s.handle_datagram(ms(1020), syn_ack);
        // Without timestamps either SYN may have been answered (Karn, RFC 6298 §3); with them the
        // TSecr names the second, 20 ms before.
        assert_eq!(s.rtt().has_sample(), timestamps, "timestamps {timestamps}");
        if timestamps {
            assert_eq!(s.rtt().latest(), Dur::from_millis(20));
        }
    }
}

#[test]
fn quic_lost_initial_keeps_the_initial_window() {
    let profile = Profile::Quic(QuicProfile::default());
    for cc in controllers() {
        let run = run(profile, &cc, first_lost, on_time);
        let name = run.sender.controller().name();
        let mss = profile.mss() as u64;
        let iw = (10 * mss).min(14_720.max(2 * mss));
        assert_eq!(
            run.first_flight as u64,
            iw.div_ceil(mss),
            "{name}: RFC 9002 §7.2 after a lost Initial"
        );
    }
}
