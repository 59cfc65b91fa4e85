//! Script helpers for the receiver tests: feed packets at given true times, collect the ACKs.
#![allow(dead_code, unreachable_pub)]

use cclab_core::ack::AckPolicyConfig;
use cclab_core::endpoint::receiver::{Receiver, ReceiverConfig};
use cclab_core::endpoint::Endpoint;
use cclab_core::wire::packet::{AckFrame, AckFrequencyFrame, DataChunk, Datagram, Ecn, FlowId, Packet};
use cclab_core::wire::size::{Profile, QuicProfile, TcpProfile};
use cclab_core::{Dur, Time};

/// Stream bytes per test packet.
pub const CHUNK: u32 = 1000;

pub fn quic() -> Profile {
    Profile::Quic(QuicProfile::default())
}

/// TCP over IPv4 with timestamps, 1448-byte MSS (Linux's default on Ethernet).
pub fn tcp() -> Profile {
    Profile::Tcp(TcpProfile {
        mss: 1448,
        timestamps: true,
        ipv6: false,
        accecn: false,
    })
}

pub fn us(x: u64) -> Time {
    Time(x * 1_000)
}

pub fn ms(x: u64) -> Time {
    Time(x * 1_000_000)
}

/// A data packet `pn` carrying bytes `pn·CHUNK ..`.
pub fn data(pn: u64) -> Packet {
    Packet {
        pn,
        pn_len: 2,
        data: Some(DataChunk {
            offset: pn * CHUNK as u64,
            len: CHUNK,
            fin: false,
        }),
        ..Default::default()
    }
}

/// A receiver and the ACKs it sent, with the true time of each.
pub struct Script {
    pub r: Receiver,
    pub acks: Vec<(Time, AckFrame)>,
    pub sizes: Vec<u32>,
}

impl Script {
    pub fn new(profile: Profile, ack: AckPolicyConfig) -> Script {
        Script::with_config(
            profile,
            &ReceiverConfig {
                ack,
                ..Default::default()
            },
        )
    }

    pub fn with_config(profile: Profile, cfg: &ReceiverConfig) -> Script {
        Script {
            r: Receiver::new(FlowId(1), profile, cfg, Time::ZERO),
            acks: Vec::new(),
            sizes: Vec::new(),
        }
    }

    /// Fires every timer due up to `t`, then delivers `p` at `t` with ECN `ecn` and polls.
    /// Returns how many ACKs were sent at `t` in reply.
    #[track_caller]
    pub fn recv_ecn(&mut self, t: Time, p: Packet, ecn: Ecn) -> usize {
        self.advance(t);
        let before = self.acks.len();
        self.r.handle_datagram(
            t,
            Datagram {
                flow: FlowId(1),
                size: 1500,
                ecn,
                packet: p,
            },
        );
        self.poll(t);
        self.acks.len() - before
    }

    #[track_caller]
    pub fn recv(&mut self, t: Time, p: Packet) -> usize {
        self.recv_ecn(t, p, Ecn::NotEct)
    }

    /// Runs timers up to and including `t`.
    pub fn advance(&mut self, t: Time) {
        while let Some(d) = self.r.poll_timeout() {
            if d > t {
                break;
            }
            self.r.handle_timeout(d);
            self.poll(d);
        }
    }

    fn poll(&mut self, t: Time) {
        while let Some(d) = self.r.poll_transmit(t) {
            self.sizes.push(d.size);
            self.acks.push((t, *d.packet.ack.expect("ACK-only packet")));
        }
    }

    /// Largest acknowledged of every ACK sent.
    pub fn largests(&self) -> Vec<u64> {
        self.acks.iter().map(|(_, a)| a.largest().unwrap()).collect()
    }
}

/// An ACK_FREQUENCY frame.
pub fn freq(sequence: u64, threshold: u64, delay: Dur, reordering: u64) -> AckFrequencyFrame {
    AckFrequencyFrame {
        sequence,
        ack_eliciting_threshold: threshold,
        request_max_ack_delay_us: delay.as_micros(),
        reordering_threshold: reordering,
    }
}

/// TCP segment `i` of 1448 payload bytes.
pub fn segment(i: u64) -> Packet {
    Packet {
        pn: i,
        data: Some(DataChunk {
            offset: i * 1448,
            len: 1448,
            fin: false,
        }),
        ..Default::default()
    }
}
