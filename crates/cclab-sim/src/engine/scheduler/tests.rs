//! The scheduler's tests: fixed cases, and random requests against a reference model.

use super::*;

#[test]
fn scheduler_pops_in_time_then_request_order() {
    for n in [4, 40] {
        pops_in_order(n);
    }
}

fn pops_in_order(n: usize) {
    let mut s = Scheduler::new(n);
    s.schedule(2, Time(10));
    s.schedule(0, Time(5));
    s.schedule(3, Time(10));
    s.schedule(1, Time(7));
    let order: Vec<_> = std::iter::from_fn(|| s.pop()).collect();
    assert_eq!(order, vec![(Time(5), 0), (Time(7), 1), (Time(10), 2), (Time(10), 3)]);
}

#[test]
fn scheduler_keeps_one_wakeup_per_actor_earliest_wins() {
    for n in [2, 20] {
        earliest_wins(n);
    }
}

fn earliest_wins(n: usize) {
    let mut s = Scheduler::new(n);
    s.schedule(0, Time(10));
    s.schedule(0, Time(20)); // later: ignored
    assert_eq!(s.pending(0), Some(Time(10)));
    s.schedule(1, Time(8));
    s.schedule(0, Time(8)); // earlier: moves, and now runs after actor 1 (requested first)
    assert_eq!(s.pop(), Some((Time(8), 1)));
    assert_eq!(s.pop(), Some((Time(8), 0)));
    assert_eq!(s.pop(), None);
}

#[test]
fn scheduler_pop_until_leaves_later_wakeups_pending() {
    for n in [3, FLAT_MAX_ACTORS + 1] {
        let mut s = Scheduler::new(n);
        assert_eq!(s.pop_until(Time(100)), Err(None));
        s.schedule(1, Time(50));
        s.schedule(2, Time(20));
        assert_eq!(s.pop_until(Time(20)), Ok((Time(20), 2)));
        assert_eq!(s.pop_until(Time(49)), Err(Some(Time(50))));
        assert_eq!(s.pending(1), Some(Time(50)));
        assert_eq!(s.pop_until(Time(50)), Ok((Time(50), 1)));
        assert_eq!(s.pop(), None);
    }
}

#[test]
fn scheduler_popped_actor_asks_again_as_any_request_would() {
    // A link event's or a host run's next wake-up is stored without the comparison with a pending
    // one, which its pop or withdrawal emptied: later or earlier than the other actors' requests, in
    // flat arrays and a heap, the same order as `schedule`, and a later request still loses to it.
    for n in [3, 5, 8, FLAT_MAX_ACTORS + 1] {
        let (mut popped, mut plain) = (Scheduler::new(n), Scheduler::new(n));
        for s in [&mut popped, &mut plain] {
            s.schedule(0, Time(10));
            s.schedule(1, Time(20));
            s.schedule(2, Time(30));
        }
        for (want, again) in [((10, 0), 25), ((20, 1), 40), ((25, 0), 26), ((26, 0), 50)] {
            let want = Ok((Time(want.0), want.1));
            assert_eq!(popped.pop_until(Time(100)), want, "{n} actors");
            assert_eq!(plain.pop_until(Time(100)), want, "{n} actors");
            let actor = want.map_or(0, |(_, a)| a);
            popped.schedule_popped(actor, Time(again));
            plain.schedule(actor, Time(again));
            popped.schedule(actor, Time(again + 100));
            assert_eq!(popped.pending(actor), Some(Time(again)), "{n} actors");
        }
        // A host run without a pop: its pending wake-up withdrawn, then its next request.
        popped.withdraw(2);
        plain.withdraw(2);
        popped.schedule_popped(2, Time(60));
        plain.schedule(2, Time(60));
        let rest = |s: &mut Scheduler| std::iter::from_fn(|| s.pop()).collect::<Vec<_>>();
        assert_eq!(rest(&mut popped), rest(&mut plain), "{n} actors");
    }
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "was not just popped")]
fn scheduler_popped_request_for_a_pending_actor_is_caught() {
    // Stored without a comparison, it would replace an earlier pending wake-up.
    let mut s = Scheduler::new(3);
    s.schedule(1, Time(10));
    s.schedule_popped(1, Time(20));
}

