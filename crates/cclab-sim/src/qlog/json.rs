//! JSON text written straight into a byte buffer: no intermediate values, no `core::fmt`
//! machinery, integers written digit pairs at a time from a table; times converted from integer
//! nanoseconds to milliseconds exactly, output fixed by the input alone.
//!
//! A record is written in two steps: [`Buf::record`] makes room for the largest text the record
//! can have, then [`Out`] copies fragments into that room. The copies need no capacity check
//! and no length bookkeeping in the buffer: each is a bounds check and a few moves, which for the
//! constant fragments the event writers use compile to straight stores.

use super::block::Block;

/// JSON-SEQ record separator (RFC 7464 §2.2), written before every record.
pub(super) const RS: u8 = 0x1e;

/// Room every record gets beyond what [`Buf::record`]'s caller adds for its variable parts:
/// more than the fixed text plus twenty-digit numbers of the largest record (a packet with every
/// frame type, ~1 KB).
pub(super) const RECORD_ROOM: usize = 4096;

/// Widest number: `u64::MAX` has 20 digits.
const U64_DIGITS: usize = 20;

/// 10^0 … 10^19.
const POW10: [u64; U64_DIGITS] = {
    let mut t = [1u64; U64_DIGITS];
    let mut i = 1;
    while i < U64_DIGITS {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// Number of decimal digits of `v`: log10 from the bit length (log10 2 ≈ 1233/4096, which never
/// overestimates below 2^64), then one comparison corrects the guess (Bit Twiddling Hacks,
/// "IntegerLog10"); cheaper than `ilog10`'s chain of range reductions.
#[inline]
fn digit_count(v: u64) -> usize {
    let v = v | 1; // 0 has one digit, like 1
    let bits = 64 - v.leading_zeros();
    let guess = ((bits * 1233) >> 12) as usize;
    guess + (guess < POW10.len() && v >= POW10[guess]) as usize
}

/// The eight decimal digits of `v` < 10^8 in ASCII, leading zeros included, packed so that
/// `to_le_bytes` gives them most significant first. SWAR: one multiply splits both halves into
/// digit pairs at once, one more all four pairs into digits, instead of a division per pair.
/// Each step divides by a multiply and a shift that is exact in its range: `x * 10486 >> 20` is
/// `x / 100` for x < 10^4, `x * 103 >> 10` is `x / 10` for x < 100 (checked exhaustively in the
/// tests); the lanes are wide enough that no product spills into the next lane's masked bits.
#[inline]
fn eight_digits(v: u32) -> u64 {
    let v = v as u64;
    // Lanes of 32 bits: the high four digits first (in memory order), then the low four.
    let x = (v / 10_000) | ((v % 10_000) << 32);
    // Lanes of 16 bits: each four-digit half split into its two digit pairs.
    let q = ((x * 10_486) >> 20) & 0x0000_007f_0000_007f;
    let x = q | ((x - q * 100) << 16);
    // Lanes of 8 bits: each pair split into its two digits.
    let q = ((x * 103) >> 10) & 0x000f_000f_000f_000f;
    let x = q | ((x - q * 10) << 8);
    x + u64::from_le_bytes(*b"00000000")
}

/// The four decimal digits of `v` < 10^4 in ASCII, leading zeros included, packed so that
/// `to_le_bytes` gives them most significant first: [`eight_digits`]' last two steps alone.
#[inline(always)]
fn four_digits(v: u32) -> u64 {
    let x = v as u64;
    // Lanes of 16 bits: the two digit pairs.
    let q = (x * 10_486) >> 20;
    let x = q | ((x - q * 100) << 16);
    // Lanes of 8 bits: each pair split into its two digits.
    let q = ((x * 103) >> 10) & 0x000f_000f;
    let x = q | ((x - q * 10) << 8);
    x + u64::from_le_bytes(*b"0000\0\0\0\0")
}

/// The digits of `v` ≥ 10^16 as [`Out::word`] stores them: the leading group (its length is
/// returned), then eight digits twice. Out of line and free of the record's [`Out`]: a method
/// taking `&mut Out` here would make every record's cursor live in memory instead of a
/// register, for numbers that are almost never this long.
#[inline(never)]
fn long_words(v: u64) -> ([u64; 3], usize) {
    let low = eight_digits((v % 100_000_000) as u32);
    let high = v / 100_000_000;
    // `top` < 10^4: u64::MAX / 10^16 has four digits.
    let top = high / 100_000_000;
    let n = digit_count(top);
    (
        [
            eight_digits(top as u32) >> (8 * (8 - n)),
            eight_digits((high % 100_000_000) as u32),
            low,
        ],
        n,
    )
}

/// A fragment of at most 8 bytes as [`Out::word`] stores it, for fragments chosen at run time.
pub(super) const fn word_of(s: &str) -> u64 {
    let b = s.as_bytes();
    assert!(b.len() <= 8);
    let mut w = [0u8; 8];
    let mut i = 0;
    while i < b.len() {
        w[i] = b[i];
        i += 1;
    }
    u64::from_le_bytes(w)
}

/// The point and six digits of the fraction of a millisecond in `ns`, as [`Out::word`] stores
/// them: the eight digits of the fraction are "00dddddd"; drop the two zeros, put the point in front.
#[inline(always)]
fn fraction_word(ns: u64) -> u64 {
    let frac = eight_digits((ns % 1_000_000) as u32);
    ((frac >> 16) << 8) | b'.' as u64
}

/// The writer's bytes: a block kept at full length, of which the first `len` are text.
pub(super) struct Buf {
    /// Page-aligned, so that a direct trace file can write it as it is.
    bytes: Block,
    len: usize,
    /// Record times.
    time: MsMemo,
}

/// A time in milliseconds one field last held, with its digits: record times come in bursts at
/// one instant (the packets an ACK releases) and their whole milliseconds change about once per
/// thousand records in a busy trace; ACK delays mostly repeat. [`Out::ms_memo`] then copies
/// digits and formats at most the fraction.
#[derive(Clone, Copy)]
pub(super) struct MsMemo {
    /// Nanoseconds last written.
    ns: u64,
    /// `ns` / 10,000.
    tens_of_us: u64,
    /// Its fraction of a millisecond, as [`Out::word`] stores it (point and six digits).
    frac: u64,
    /// Whole milliseconds.
    ms: u64,
    /// Their digits, as [`Out::word`] stores them.
    word: u64,
    /// Number of digits (at most 8; larger values are not kept).
    len: usize,
}

impl MsMemo {
    /// Makes the memo hold `ns`; false when its whole milliseconds have more than 8 digits
    /// (then nothing is kept and the caller formats them).
    #[inline(always)]
    fn hold(&mut self, ns: u64) -> bool {
        if ns != self.ns {
            // Within the same 10 µs (records of a busy trace mostly come a µs or two apart),
            // the whole milliseconds and the fraction's first two digits hold: only its last
            // four change, bytes 3 to 6 of the point-and-six-digits word.
            let tens_of_us = ns / 10_000;
            if tens_of_us == self.tens_of_us {
                const LAST_FOUR: u64 = 0x00ff_ffff_ff00_0000;
                let last_four = four_digits((ns - tens_of_us * 10_000) as u32);
                self.frac = (self.frac & !LAST_FOUR) | (last_four << 24);
                self.ns = ns;
                return true;
            }
            let ms = ns / 1_000_000;
            if ms != self.ms {
                if ms >= 100_000_000 {
                    return false;
                }
                let n = digit_count(ms);
                self.ms = ms;
                self.word = eight_digits(ms as u32) >> (8 * (8 - n));
                self.len = n;
            }
            self.ns = ns;
            self.tens_of_us = tens_of_us;
            self.frac = fraction_word(ns);
        }
        true
    }

    /// Holds 1 ns (`0.000001`): a real value, so that no sentinel can be mistaken for one
    /// (`u64::MAX` as "nothing kept" would have matched a first time of `u64::MAX`).
    pub(super) const ONE_NS: MsMemo = MsMemo {
        ns: 1,
        tens_of_us: 0,
        frac: word_of(".000001"),
        ms: 0,
        word: b'0' as u64,
        len: 1,
    };
}

/// A number one field of a record shape last held, with its digits: most fields of consecutive
/// packet records repeat (sizes, stream frame lengths, the low end of an ACK range) or count up
/// by one (packet numbers), so [`Out::memo`] mostly copies digits instead of formatting them.
#[derive(Clone, Copy)]
pub(super) struct Memo {
    /// The value; numbers of 9 or more digits are never kept.
    v: u64,
    /// Its digits, as [`Out::word`] stores them.
    word: u64,
    /// Number of digits (1 to 8).
    len: usize,
}

impl Memo {
    /// Holds 0.
    pub(super) const ZERO: Memo = Memo {
        v: 0,
        word: b'0' as u64,
        len: 1,
    };
}

impl Buf {
    /// An empty buffer with room for `capacity` bytes (it grows if a record needs more).
    pub(super) fn with_capacity(capacity: usize) -> Buf {
        Buf {
            bytes: Block::with_len(capacity),
            len: 0,
            time: MsMemo::ONE_NS,
        }
    }

    /// The text written so far.
    pub(super) fn text(&self) -> &[u8] {
        &self.bytes.bytes()[..self.len]
    }

    /// Bytes of text written so far.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Forgets the text (after it went to the output).
    pub(super) fn clear(&mut self) {
        self.len = 0;
    }

    /// Opens a record of at most [`RECORD_ROOM`] + `extra` bytes; it is kept when the [`Out`]
    /// is dropped.
    #[inline(always)]
    pub(super) fn record(&mut self, extra: usize) -> Out<'_> {
        let room = RECORD_ROOM + extra;
        if self.bytes.len() - self.len < room {
            self.grow(room);
        }
        Out {
            base: self.bytes.bytes_mut()[self.len..].as_mut_ptr(),
            room,
            at: 0,
            len: &mut self.len,
            time: &mut self.time,
        }
    }

    #[cold]
    fn grow(&mut self, room: usize) {
        let mut bigger = Block::with_len(self.len + room);
        bigger.bytes_mut()[..self.len].copy_from_slice(self.text());
        self.bytes = bigger;
    }

    /// Makes `fresh` the buffer's memory, holding the text from byte `from` on, and returns the
    /// memory it had, whose first `from` bytes are the text before `from`.
    pub(super) fn swap_storage(&mut self, mut fresh: Block, from: usize) -> Block {
        let rest = self.len - from;
        // The writer's next record makes the room it needs (`record`), whatever `fresh` holds.
        fresh.bytes_mut()[..rest].copy_from_slice(&self.text()[from..]);
        self.len = rest;
        std::mem::replace(&mut self.bytes, fresh)
    }
}

/// A record being written into room made for it by [`Buf::record`]; dropping it adds the record
/// to the buffer's text.
///
/// Appends are unchecked copies: a bounds check per fragment and number was a fifth of a
/// record's instructions. What makes them sound is the record size bound: every record writer
/// writes fixed text and at most twenty-digit numbers, which fit in [`RECORD_ROOM`], plus
/// variable parts (ranges, strings) for which it asks `extra` room. The bound is asserted when
/// the record ends (one comparison per record) and in debug builds at every append, and
/// `qlog_shapes` writes the largest records.
pub(super) struct Out<'a> {
    /// Start of the room [`Buf::record`] made in the buffer (which `len` keeps borrowed).
    base: *mut u8,
    /// Bytes of room at `base`.
    room: usize,
    /// Bytes written.
    at: usize,
    /// The buffer's text length.
    len: &'a mut usize,
    time: &'a mut MsMemo,
}

