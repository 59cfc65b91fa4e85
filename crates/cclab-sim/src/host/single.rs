//! The event loop of a free host (`Host::free`) with exactly one endpoint: each host of a
//! point-to-point run of one flow and of a dumbbell.
//!
//! It makes the same calls into the endpoint in the same order as the free loop (`free.rs`) does
//! on such a host: its due timer, then sends and arrivals alternating while both are pending, then
//! the endpoint's next wake-up read once if it was called; a wake-up that is the one it read fires
//! the timer without reading it again (`poll_timeout` takes `&self`: the answer is the same), and a
//! link event's straight arrival, the common run, makes those calls as straight-line code
//! (`One::run_arrival`). One endpoint makes the rest of that loop's bookkeeping moot: the set of
//! slots to re-read (a flag here), the ready bits and the round-robin (the one endpoint is always
//! the one to poll), the due list (one time). The
//! endpoint's kind is matched once per run, not at each of its five to ten calls.

use super::rx::RxQueue;
use super::{Host, Inbox, Outbox, Side, Slot};
use crate::ack_intervals::AckIntervalStats;
use crate::endpoint::AnyEndpoint;
use crate::packet::InFlight;
use cclab_core::endpoint::Endpoint;
use cclab_core::time::{Dur, Time};

/// What a run of a host of one endpoint touches besides the endpoint, borrowed apart from it.
struct One<'h> {
    rx: &'h mut RxQueue,
    rx_bytes: &'h mut u64,
    send_turn: &'h mut bool,
    /// The endpoint's wake-up time in ns (`u64::MAX`: none), `Wakeups`' own.
    wake: &'h mut u64,
    traced: &'h mut Vec<u16>,
    done: &'h mut bool,
    ack_intervals: &'h mut AckIntervalStats,
    max_tx: u32,
    max_rx: u32,
    route: u16,
    link: u32,
    start: Time,
    tracing: bool,
}

impl Host {
    /// `act` for a free host with one endpoint (see `run_free`): 1 if it became done, and when it
    /// next has work (as `Host::next_wake`: a free host holds no job).
    #[inline(always)]
    pub(super) fn run_single(
        &mut self,
        now: Time,
        out: &mut (impl Outbox + Inbox),
        arrival: Option<u16>,
    ) -> (usize, Option<Time>) {
        let Host {
            rx,
            rx_bytes,
            send_turn,
            wake,
            slots,
            traced,
            max_tx,
            max_rx,
            ..
        } = self;
        let Slot {
            endpoint,
            side,
            route,
            link,
            start,
            tracing,
            done,
            ack_intervals,
            ..
        } = &mut slots[0];
        // The ACK-only packets of a receiver's side are noted for the ACK intervals. A data sender is
        // never on that side (`Network::add_flow`), so its copy of the loop leaves the test and the
        // note out, a constant `false`: the note's call kept the datagram's fields live across it,
        // spilled (100 MB at 10 Gbit/s: -1.36 M instructions).
        let notes_acks = *side == Side::Receiver;
        let mut one = One {
            rx,
            rx_bytes,
            send_turn,
            wake: wake.one(),
            traced,
            done,
            ack_intervals,
            max_tx: *max_tx,
            max_rx: *max_rx,
            route: *route,
            link: *link,
            start: *start,
            tracing: *tracing,
        };
        let finished = match endpoint {
            AnyEndpoint::Sender(e) => one.run(&mut **e, now, out, arrival.is_some(), false),
            AnyEndpoint::Receiver(e) => one.run(&mut **e, now, out, arrival.is_some(), notes_acks),
            e => one.run(e, now, out, arrival.is_some(), notes_acks),
        };
        // An endpoint asking for `now` again after doing nothing would spin; move on by 1 ns.
        let wake = (*one.wake != u64::MAX).then(|| Time(*one.wake).max(now + Dur(1)));
        (finished, wake)
    }
}

