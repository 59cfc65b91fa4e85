//! Application data sources: what the sending application writes into the stream, and when.
//!
//! Writes happen at instants of the endpoint's clock (the application sleeps on the same
//! timers as the transport); the sender polls the source with clock readings.

use crate::time::{Dur, Time};
use crate::units::{Bytes, Rate};
use serde::Deserialize;

/// An application source, as a scenario names it (`[flow.source] kind = "bulk"`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum SourceConfig {
    /// `size` bytes written at once at the start, then the stream ends (FIN).
    Bulk {
        /// Bytes to transfer.
        size: Bytes,
    },
    /// Constant bitrate, application limited: one write of `packet_size` bytes every
    /// `packet_size / rate`, the first at the start; the stream ends after `duration` if set.
    Cbr {
        /// Bytes per application write.
        packet_size: Bytes,
        /// Application bitrate.
        rate: Rate,
        /// How long the application writes; `None` = forever.
        duration: Option<Dur>,
    },
}

/// The state of one source.
#[derive(Clone, Debug)]
pub struct Source {
    cfg: SourceConfig,
    start: Time,
    /// Writes made so far (CBR).
    writes: u64,
    written: u64,
    finished: bool,
}

impl Source {
    /// A source started at clock reading `start`. A bulk source has written everything.
    pub fn new(cfg: &SourceConfig, start: Time) -> Source {
        let mut s = Source {
            cfg: cfg.clone(),
            start,
            writes: 0,
            written: 0,
            finished: false,
        };
        match cfg {
            SourceConfig::Bulk { size } => {
                s.written = size.0;
                s.finished = true;
            }
            // Zero-byte writes would never advance the schedule, and a rate of 0 bit/s never makes
            // a write due (it used to be read as 1 bit/s): nothing to write at all.
            SourceConfig::Cbr { packet_size, rate, .. } => s.finished = packet_size.0 == 0 || rate.bps() == 0,
        }
        s
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    /// The application has closed the stream: `written()` is the final size.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Clock reading of the CBR write number `k`: `start + k · packet_size / rate`, exact to
    /// the nanosecond (no drift over long runs). Not asked once finished, so the rate is not 0.
    fn write_time(&self, k: u64) -> Time {
        match self.cfg {
            SourceConfig::Cbr { packet_size, rate, .. } => {
                let ns = k as u128 * packet_size.0 as u128 * 8 * 1_000_000_000 / rate.bps() as u128;
                self.start + Dur(ns.min(u64::MAX as u128) as u64)
            }
            SourceConfig::Bulk { .. } => Time::MAX,
        }
    }

    /// When the source next changes (a write or the end of the stream), as a clock reading.
    pub fn next_event(&self) -> Option<Time> {
        let SourceConfig::Cbr { duration, .. } = self.cfg else {
            return None;
        };
        if self.finished {
            return None;
        }
        let next = self.write_time(self.writes);
        Some(duration.map_or(next, |d| next.min(self.start + d)))
    }

    /// Makes every write due at clock reading `now`; returns the bytes newly written.
    ///
    /// Closed form, O(1) whatever the rate: write `k` is due when `start + ⌊k·c/r⌋ ≤ now` (with `c` =
    /// 8·10⁹·packet_size and `r` the rate in bit/s, as in `write_time`), that is `k < (D+1)·r/c` for
    /// `D = now − start`, so ⌈(D+1)·r/c⌉ writes are due. A loop over every due write hung on absurd rates.
    pub fn poll(&mut self, now: Time) -> u64 {
        let SourceConfig::Cbr {
            packet_size,
            rate,
            duration,
        } = self.cfg
        else {
            return 0;
        };
        if self.finished {
            return 0;
        }
        let before = self.written;
        let end = duration.map_or(Time::MAX, |d| self.start + d);
        // Writes stop at `duration` (a write at `end` or later never happens); the stream closes then.
        let last = now.min(Time(end.0.saturating_sub(1)));
        if last >= self.start && end > self.start {
            let d = last.0 - self.start.0;
            let c = packet_size.0 as u128 * 8 * 1_000_000_000;
            let due = ((d as u128 + 1).saturating_mul(rate.bps() as u128)).div_ceil(c);
            let due = due.min(u64::MAX as u128) as u64;
            let new = due.saturating_sub(self.writes);
            self.writes += new;
            self.written = self.written.saturating_add(new.saturating_mul(packet_size.0));
        }
        self.finished = now >= end;
        self.written - before
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_bulk_is_written_at_once() {
        let s = Source::new(&SourceConfig::Bulk { size: Bytes(5000) }, Time(7));
        assert_eq!((s.written(), s.is_finished(), s.next_event()), (5000, true, None));
    }

    #[test]
    fn source_cbr_at_zero_bits_per_second_writes_nothing() {
        // A rate of 0 used to be read as 1 bit/s: a 1200 B write at the start, the next 2.7 hours later.
        let cfg = SourceConfig::Cbr {
            packet_size: Bytes(1200),
            rate: Rate(0),
            duration: None,
        };
        let mut s = Source::new(&cfg, Time::ZERO);
        assert_eq!(
            (s.poll(Time(1_000_000_000)), s.is_finished(), s.next_event()),
            (0, true, None)
        );
    }

    #[test]
    fn source_cbr_absurd_rate_polls_in_constant_time() {
        // Found by the `simulation` fuzz target: a rate that saturates u64 made every write due at once,
        // and `poll` looped over them one by one.
        let cfg = SourceConfig::Cbr {
            packet_size: Bytes(1200),
            rate: Rate(u64::MAX),
            duration: Some(Dur::from_secs(2)),
        };
        let mut s = Source::new(&cfg, Time::ZERO);
        // ⌈(10⁹+1)·(2⁶⁴−1)/(1200·8·10⁹)⌉ writes are due after 1 s.
        let due = ((1_000_000_001u128 * u64::MAX as u128).div_ceil(9_600_000_000_000)) as u64;
        assert_eq!(s.poll(Time(1_000_000_000)), due * 1200);
        assert!(!s.is_finished());
        s.poll(Time(2_000_000_000));
        assert!(s.is_finished());
    }

    #[test]
    fn source_cbr_writes_on_schedule_and_stops() {
        // 22 B at 1800 bit/s (225 B/s): one write per 97.777… ms; 300 ms -> writes at 0, 97.8,
        // 195.6, 293.3 ms, then the stream closes at 300 ms.
        let cfg = SourceConfig::Cbr {
            packet_size: Bytes(22),
            rate: Rate(1800),
            duration: Some(Dur::from_millis(300)),
        };
        let mut s = Source::new(&cfg, Time::ZERO);
        assert_eq!(s.next_event(), Some(Time::ZERO));
        assert_eq!(s.poll(Time::ZERO), 22);
        assert_eq!(s.next_event(), Some(Time(97_777_777)));
        assert_eq!(s.poll(Time(97_777_776)), 0);
        assert_eq!(s.poll(Time(250_000_000)), 44);
        assert_eq!(s.poll(Time(299_000_000)), 22);
        assert!(!s.is_finished());
        assert_eq!(s.next_event(), Some(Time(300_000_000)));
        assert_eq!(s.poll(Time(300_000_000)), 0);
        assert!(s.is_finished() && s.next_event().is_none());
        assert_eq!(s.written(), 88);
    }

    #[test]
    fn source_config_parses_kinds() {
        let c: SourceConfig = toml::from_str("kind = \"cbr\"\npacket_size = \"22B\"\nrate = \"1800bps\"").unwrap();
        assert_eq!(
            c,
            SourceConfig::Cbr {
                packet_size: Bytes(22),
                rate: Rate(1800),
                duration: None
            }
        );
        let b: SourceConfig = toml::from_str("kind = \"bulk\"\nsize = \"1MB\"").unwrap();
        assert_eq!(b, SourceConfig::Bulk { size: Bytes(1_000_000) });
        assert!(toml::from_str::<SourceConfig>("kind = \"bulk\"\nsize = \"1MB\"\nsiz = 3").is_err());
    }
}
