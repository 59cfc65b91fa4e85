//! Trace-driven link capacity in the mahimahi format (Netravali et al., USENIX ATC 2015).
//!
//! A trace file lists, one per line, the millisecond timestamps of delivery opportunities; each
//! opportunity can carry [`OPPORTUNITY_BYTES`] bytes, and the trace repeats with a period equal
//! to its last timestamp. As in mahimahi's `LinkQueue`, a packet may use several opportunities
//! and one opportunity may finish several small packets; unused bytes are lost.

use cclab_core::time::{Dur, Time};
use std::path::Path;
use std::sync::Arc;

/// Bytes one delivery opportunity carries (mahimahi's 1504 B minus its 4-byte tunnel header:
/// our sizes are IP sizes).
pub const OPPORTUNITY_BYTES: u64 = 1500;

/// Largest timestamp, ms: its time in nanoseconds still fits a `u64`.
const MAX_MS: u64 = u64::MAX / 1_000_000;

/// A parsed trace: opportunity times within one period.
#[derive(Clone, Debug, PartialEq)]
pub struct MahimahiTrace {
    /// Opportunity offsets in ms, non-decreasing.
    ms: Arc<[u64]>,
    /// Repetition period (the last offset), at least 1 ms.
    period: Dur,
}

impl MahimahiTrace {
    /// Parses the text of a trace file (blank lines and `#` comments are skipped).
    pub fn parse(text: &str) -> Result<MahimahiTrace, String> {
        let mut ms = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let v: u64 = line
                .parse()
                .map_err(|_| format!("line {}: expected a millisecond count, got {line:?}", i + 1))?;
            // Times are u64 nanoseconds: a larger count would wrap (and panic in debug builds).
            if v > MAX_MS {
                return Err(format!(
                    "line {}: {v} ms is beyond the largest time ({MAX_MS} ms, about 584 years)",
                    i + 1
                ));
            }
            if ms.last().is_some_and(|&last| v < last) {
                return Err(format!(
                    "line {}: timestamps must not decrease ({v} after {})",
                    i + 1,
                    ms[ms.len() - 1]
                ));
            }
            ms.push(v);
        }
        let last = *ms.last().ok_or("the trace has no delivery opportunities")?;
        if last == 0 {
            // The period is the last timestamp: 0 would repeat the trace forever without time passing.
            return Err("the last timestamp (the repeat period) must be at least 1 ms, got 0".into());
        }
        Ok(MahimahiTrace {
            ms: ms.into(),
            period: Dur::from_millis(last),
        })
    }

    /// Reads and parses a trace file.
    pub fn load(path: &Path) -> Result<MahimahiTrace, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read trace {}: {e}", path.display()))?;
        MahimahiTrace::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Time of opportunity number `k` (counting from 0 over all periods).
    pub fn time(&self, k: u64) -> Time {
        let n = self.ms.len() as u64;
        // Saturates instead of wrapping (as `Time + Dur` does): a time past u64 nanoseconds is never reached.
        Time((k / n).saturating_mul(self.period.0)) + Dur::from_millis(self.ms[(k % n) as usize])
    }

    /// Number of the first opportunity at or after `t`.
    pub fn first_at_or_after(&self, t: Time) -> u64 {
        let n = self.ms.len() as u64;
        // Offsets in (0, period]: the last opportunity of a period sits on the boundary.
        let cycle = t.0.saturating_sub(1) / self.period.0;
        let offset = t.0 - cycle * self.period.0;
        let i = self.ms.partition_point(|&m| Dur::from_millis(m).0 < offset) as u64;
        cycle * n + i
    }

    /// Opportunities strictly before `t`.
    pub fn count_before(&self, t: Time) -> u64 {
        self.first_at_or_after(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mahimahi_trace_repeats_with_last_timestamp_as_period() {
        let t = MahimahiTrace::parse("1\n1\n3\n").unwrap();
        let times: Vec<u64> = (0..6).map(|k| t.time(k).0 / 1_000_000).collect();
        assert_eq!(times, vec![1, 1, 3, 4, 4, 6]);
        assert_eq!(t.first_at_or_after(Time(1_000_001)), 2);
        assert_eq!(t.first_at_or_after(Time(3_500_000)), 3);
        assert_eq!(t.count_before(Time(6_000_000)), 5);
    }

    #[test]
    fn mahimahi_trace_rejects_garbage_and_decreasing_times() {
        assert!(MahimahiTrace::parse("1\nx\n").unwrap_err().contains("line 2"));
        assert!(MahimahiTrace::parse("5\n3\n")
            .unwrap_err()
            .contains("must not decrease"));
        assert!(MahimahiTrace::parse("\n").is_err());
    }

    #[test]
    fn mahimahi_trace_overflowing_timestamp_is_an_error_naming_the_line() {
        // Issue #14: 18446744073710 ms is the first count whose nanoseconds overflow a u64.
        let e = MahimahiTrace::parse("1\n18446744073710\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("18446744073710"), "{e}");
        let t = MahimahiTrace::parse(&format!("1\n{MAX_MS}\n")).unwrap();
        assert_eq!(t.time(1), Time(MAX_MS * 1_000_000));
        assert_eq!(t.time(3), Time(u64::MAX), "saturates past the end of time");
    }

    #[test]
    fn mahimahi_trace_period_zero_is_an_error() {
        // Issue #15 defect 10: `0\n0\n0` was accepted with a made-up 1 ms period.
        let e = MahimahiTrace::parse("0\n0\n0\n").unwrap_err();
        assert!(e.contains("repeat period"), "{e}");
    }
}