impl Drop for Out<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        assert!(
            self.at <= self.room,
            "qlog record of {} bytes overran its room",
            self.at
        );
        *self.len += self.at;
    }
}

impl Out<'_> {
    /// Copies `n` bytes from `src` to the end of the record (`n` ≤ `src`'s length).
    #[inline(always)]
    fn copy(&mut self, src: *const u8, n: usize) {
        debug_assert!(self.at + n <= self.room, "qlog record overran its room");
        // SAFETY: `base` points at `room` writable bytes of the buffer, borrowed for the life of
        // `self`; `at + n` stays within them (the record size bound in the type's doc).
        unsafe { std::ptr::copy_nonoverlapping(src, self.base.add(self.at), n) };
    }

    /// Appends a fragment of JSON text.
    #[inline(always)]
    pub(super) fn put(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    /// Appends raw bytes.
    #[inline(always)]
    pub(super) fn bytes(&mut self, s: &[u8]) {
        self.copy(s.as_ptr(), s.len());
        self.at += s.len();
    }

    /// Takes back the last `n` bytes appended.
    #[inline(always)]
    pub(super) fn unput(&mut self, n: usize) {
        self.at -= n;
    }

    /// Appends one byte.
    #[inline(always)]
    pub(super) fn byte(&mut self, c: u8) {
        self.copy(&c, 1);
        self.at += 1;
    }

    /// Appends `c` unless `skip`, without a branch: the byte is stored either way and
    /// overwritten by what follows when skipped.
    #[inline(always)]
    pub(super) fn byte_unless(&mut self, c: u8, skip: bool) {
        self.copy(&c, 1);
        self.at += !skip as usize;
    }

    /// Appends the first `n` bytes of `word` (in `to_le_bytes` order) with one 8-byte store; the
    /// bytes past `n` land in the room after the text and are overwritten by what follows.
    #[inline(always)]
    pub(super) fn word(&mut self, word: u64, n: usize) {
        self.copy(word.to_le_bytes().as_ptr(), 8);
        self.at += n;
    }

    /// Appends an unsigned integer in decimal.
    #[inline(always)]
    pub(super) fn u64(&mut self, v: u64) {
        if v < 100_000_000 {
            let n = digit_count(v);
            // Drop the leading zeros: they are the first 8 - n bytes.
            self.word(eight_digits(v as u32) >> (8 * (8 - n)), n);
        } else {
            self.u64_long(v);
        }
    }

    /// Appends `v` in decimal through `m`, the field's memo: a repeated value copies its digits,
    /// a few more than the last adds them to the last digit if that does not carry (packet numbers
    /// count up by one, the largest acknowledged by two), anything else is formatted and kept
    /// (below 10^8).
    #[inline(always)]
    pub(super) fn memo(&mut self, m: &mut Memo, v: u64) {
        if v != m.v {
            let last_digit = (m.word >> (8 * (m.len - 1))) as u8;
            let up = v.wrapping_sub(m.v);
            if up <= (b'9' - last_digit) as u64 {
                m.word += up << (8 * (m.len - 1));
            } else if v < 100_000_000 {
                let n = digit_count(v);
                m.word = eight_digits(v as u32) >> (8 * (8 - n));
                m.len = n;
            } else {
                return self.u64_long(v);
            }
            m.v = v;
        }
        self.word(m.word, m.len);
    }

    /// Appends `v`, mostly 9 digits or more (a pacing rate in bits/s), in decimal: its digits
    /// above the last eight through `m`, the high part's memo (it changes far less often than
    /// the low eight digits, which are formatted every time).
    #[inline(always)]
    pub(super) fn memo_high(&mut self, m: &mut Memo, v: u64) {
        if v < 100_000_000 {
            return self.u64(v);
        }
        self.memo(m, v / 100_000_000);
        self.word(eight_digits((v % 100_000_000) as u32), 8);
    }

    /// Appends `v` in decimal as its digits above the last four, through `m`, and those four: for
    /// numbers that rise by less than 10^4 a step (stream offsets, 1,200 bytes a packet), whose
    /// high digits then repeat or count up by one, and only the last four are formatted.
    #[inline(always)]
    pub(super) fn memo_above_four(&mut self, m: &mut Memo, v: u64) {
        let high = v / 10_000;
        if high == 0 {
            return self.u64(v);
        }
        self.memo(m, high);
        self.word(four_digits((v - high * 10_000) as u32), 4);
    }

    /// [`Out::u64`] for 9 or more digits: up to 16 (stream offsets past 100 MB) inline, as the
    /// digits above the last eight and then those eight; longer ones as [`long_words`].
    #[inline(always)]
    fn u64_long(&mut self, v: u64) {
        if v < 10_000_000_000_000_000 {
            let high = v / 100_000_000;
            let n = digit_count(high);
            self.word(eight_digits(high as u32) >> (8 * (8 - n)), n);
            self.word(eight_digits((v % 100_000_000) as u32), 8);
        } else {
            let (words, top_len) = long_words(v);
            self.word(words[0], top_len);
            self.word(words[1], 8);
            self.word(words[2], 8);
        }
    }

    /// Appends `ns` nanoseconds as milliseconds with six decimals, so every nanosecond shows
    /// (`1_500_042` ns → `1.500042`). Integer arithmetic: no float rounding, no platform variance.
    #[inline(always)]
    pub(super) fn ms(&mut self, ns: u64) {
        self.u64(ns / 1_000_000);
        self.ms_fraction(ns);
    }

    /// [`Out::ms`] for record times, through the buffer's [`MsMemo`].
    #[inline(always)]
    pub(super) fn time(&mut self, ns: u64) {
        if self.time.hold(ns) {
            self.word(self.time.word, self.time.len);
            self.word(self.time.frac, 7);
        } else {
            self.ms(ns);
        }
    }

    /// [`Out::ms`] through `m`, the field's memo: the same time copies its digits, the same
    /// whole milliseconds copy theirs and format only the fraction.
    #[inline(always)]
    pub(super) fn ms_memo(&mut self, m: &mut MsMemo, ns: u64) {
        if m.hold(ns) {
            self.word(m.word, m.len);
            self.word(m.frac, 7);
        } else {
            self.ms(ns);
        }
    }

    /// The point and six digits of the fraction of a millisecond in `ns`.
    #[inline(always)]
    fn ms_fraction(&mut self, ns: u64) {
        self.word(fraction_word(ns), 7);
    }

    /// Appends `s` as a JSON string literal, escaped per RFC 8259 §7 (at most 2 + 6 × `s.len()`
    /// bytes: the record's caller makes room for that).
    pub(super) fn str(&mut self, s: &str) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.byte(b'"');
        for &c in s.as_bytes() {
            match c {
                b'"' => self.bytes(b"\\\""),
                b'\\' => self.bytes(b"\\\\"),
                b'\n' => self.bytes(b"\\n"),
                b'\r' => self.bytes(b"\\r"),
                b'\t' => self.bytes(b"\\t"),
                // Bytes of multi-byte UTF-8 sequences are all >= 0x80 and pass through unchanged.
                c if c < 0x20 => {
                    self.bytes(&[b'\\', b'u', b'0', b'0', HEX[(c >> 4) as usize], HEX[(c & 0xf) as usize]])
                }
                c => self.byte(c),
            }
        }
        self.byte(b'"');
    }

    /// Appends `,"key":` (or `"key":` when `first`), for building objects field by field.
    #[inline]
    pub(super) fn key(&mut self, first: bool, key: &str) {
        if !first {
            self.byte(b',');
        }
        self.byte(b'"');
        self.put(key);
        self.bytes(b"\":");
    }

    /// Appends `v` as a QUIC variable-length integer (RFC 9000 §16) in lowercase hex, the form qlog
    /// uses for raw transport-parameter values.
    pub(super) fn varint_hex(&mut self, v: u64) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        // RFC 9000 §16: the two most significant bits of the first byte give log2 of the length.
        let (len, prefix) = match v {
            0..=0x3f => (1, 0u64),
            0x40..=0x3fff => (2, 0b01),
            0x4000..=0x3fff_ffff => (4, 0b10),
            _ => (8, 0b11),
        };
        let encoded = (prefix << (8 * len - 2)) | v;
        for i in (0..len).rev() {
            let byte = (encoded >> (8 * i)) & 0xff;
            self.bytes(&[HEX[(byte >> 4) as usize], HEX[(byte & 0xf) as usize]]);
        }
    }
}

