//! The receiver's fast paths (the in-order arrival and the arrivals a loss leaves: data continuing the top
//! range above holes, opening a range above a gap, filling the oldest hole) against its general path: a
//! twin receiver gets every datagram with an empty rare-frame box, which no fast path takes and the general
//! path reads as no frame, and both must keep the same sets, counters, timers and ACKs, refusals included.

mod receiver_util;

use cclab_core::ack::{AckPolicyConfig, TcpDelayedConfig};
use cclab_core::endpoint::receiver::{Receiver, ReceiverConfig};
use cclab_core::endpoint::Endpoint;
use cclab_core::units::Bytes;
use cclab_core::wire::packet::{DataChunk, Datagram, Ecn, FlowId, Packet, MAX_VARINT};
use cclab_core::wire::size::Profile;
use cclab_core::Time;
use rand::Rng;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use receiver_util::{quic, tcp, us, CHUNK};

/// Credit of the twins, stream bytes: 40 chunks, so that a sender running ahead of old holes meets it (and
/// none at all, so that only the encoding bound refuses a far offset).
const WINDOWS: [u64; 2] = [40 * CHUNK as u64, u64::MAX];

fn dgram(pn: u64, offset: u64, len: u32, fin: bool) -> Datagram {
    Datagram {
        flow: FlowId(0),
        size: 1500,
        ecn: Ecn::NotEct,
        packet: Packet {
            pn,
            pn_len: 2,
            data: Some(DataChunk { offset, len, fin }),
            ..Default::default()
        },
    }
}

/// What the arrival is to the receiver before it, by the kinds the fast paths take.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    InOrder,
    AboveHoles,
    OpensGap,
    FillsOldestHole,
    Other,
}

fn kind(r: &Receiver, p: &Packet) -> Kind {
    let (Some(d), Some(largest), Some(top)) = (p.data, r.received().max(), r.stream().highest()) else {
        return Kind::Other;
    };
    if p.pn <= largest {
        return Kind::Other;
    }
    let holes = r.stream().len() > 1;
    match d.offset {
        o if o == top.1 + 1 && !holes => Kind::InOrder,
        o if o == top.1 + 1 => Kind::AboveHoles,
        o if o > top.1 + 1 => Kind::OpensGap,
        o if holes && o == r.stats().bytes_delivered => Kind::FillsOldestHole,
        _ => Kind::Other,
    }
}

/// Hands `d` to `fast` as it is and to `general` with an empty rare-frame box; both must agree on
/// everything the receiver shows.
fn feed(fast: &mut Receiver, general: &mut Receiver, now: Time, d: Datagram) {
    let mut twin = d.clone();
    twin.packet.rare = Some(Box::default());
    fast.handle_datagram(now, d);
    general.handle_datagram(now, twin);
    assert_eq!(fast.stream(), general.stream());
    assert_eq!(fast.received(), general.received());
    assert_eq!(fast.stats(), general.stats());
    assert_eq!(fast.poll_timeout(), general.poll_timeout());
}

/// A sender's arrivals at random: new chunks within the credit, a third of them lost in loss rounds,
/// retransmissions of the oldest lost bytes (some in two halves, so that one fills the hole partly), late and
/// duplicate packets, and now and then a hostile one (past the credit, past 2^62 − 1, an end past 2^64, empty,
/// a FIN); returns how many arrivals of each `Kind` it fed.
fn run(profile: Profile, ack: AckPolicyConfig, window: u64, seed: u64) -> [usize; 5] {
    let cfg = ReceiverConfig {
        receive_window: Some(Bytes(window)),
        ack,
        ..Default::default()
    };
    let mut fast = Receiver::new(FlowId(0), profile, &cfg, Time::ZERO);
    let mut general = Receiver::new(FlowId(0), profile, &cfg, Time::ZERO);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let (mut pn, mut next_offset) = (0u64, 0u64);
    let mut lost: Vec<(u64, u32)> = Vec::new();
    let mut late: Vec<Datagram> = Vec::new();
    let mut kinds = [0usize; 5];
    for step in 0..20_000u64 {
        let now = us(10 * step);
        while let Some(t) = fast.poll_timeout().filter(|&t| t <= now) {
            fast.handle_timeout(t);
            general.handle_timeout(t);
        }
        // New data within the credit, as an honest sender sends it; the oldest lost bytes otherwise.
        let blocked = next_offset + CHUNK as u64 > fast.stats().bytes_delivered.saturating_add(window);
        let (offset, len) = if !lost.is_empty() && (blocked || rng.random_bool(0.5)) {
            let (offset, len) = lost.remove(0);
            if len > 1 && rng.random_bool(0.3) {
                lost.insert(0, (offset + len as u64 / 2, len - len / 2));
                (offset, len / 2)
            } else {
                (offset, len)
            }
        } else {
            next_offset += CHUNK as u64;
            (next_offset - CHUNK as u64, CHUNK)
        };
        let mut d = dgram(pn, offset, len, false);
        pn += 1;
        // Hostile or late in place of these bytes: the sender sends them again.
        let mut resend = true;
        // Loss rounds of 1,000 steps with a third lost, and rounds without loss, where the holes close.
        let loss_round = (step / 1000) % 2 == 0;
        match rng.random_range(0..100) {
            0..30 if loss_round => {
                lost.push((offset, len));
                lost.sort();
                continue;
            }
            30..33 => {
                late.push(d);
                continue;
            }
            // Its end past the credit, or past 2^64 without one.
            33 => d.packet.data.as_mut().unwrap().offset = offset.saturating_add(window).saturating_sub(500),
            34 => d.packet.data.as_mut().unwrap().offset = MAX_VARINT - 10,
            35 => d.packet.data.as_mut().unwrap().offset = u64::MAX - 10,
            36 => d.packet.pn = MAX_VARINT + 1 + pn,
            37 => d.packet.data.as_mut().unwrap().len = 0,
            38 if step > 16_000 => d.packet.data.as_mut().unwrap().fin = true,
            39 => {
                late.push(d.clone());
                resend = false;
            }
            _ => resend = false,
        }
        if !late.is_empty() && rng.random_bool(0.3) {
            let l = late.remove(0);
            kinds[kind(&fast, &l.packet) as usize] += 1;
            feed(&mut fast, &mut general, now, l);
        }
        let refused_before = fast.stats().protocol_violations;
        kinds[kind(&fast, &d.packet) as usize] += 1;
        feed(&mut fast, &mut general, now, d);
        // Past the credit too.
        if resend || fast.stats().protocol_violations > refused_before {
            lost.push((offset, len));
            lost.sort();
        }
        loop {
            let (a, b) = (fast.poll_transmit(now), general.poll_transmit(now));
            assert_eq!(a, b, "the ACKs at step {step}");
            if a.is_none() {
                break;
            }
        }
    }
    kinds
}

#[test]
fn fast_paths_agree_with_the_general_path_on_random_arrivals() {
    let tcp_delayed = AckPolicyConfig::TcpDelayed(TcpDelayedConfig::default());
    for (profile, ack) in [
        (quic(), AckPolicyConfig::default()),
        (tcp(), AckPolicyConfig::default()),
        (quic(), tcp_delayed.clone()),
        (tcp(), tcp_delayed),
    ] {
        for (seed, window) in (0..4).zip(WINDOWS.into_iter().cycle()) {
            let kinds = run(profile, ack.clone(), window, seed);
            // Every kind the fast paths take came up often enough to matter.
            assert!(kinds[..4].iter().all(|&n| n > 200), "{profile:?} {seed}: {kinds:?}");
        }
    }
}
