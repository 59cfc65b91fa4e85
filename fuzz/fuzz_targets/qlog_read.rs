//! `cclab_sim::qlog::read::read_seq_from` on arbitrary bytes (gzip when they start with its magic): no panic
//! (debug builds check every overflow), bounded work per record (`-timeout`), every error message starts with
//! the file it names, and an accepted trace has at least one event and tables whose columns are equally long.
#![no_main]

use cclab_sim::qlog::read::read_seq_from;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    match read_seq_from(std::io::Cursor::new(data.to_vec()), None) {
        Ok(t) => {
            assert!(t.event_counts.iter().map(|(_, n)| n).sum::<u64>() > 0);
            let tables = [&t.sent, &t.received, &t.metrics, &t.lost, &t.acked_after_loss, &t.ack_frequency, &t.acks];
            for table in tables {
                assert!(table.columns.iter().all(|c| c.len() == table.len()));
            }
            assert_eq!(t.lost.len(), t.lost_triggers.len());
        }
        Err(e) => assert!(e.message(Path::new("fuzz.sqlog")).starts_with("fuzz.sqlog")),
    }
});