#[test]
fn scheduler_withdrawn_wakeup_is_replaced_in_place() {
    let mut s = Scheduler::new(64);
    for a in 0..40 {
        s.schedule(a, Time(100 + 10 * a as u64));
    }
    let (len, at) = (s.heap.len(), s.pos[20]);
    s.withdraw(20);
    assert_eq!(s.pending(20), None);
    // Other requests move entries around the withdrawn one, which keeps its place up to date.
    s.schedule(41, Time(1));
    s.schedule(42, Time(2));
    assert_eq!(
        s.heap.len(),
        len + 2,
        "the withdrawn entry stays until its actor asks again"
    );
    s.schedule(20, Time(3));
    assert_eq!(s.heap.len(), len + 2, "its request replaced it, not added another");
    assert_ne!(s.pos[20], at);
    let order: Vec<_> = std::iter::from_fn(|| s.pop()).take(4).collect();
    assert_eq!(order, vec![(Time(1), 41), (Time(2), 42), (Time(3), 20), (Time(100), 0)]);
    // Withdrawn and never asked again: gone at the next pop.
    s.withdraw(1);
    assert_eq!(s.pop(), Some((Time(120), 2)));
    assert_eq!(s.heap.len(), len - 3);
    assert_eq!(s.pending(1), None);
}

#[test]
fn scheduler_scans_only_five_entries_for_a_point_to_point_run() {
    // The pop's unrolled scan is as long as the array: a point-to-point run's five actors must not
    // pay for the idle entries of the next short length.
    for (n, len) in [(1, FLAT_P2P), (5, FLAT_P2P), (6, FLAT_SHORT), (8, FLAT_SHORT), (9, 9)] {
        assert_eq!(Scheduler::new(n).heap.len(), len, "{n} actors");
    }
}

#[test]
fn scheduler_heap_order_survives_many_moves() {
    // One actor and five (the point-to-point array, padded with idle entries), six (the next
    // short array's), eight and nine (either side of its length), the longest flat array and heaps.
    for n in [1, 5, 6, 8, 9, FLAT_MAX_ACTORS, FLAT_MAX_ACTORS + 1, 64] {
        random_requests_match_reference(Scheduler::new(n), n, Times::Anywhere);
    }
}

#[test]
fn scheduler_lane_keeps_time_then_request_order() {
    // Most requests at the instant last popped (the lane), some just after, some before; the
    // flat size checks the same ties without a lane.
    for n in [5, FLAT_MAX_ACTORS + 1, 64, 300] {
        random_requests_match_reference(Scheduler::new(n), n, Times::Near);
    }
}

#[test]
fn scheduler_far_list_keeps_time_then_request_order() {
    // Requests up to ten horizons ahead, mostly in steps of 4 so that many share a time: entries go
    // to the far list, are replaced, withdrawn and cancelled there, and cross into the heap.
    for (n, horizon) in [(FLAT_MAX_ACTORS + 1, 16), (64, 41), (300, 40), (300, 3)] {
        let s = Scheduler::with_horizon(n, Dur(horizon));
        random_requests_match_reference(s, n, Times::Ahead(10 * horizon));
    }
}

