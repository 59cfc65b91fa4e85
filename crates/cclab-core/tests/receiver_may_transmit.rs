//! `Receiver::may_transmit` against the poll it stands for: two receivers fed the same datagrams,
//! one asked `may_transmit` before each poll (polled only when it says yes), the other always
//! polled, must send the same ACKs at the same times and report the same timers; a refusal must
//! be a poll that would have returned nothing. Polls are probed around each delayed-ACK deadline
//! without firing the timer, so the deadline test itself is checked, not only `handle_timeout`'s.

mod receiver_util;

use cclab_core::ack::{AckPolicyConfig, Rfc9000Config, TcpDelayedConfig};
use cclab_core::endpoint::Endpoint;
use cclab_core::wire::packet::{Datagram, Ecn, FlowId, Packet};
use cclab_core::wire::size::Profile;
use cclab_core::{Dur, Time};
use receiver_util::{data, quic, segment, tcp, us, Script};

fn dgram(p: Packet) -> Datagram {
    Datagram {
        flow: FlowId(1),
        size: 1500,
        ecn: Ecn::NotEct,
        packet: p,
    }
}

/// Counts of what the asked receiver did: refusals, and ACKs sent at a probe after a refusal at
/// an earlier probe (a deadline that passed between two probes).
#[derive(Default, Debug)]
struct Seen {
    refused: u64,
    sent_after_refusal: u64,
}

/// Polls both until `None` at `t`, `asked` through `may_transmit`; checks they agree.
#[track_caller]
fn probe(asked: &mut Script, always: &mut Script, t: Time, seen: &mut Seen, refused_before: &mut bool) {
    loop {
        let may = asked.r.may_transmit(t);
        let a = if may { asked.r.poll_transmit(t) } else { None };
        let b = always.r.poll_transmit(t);
        assert_eq!(format!("{a:?}"), format!("{b:?}"), "at {t:?}");
        assert_eq!(asked.r.poll_timeout(), always.r.poll_timeout(), "at {t:?}");
        if !may {
            seen.refused += 1;
            *refused_before = true;
            return;
        }
        if a.is_none() {
            return;
        }
        if *refused_before {
            seen.sent_after_refusal += 1;
        }
        *refused_before = false;
    }
}

/// Feeds `packets` (arrival time, packet) to both and probes after each arrival, at 1 ns before,
/// at and 1 ns after the delayed-ACK deadline the always-polled one reports, and midway.
fn drive(profile: Profile, ack: AckPolicyConfig, packets: &[(Time, Packet)]) -> Seen {
    let (mut asked, mut always) = (Script::new(profile, ack.clone()), Script::new(profile, ack));
    let mut seen = Seen::default();
    let mut refused_before = false;
    for (i, (t, p)) in packets.iter().enumerate() {
        asked.r.handle_datagram(*t, dgram(p.clone()));
        always.r.handle_datagram(*t, dgram(p.clone()));
        probe(&mut asked, &mut always, *t, &mut seen, &mut refused_before);
        let next = packets.get(i + 1).map_or(Time::MAX, |(n, _)| *n);
        if let Some(d) = always.r.poll_timeout().filter(|&d| d > *t) {
            let mut probes = vec![*t + Dur((d - *t).as_nanos() / 2), d - Dur(1), d, d + Dur(1)];
            probes.retain(|&x| x > *t && x < next);
            for x in probes {
                probe(&mut asked, &mut always, x, &mut seen, &mut refused_before);
            }
        }
    }
    seen
}

/// In-order runs with pauses longer than the ACK delay, a gap (ACK at once) and its fill.
fn quic_packets() -> Vec<(Time, Packet)> {
    let mut v = Vec::new();
    let mut t = us(0);
    for pn in (0..12).chain([14, 13, 12]).chain(15..20) {
        v.push((t, data(pn)));
        // Every fifth packet is followed by a pause past the 25 ms delayed-ACK deadline.
        t += if pn % 5 == 4 {
            Dur::from_millis(40)
        } else {
            Dur::from_micros(10)
        };
    }
    v
}

#[test]
fn receiver_may_transmit_matches_its_poll_quic() {
    let ack = AckPolicyConfig::Rfc9000(Rfc9000Config::default());
    let seen = drive(quic(), ack, &quic_packets());
    // Refusals after packets not yet acknowledged and after ACKs; ACKs whose deadline passed between probes.
    assert!(seen.refused >= 20, "{seen:?}");
    assert!(seen.sent_after_refusal >= 3, "{seen:?}");
}

#[test]
fn receiver_may_transmit_matches_its_poll_tcp() {
    let ack = AckPolicyConfig::TcpDelayed(TcpDelayedConfig::default());
    let packets: Vec<_> = (0..30)
        .map(|i| (us(10 * i) + Dur::from_millis(100 * (i / 7)), segment(i)))
        .collect();
    let seen = drive(tcp(), ack, &packets);
    assert!(seen.refused >= 15, "{seen:?}");
    assert!(seen.sent_after_refusal >= 2, "{seen:?}");
}