/// Room for `n` escaped string bytes and their quotes ([`Out::str`]).
pub(super) fn str_room(n: usize) -> usize {
    2 + 6 * n
}

/// Room for one `[lo,hi],` pair of numbers.
pub(super) const RANGE_ROOM: usize = 2 * U64_DIGITS + 4;

#[cfg(test)]
mod tests {
    use super::*;

    fn text(extra: usize, f: impl FnOnce(&mut Out<'_>)) -> String {
        let mut b = Buf::with_capacity(0);
        f(&mut b.record(extra));
        String::from_utf8(b.text().to_vec()).unwrap()
    }

    /// `values` written through a memo (`write`) read as they do written plainly.
    fn memo_writes_what_u64_writes(values: &[u64], write: fn(&mut Out<'_>, &mut Memo, u64)) {
        let mut m = Memo::ZERO;
        let memo = text(0, |o| {
            values.iter().for_each(|&v| {
                write(o, &mut m, v);
                o.byte(b' ');
            })
        });
        let plain = text(0, |o| {
            values.iter().for_each(|&v| {
                o.u64(v);
                o.byte(b' ');
            })
        });
        assert_eq!(memo, plain);
    }

    #[test]
    fn push_ms_keeps_every_nanosecond() {
        let s = text(0, |o| {
            for ns in [1_500_042, 7, 25_000_000_000, 0, 999_999, 1_000_000, u64::MAX] {
                o.ms(ns);
                o.byte(b' ');
            }
        });
        assert_eq!(
            s,
            "1.500042 0.000007 25000.000000 0.000000 0.999999 1.000000 18446744073709.551615 "
        );
    }

    #[test]
    fn record_times_match_ms_as_they_rise_and_jump() {
        // Same whole ms, next ms, a digit more, beyond the cache's 8 digits and back.
        let times = [
            0,
            999_999,
            1_000_000,
            1_000_001,
            9_999_999,
            10_000_000,
            99_999_999_999_999,
            100_000_000_000_000,
            100_000_000_000_001,
            u64::MAX,
            5,
            5,
        ];
        let cached = text(0, |o| times.iter().for_each(|&t| o.time(t)));
        let plain = text(0, |o| times.iter().for_each(|&t| o.ms(t)));
        assert_eq!(cached, plain);
        assert!(plain.starts_with("0.0000000.999999"));
    }

    #[test]
    fn record_times_match_ms_in_steps_within_and_across_10_us() {
        // From just below a whole ms and a 10 µs boundary, steps that stay within 10 µs, cross
        // it, cross a whole ms and a digit more of them, as packet times do.
        let mut times = Vec::new();
        for start in [0, 9_995, 999_990, 99_999_999_990, 99_999_999_999_990] {
            let mut t = start;
            for step in [
                0, 1, 7, 999, 1_000, 1_200, 2_400, 9_999, 10_000, 10_001, 1, 3, 250_000, 0, 5,
            ] {
                t += step;
                times.push(t);
            }
        }
        let cached = text(0, |o| times.iter().for_each(|&t| o.time(t)));
        let plain = text(0, |o| times.iter().for_each(|&t| o.ms(t)));
        assert_eq!(cached, plain);
        assert!((0..10_000u32).all(|v| four_digits(v).to_le_bytes()[..4] == *format!("{v:04}").as_bytes()));
    }

    #[test]
    fn memo_matches_u64_as_values_repeat_count_up_and_jump() {
        // Repeats, +1 without and with a carry (9 → 10, 99 → 100, 10^8 - 1 → 10^8), +2..+9 without
        // and with a carry (1509 → 1511, 1519 → 1528), jumps down,
        // beyond the memo's 8 digits and back, and a +1 from a value that was never kept.
        let values = [
            0,
            0,
            1,
            2,
            9,
            10,
            10,
            11,
            99,
            100,
            101,
            1500,
            1500,
            1502,
            1509,
            1511,
            1519,
            1528,
            7,
            99_999_998,
            99_999_999,
            100_000_000,
            100_000_001,
            5,
            u64::MAX,
            0,
            1,
        ];
        memo_writes_what_u64_writes(&values, |o, m, v| o.memo(m, v));
    }

    #[test]
    fn memo_high_matches_u64_as_the_high_digits_repeat_and_change() {
        // Below 10^8 (formatted plainly), high digits repeating with any low eight, changing,
        // at 16 and 20 digits (the high part itself past the memo's 8 digits) and back.
        let values = [
            0,
            99_999_999,
            100_000_000,
            12_950_237_207,
            12_950_037_815,
            12_999_999_999,
            13_000_000_000,
            9_999_999_999_999_999,
            u64::MAX,
            12_950_237_207,
            7,
        ];
        memo_writes_what_u64_writes(&values, |o, m, v| o.memo_high(m, v));
    }

    #[test]
    fn memo_above_four_matches_u64_as_offsets_rise() {
        // Offsets from 0 in packet-sized steps across 10^4, 10^8 and 10^12 boundaries, a jump
        // to the largest value and back.
        let mut values = Vec::new();
        for start in [0, 99_999_000, 999_999_990_000, 9_999_999_999_999_000] {
            values.extend((0..20).map(|i| start + 1_200 * i));
        }
        values.extend([u64::MAX, 5, 10_000, 9_999]);
        memo_writes_what_u64_writes(&values, |o, m, v| o.memo_above_four(m, v));
    }

    #[test]
    fn ms_memo_writes_any_first_value() {
        // A fresh memo holds a real value (1 ns), not a sentinel a first value could match.
        for first in [0, 1, 2, 999_999, u64::MAX] {
            let mut m = MsMemo::ONE_NS;
            assert_eq!(
                text(0, |o| o.ms_memo(&mut m, first)),
                text(0, |o| o.ms(first)),
                "{first}"
            );
        }
    }

    #[test]
    fn push_u64_matches_display_at_every_length() {
        // Each power of ten and its neighbours: every digit count from 1 to 20, both parities.
        let mut values = vec![0, u64::MAX];
        let mut p = 1u64;
        for _ in 0..19 {
            values.extend([p - 1, p, p + 1, p * 5 + 3]);
            p *= 10;
        }
        // Every bit length's smallest and largest value: where the log10 guess changes.
        for bits in 1..64 {
            values.extend([1u64 << bits, (1u64 << bits) - 1]);
        }
        for v in values {
            assert_eq!(text(0, |o| o.u64(v)), v.to_string());
        }
    }

    #[test]
    fn eight_digits_matches_display() {
        // The multiply-shift divisions are exact on their whole range (x < 10^4 and x < 100).
        assert!((0..10_000u64).all(|x| (x * 10_486) >> 20 == x / 100));
        assert!((0..100u64).all(|x| (x * 103) >> 10 == x / 10));
        // Every value below 10^5, then a stride through the rest of the range, and its end.
        let values = (0..100_000)
            .chain((100_000..100_000_000).step_by(997))
            .chain([99_999_999]);
        for v in values {
            assert_eq!(eight_digits(v).to_le_bytes(), *format!("{v:08}").as_bytes(), "{v}");
        }
    }

    #[test]
    fn push_str_escapes_quotes_and_controls() {
        let s = text(0, |o| o.str("a\"b\\c\n\u{1}\u{1f}é"));
        assert_eq!(s, r#""a\"b\\c\n\u0001\u001fé""#);
    }

    #[test]
    fn records_larger_than_the_block_grow_it() {
        let long = "\u{1}".repeat(3 * RECORD_ROOM);
        let mut b = Buf::with_capacity(16);
        b.record(str_room(long.len())).str(&long);
        b.record(0).put("x");
        assert_eq!(b.len(), 2 + 6 * long.len() + 1);
        assert!(b.text().ends_with(b"\\u0001\"x"));
    }

    #[test]
    fn varint_hex_matches_rfc9000_examples() {
        // RFC 9000 §A.1: 151288809941952652 → c2197c5eff14e88c, 494878333 → 9d7f3e7d,
        // 15293 → 7bbd, 37 → 25.
        for (v, hex) in [
            (151_288_809_941_952_652, "c2197c5eff14e88c"),
            (494_878_333, "9d7f3e7d"),
            (15_293, "7bbd"),
            (37, "25"),
        ] {
            assert_eq!(text(0, |o| o.varint_hex(v)), hex);
        }
    }
}
