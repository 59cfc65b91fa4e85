//! The resend queue's chunks known unacknowledged (`Resend::unacked`, `SendStream::resent_end`) against the
//! plain search of the acknowledged ranges, on random sends, acknowledgements, losses and probes.

use super::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Whether any byte of `lo..hi` is acknowledged, by a walk of every range.
fn any_acked(s: &SendStream, lo: u64, hi: u64) -> bool {
    s.acked.ranges.iter().any(|&(a, b)| a < hi && lo < b)
}

/// `peek` as it answers with every chunk searched (no chunk known unacknowledged, the front not known trimmed).
fn searched_peek(s: &SendStream) -> Option<(u64, u64, bool)> {
    let mut twin = s.clone();
    twin.retransmit.iter_mut().for_each(|c| c.unacked = false);
    twin.front_trimmed = false;
    twin.peek().map(|n| (n.offset, n.available, n.retransmission))
}

#[test]
fn stream_chunks_known_unacked_match_the_search_on_random_losses_and_probes() {
    for seed in 0..40 {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut s = SendStream::default();
        s.on_written(200_000, true);
        // The packets in the sent record: the chunk each carries.
        let mut outstanding: Vec<DataChunk> = Vec::new();
        let mut known = 0;
        for step in 0..3_000 {
            match rng.random_range(0..10) {
                // A send of up to 1,500 bytes, a resend first.
                0..=3 => {
                    if let Some(n) = s.peek() {
                        outstanding.push(s.take(&n, rng.random_range(1..=1_500)));
                    }
                }
                // An ACK of any outstanding packet (reordered, or a late copy's).
                4..=5 if !outstanding.is_empty() => {
                    let c = outstanding.swap_remove(rng.random_range(0..outstanding.len()));
                    s.on_acked(AckedRun::from(c));
                }
                // Declared lost: it leaves the sent record.
                6..=8 if !outstanding.is_empty() => {
                    let c = outstanding.swap_remove(rng.random_range(0..outstanding.len()));
                    s.queue_lost(c);
                }
                // A probe copies a packet that stays outstanding.
                9 if !outstanding.is_empty() => {
                    let c = outstanding[rng.random_range(0..outstanding.len())];
                    s.queue_probe(c);
                }
                _ => {}
            }
            for c in &s.retransmit {
                assert!(
                    c.end() <= s.resent_end,
                    "seed {seed} step {step}: {c:?} above {}",
                    s.resent_end
                );
                assert!(
                    !(c.unacked && any_acked(&s, c.offset, c.end())),
                    "seed {seed} step {step}: {c:?} held unacknowledged, acked {:?}",
                    s.acked.ranges
                );
                known += c.unacked as u64;
            }
            let want = searched_peek(&s);
            let got = s.peek().map(|n| (n.offset, n.available, n.retransmission));
            assert_eq!(got, want, "seed {seed} step {step}");
        }
        // The shortcut is taken, not just allowed.
        assert!(known > 0, "seed {seed}");
    }
}