#[test]
fn scheduler_far_wakeup_pops_on_time_and_stays_out_of_the_heap() {
    // 1,000 actors wait far ahead while one busy actor (a link) asks again every 10 ns.
    let mut s = Scheduler::with_horizon(1001, Dur(100));
    for a in 0..1000 {
        s.schedule(a, Time(1000 + 7 * a as u64));
    }
    s.schedule(1000, Time(0));
    let mut popped = Vec::new();
    while let Some((t, a)) = s.pop() {
        assert!(
            s.heap.len() <= 1 + 2 * 100 / 7,
            "far entries wait outside the heap: {}",
            s.heap.len()
        );
        popped.push((t.0, a));
        if a == 1000 && t.0 < 2000 {
            s.schedule(1000, Time(t.0 + 10));
        }
    }
    // Each far entry pops at its time, before the busy actor's later request for the same time.
    let mut expected: Vec<(u64, u32)> = (0..1000).map(|a| (1000 + 7 * a as u64, a)).collect();
    expected.extend((0..=2000).step_by(10).map(|t| (t, 1000)));
    expected.sort_by_key(|&(t, a)| (t, a == 1000)); // stable: the far entries asked first
    assert_eq!(popped, expected);
}

/// How [`random_requests_match_reference`] draws request times.
#[derive(Clone, Copy)]
enum Times {
    /// Anywhere in 0..1000, before or after the last pop.
    Anywhere,
    /// Around the last popped time.
    Near,
    /// Up to the given span past the last popped time, mostly in steps of 4.
    Ahead(u64),
}

/// Pseudo-random requests to `s`, for `n` actors, against a reference model: (time, request
/// order) minimum.
fn random_requests_match_reference(mut s: Scheduler, n: usize, times: Times) {
    let mut reference: Vec<Option<(u64, u64)>> = vec![None; n];
    let mut x: u64 = 12345;
    let mut seq = 0;
    let (mut last, mut last_actor) = (0u64, 0usize);
    for _ in 0..20_000 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        // Half the requests and cancels are for the actor popped last (a replaced root).
        let actor = if x & 8 == 0 { last_actor } else { (x >> 33) as usize % n };
        let t = match times {
            Times::Anywhere => (x >> 20) % 1000,
            Times::Near => (last + (x >> 20) % 4).saturating_sub(1),
            // One in four a step off, so that times fall on every side of `far_from`.
            Times::Ahead(span) => last + (x >> 20) % span / 4 * 4 + (x >> 44) % 4 / 3,
        };
        if x % 7 == 1 {
            s.cancel(actor as u32);
            reference[actor] = None;
        } else if x % 13 == 4 {
            // A withdrawn wake-up is gone as a cancelled one is.
            s.withdraw(actor as u32);
            reference[actor] = None;
        } else if x % 11 == 5 {
            // `set` replaces any pending wake-up, earlier or later.
            let t = x.is_multiple_of(2).then_some(Time(t));
            s.set(actor as u32, t);
            reference[actor] = t.map(|t| (t.0, seq));
            seq += 1;
        } else if x.is_multiple_of(3) {
            let popped = s.pop();
            let best = reference
                .iter()
                .enumerate()
                .filter_map(|(a, e)| e.map(|(t, q)| (t, q, a)))
                .min();
            assert_eq!(popped.map(|(t, a)| (t.0, a as usize)), best.map(|(t, _, a)| (t, a)));
            if let Some((t, _, a)) = best {
                reference[a] = None;
                (last, last_actor) = (t, a);
            }
            for (a, r) in reference.iter().enumerate() {
                assert_eq!(s.pending(a as u32).map(|t| t.0), r.map(|(t, _)| t));
            }
        } else {
            s.schedule(actor as u32, Time(t));
            let earlier = match reference[actor] {
                Some((old, _)) => t < old,
                None => true,
            };
            if earlier {
                reference[actor] = Some((t, seq));
                seq += 1;
            }
        }
        // After every step: a popped root or a withdrawn entry (in the heap or the far list) is not the next.
        let next = reference
            .iter()
            .enumerate()
            .filter_map(|(a, e)| e.map(|(t, q)| (t, q, a)))
            .min();
        assert_eq!(s.peek().map(|(t, a)| (t.0, a as usize)), next.map(|(t, _, a)| (t, a)));
    }
}