impl One<'_> {
    /// The run with `e`, the endpoint; with `arrival`, a datagram for it waits in `out`; with
    /// `notes_acks`, its ACK-only packets are noted for the ACK intervals (see `poll`).
    #[inline(always)]
    fn run<E: Endpoint + ?Sized>(
        &mut self,
        e: &mut E,
        now: Time,
        out: &mut (impl Outbox + Inbox),
        arrival: bool,
        notes_acks: bool,
    ) -> usize {
        let mut finished = 0;
        // The endpoint was called: its wake-up time is read again at the end.
        let mut called = false;
        if *self.wake <= now.0 {
            // A wake-up other than the start is the endpoint's own `poll_timeout`, read at the end of the
            // run that last called it, and nothing calls it between runs: it is due without asking again
            // (a pacer-bound sender wakes once a data packet, ~31 instructions a question).
            let due = self.start <= now && (*self.wake != self.start.0 || e.poll_timeout().is_some_and(|t| t <= now));
            *self.wake = u64::MAX;
            if due {
                e.handle_timeout(now);
                self.collect_events();
                finished += self.check_done(e);
            }
            called = true;
        }
        if arrival {
            finished += self.run_arrival(e, now, out, notes_acks);
            called = true;
        } else {
            // Sends and the socket buffer's datagrams alternating while both are pending.
            loop {
                if (*self.send_turn || self.rx.is_empty()) && self.start <= now {
                    let sent = self.poll(e, now, out, notes_acks);
                    self.collect_events();
                    called = true;
                    if sent {
                        // An endpoint may be done once its last datagram is out.
                        finished += self.check_done(e);
                        *self.send_turn = false;
                        continue;
                    }
                }
                let batch = if self.rx.is_empty() {
                    break;
                } else {
                    (self.max_rx as usize).min(self.rx.len())
                };
                for _ in 0..batch {
                    let (_, d) = match self.rx.take_first() {
                        Some(first) => first,
                        None => self.rx.pop_front().expect("the socket buffer holds a datagram"),
                    };
                    *self.rx_bytes -= d.size as u64;
                    e.handle_datagram(now, d);
                    self.collect_events();
                    finished += self.check_done(e);
                }
                called = true;
                *self.send_turn = true;
            }
        }
        if called {
            let t = if self.start > now {
                Some(self.start)
            } else {
                e.poll_timeout()
            };
            *self.wake = t.map_or(u64::MAX, |t| t.0);
        }
        finished
    }

    /// The calls of `run`'s loop for a datagram waiting in `out`, in its order, as straight-line code:
    /// such an arrival finds the socket buffer empty (`Host::takes_straight`), and nothing the run
    /// does fills it, so the loop takes a send turn first if one was due, then the arrival, then
    /// polls until a poll sends nothing. Returns how many endpoints became done.
    #[inline(always)]
    fn run_arrival<E: Endpoint + ?Sized>(
        &mut self,
        e: &mut E,
        now: Time,
        out: &mut (impl Outbox + Inbox),
        notes_acks: bool,
    ) -> usize {
        debug_assert!(
            self.rx.is_empty(),
            "a straight arrival with datagrams in the socket buffer"
        );
        let mut finished = 0;
        if *self.send_turn && self.start <= now && self.poll(e, now, out, notes_acks) {
            finished += self.check_done(e);
            *self.send_turn = false;
        }
        e.handle_datagram(now, out.take());
        finished += self.check_done(e);
        *self.send_turn = true;
        if self.start <= now {
            while self.poll(e, now, out, notes_acks) {
                finished += self.check_done(e);
                *self.send_turn = false;
            }
        }
        // Once, as the run always calls the endpoint: its events are drained after the run.
        self.collect_events();
        finished
    }

    /// Polls `e` for up to `max_tx` datagrams, which leave the host now; true if it sent any. With
    /// `notes_acks`, the ACK-only ones are noted for the ACK intervals.
    #[inline(always)]
    fn poll<E: Endpoint + ?Sized>(&mut self, e: &mut E, now: Time, out: &mut impl Outbox, notes_acks: bool) -> bool {
        let mut sent = 0;
        // A poll the endpoint says it would refuse is skipped (see `Host::poll_slot`).
        while sent < self.max_tx && e.may_transmit(now) {
            match e.poll_transmit(now) {
                Some(dgram) => {
                    let p = InFlight::new(dgram, self.route, 0, now);
                    if notes_acks && p.is_pure_ack() {
                        self.ack_intervals.record(now);
                    }
                    out.put(p, self.link)
                }
                None => break,
            }
            sent += 1;
        }
        sent > 0
    }

    /// Notes that the endpoint may have emitted trace events (see `Host::collect_events`).
    #[inline(always)]
    fn collect_events(&mut self) {
        if self.tracing && self.traced.is_empty() {
            self.traced.push(0);
        }
    }

    /// Latches the endpoint's `is_done`; 1 if it became done now.
    #[inline(always)]
    fn check_done<E: Endpoint + ?Sized>(&mut self, e: &E) -> usize {
        if !*self.done && e.is_done() {
            *self.done = true;
            return 1;
        }
        0
    }
}
