//! DCCP connection setup as CCID-3 uses it: the client's DCCP-Request and the server's
//! DCCP-Response (RFC 4340 §8.1.1–8.1.2, <https://www.rfc-editor.org/rfc/rfc4340#section-8.1>),
//! whose round trip is the sender's first RTT sample (RFC 4342 erratum 2, rfc3448bis-00 §4.2;
//! Linux `dccps_syn_rtt`).
//!
//! Only what the congestion controller sees is modelled: a Request is a packet without data that
//! asks for an answer (`Packet::ping`), the Response is a packet without feedback options that
//! acknowledges the Request's sequence number. The sample runs from the Request's send decision
//! (its Timestamp option is written when the packet is built, RFC 4340 §13.1) to the Response's
//! arrival, so it includes the server's setup work (`TfrcConfig::response_delay`).

use crate::time::{Dur, Time};
use crate::wire::packet::{AckFrame, Packet};

/// First Request retransmission timeout (RFC 4340 §8.1.1: "approximately one second").
pub const REQUEST_TIMEOUT: Dur = Dur::from_secs(1);
/// Longest Request backoff (RFC 4340 §8.1.1: "not less than one packet every 64 seconds").
pub const REQUEST_BACKOFF_MAX: Dur = Dur::from_secs(64);

/// The client side: sends Requests until a Response opens the connection.
#[derive(Clone, Copy, Debug)]
pub struct Requester {
    /// Sequence number and clock reading of the latest Request.
    last: Option<(u64, Time)>,
    /// Clock reading at which the next Request is due.
    next_at: Time,
    backoff: Dur,
    open: bool,
}

impl Requester {
    /// A client that sends its first Request at clock reading `start`.
    pub fn new(start: Time) -> Requester {
        Requester {
            last: None,
            next_at: start,
            backoff: REQUEST_TIMEOUT,
            open: false,
        }
    }

    /// A Response arrived: data may flow.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// Clock reading at which a Request is due, `None` once open.
    pub fn due(&self) -> Option<Time> {
        (!self.open).then_some(self.next_at)
    }

    /// Request `pn` was sent at clock reading `t`; the next one follows after an exponential
    /// backoff from 1 s up to 64 s (RFC 4340 §8.1.1).
    pub fn on_request_sent(&mut self, pn: u64, t: Time) {
        self.last = Some((pn, t));
        self.next_at = t + self.backoff;
        self.backoff = (self.backoff * 2).min(REQUEST_BACKOFF_MAX);
    }

    /// A Response acknowledging `echo` arrived at clock reading `t`: the connection opens. Returns
    /// the RTT sample when it answers the latest Request (an older one is ambiguous).
    pub fn on_response(&mut self, echo: u64, t: Time) -> Option<Dur> {
        if self.open {
            return None;
        }
        self.open = true;
        let (pn, sent) = self.last?;
        (pn == echo).then(|| t.saturating_since(sent))
    }
}

/// The server side: answers each Request after `delay` (connection setup work).
#[derive(Clone, Copy, Debug)]
pub struct Responder {
    delay: Dur,
    /// Clock reading at which a Response is due, and the Request it acknowledges.
    due: Option<(Time, u64)>,
}

impl Responder {
    /// A server that answers `delay` after a Request arrives.
    pub fn new(delay: Dur) -> Responder {
        Responder { delay, due: None }
    }

    /// Request `pn` arrived at clock reading `t`.
    pub fn on_request(&mut self, pn: u64, t: Time) {
        self.due = Some((t + self.delay, pn));
    }

    /// Clock reading at which a Response is due.
    pub fn due(&self) -> Option<Time> {
        self.due.map(|d| d.0)
    }

    /// The Request to acknowledge if its Response is due at clock reading `t`.
    pub fn take_due(&mut self, t: Time) -> Option<u64> {
        let (at, pn) = self.due?;
        (at <= t).then(|| {
            self.due = None;
            pn
        })
    }
}

/// A DCCP-Request numbered `pn`.
pub fn request(pn: u64) -> Packet {
    Packet {
        pn,
        ping: true,
        ..Default::default()
    }
}

/// Whether `p` is a DCCP-Request.
pub fn is_request(p: &Packet) -> bool {
    p.ping && p.data.is_none()
}

/// A DCCP-Response numbered `pn` acknowledging Request `echo`.
pub fn response(pn: u64, echo: u64) -> Packet {
    Packet {
        pn,
        ack: Some(Box::new(AckFrame {
            ranges: [(echo, echo)].into_iter().collect(),
            ..Default::default()
        })),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> Time {
        Time(x * 1_000)
    }

    #[test]
    fn handshake_sample_spans_request_to_response() {
        let mut c = Requester::new(us(0));
        assert_eq!(c.due(), Some(us(0)));
        c.on_request_sent(0, us(0));
        // Link RTT 3 µs plus 60 µs of server work: the sample is the whole 63 µs exchange.
        let mut s = Responder::new(Dur::from_micros(60));
        s.on_request(0, us(1));
        assert_eq!(s.take_due(us(60)), None);
        assert_eq!(s.take_due(us(61)), Some(0));
        assert_eq!(c.on_response(0, us(63)), Some(Dur::from_micros(63)));
        assert!(c.is_open() && c.due().is_none());
        assert_eq!(c.on_response(0, us(70)), None);
    }

    #[test]
    fn handshake_request_backs_off_to_64_s() {
        let mut c = Requester::new(Time::ZERO);
        let mut t = Time::ZERO;
        let mut gaps = Vec::new();
        for pn in 0..9 {
            c.on_request_sent(pn, t);
            let next = c.due().unwrap();
            gaps.push(next.saturating_since(t).as_secs_f64());
            t = next;
        }
        assert_eq!(gaps, [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 64.0, 64.0]);
        // A Response to an older Request opens the connection but gives no sample.
        assert_eq!(c.on_response(3, t), None);
        assert!(c.is_open());
    }

    #[test]
    fn handshake_packets_are_told_apart() {
        assert!(is_request(&request(7)));
        assert!(!is_request(&response(8, 7)));
        assert_eq!(response(8, 7).ack.unwrap().largest(), Some(7));
    }
}
