//! ACK frame boxes handed back for reuse, one free list per thread.
//!
//! A data receiver builds one boxed [`AckFrame`] per ACK and its sender drops it on arrival: a malloc
//! and a free per ACK, about 150 instructions, half of them in `free`. The two endpoints sit on
//! different hosts, so neither can keep the other's boxes; a thread's free list joins them, as the
//! simulator runs both on one thread. A list that only fills (a real-mode thread that receives ACKs
//! and builds few) stops at [`SPARE_BOXES`] and frees the rest. Nothing observable depends on which
//! box a frame lives in, so runs stay deterministic.

use std::cell::UnsafeCell;
use std::ptr::NonNull;

use super::packet::AckFrame;

/// Most boxes a thread keeps: an ACK is in flight for about a round trip, and a receiver sends far
/// fewer ACKs per round trip than this only at large windows, where the malloc it then does is rare.
pub const SPARE_BOXES: usize = 64;

/// A thread's spare boxes: raw pointers, so that the thread-local needs no destructor. A
/// thread-local with one (a `RefCell<Vec<Box<AckFrame>>>`) is reached through a call that checks
/// whether its destructor is registered yet, ~45 instructions per recycled box (~1.6 M of the
/// 240 M on 100 MB at 10 Gbit/s, docs/performance.md); one without is an offset from the thread
/// pointer. [`FreeAtExit`] frees what the list holds when the thread ends.
struct Spares {
    len: usize,
    /// `boxes[..len]` are boxes given up with `Box::into_raw`, each owned by the list alone.
    boxes: [Option<NonNull<AckFrame>>; SPARE_BOXES],
    /// [`FREE_AT_EXIT`] was touched, so its destructor will run when the thread ends.
    guarded: bool,
}

impl Spares {
    fn pop(&mut self) -> Option<Box<AckFrame>> {
        self.len = self.len.checked_sub(1)?;
        let b = self.boxes[self.len].take()?;
        // SAFETY: every pointer in the list came from `Box::into_raw` in `push` and `take` removed it,
        // so this is its one owner again.
        Some(unsafe { Box::from_raw(b.as_ptr()) })
    }

    /// Keeps `frame`; hands it back when the list is full.
    fn push(&mut self, frame: Box<AckFrame>) -> Result<(), Box<AckFrame>> {
        if self.len == SPARE_BOXES {
            return Err(frame);
        }
        if !self.guarded {
            // Registers the destructor that frees the list; a thread already tearing its
            // thread-locals down keeps nothing.
            if FREE_AT_EXIT.try_with(|_| ()).is_err() {
                return Err(frame);
            }
            self.guarded = true;
        }
        self.boxes[self.len] = Some(NonNull::from(Box::leak(frame)));
        self.len += 1;
        Ok(())
    }
}

/// Frees a thread's spare boxes when it ends (its destructor is registered by the first `push`).
struct FreeAtExit;

impl Drop for FreeAtExit {
    fn drop(&mut self) {
        with_spares(|s| {
            s.guarded = false;
            while s.pop().is_some() {}
        });
    }
}

thread_local! {
    /// Boxes given back, their frames holding whatever they last held: boxes, not frames, since a packet's
    /// frame is a box, and keeping the box is what saves its allocation.
    static SPARE: UnsafeCell<Spares> = const {
        UnsafeCell::new(Spares {
            len: 0,
            boxes: [None; SPARE_BOXES],
            guarded: false,
        })
    };
    static FREE_AT_EXIT: FreeAtExit = const { FreeAtExit };
}

/// Runs `f` on this thread's spare boxes.
#[inline(always)]
fn with_spares<R>(f: impl FnOnce(&mut Spares) -> R) -> R {
    // Only the address comes out of `LocalKey::with`: with `f` inside it, LLVM kept `with` as a
    // function of its own that reached the thread-local through the key's function pointer.
    let spares = SPARE.with(UnsafeCell::get);
    // SAFETY: the list is this thread's own and alive for as long as the thread (no destructor), and
    // `f` (a `Spares` method here) calls nothing that reaches it again (dropping a frame does not
    // recycle it), so this is the only reference while `f` runs.
    f(unsafe { &mut *spares })
}

/// A spare box of this thread, if it has one.
#[inline]
fn spare() -> Option<Box<AckFrame>> {
    with_spares(Spares::pop)
}

impl AckFrame {
    /// A frame without ranges, with this ACK delay and these ECN counts, in a box given back on this
    /// thread if there is one (its ECN box and its ranges' heap buffer reused too). Equal to a newly built frame.
    #[inline]
    pub fn boxed(ack_delay_ns: u64, ecn: Option<[u64; 3]>) -> Box<AckFrame> {
        let Some(mut b) = spare() else {
            return Box::new(AckFrame {
                ack_delay_ns,
                ecn: ecn.map(Box::new),
                ..AckFrame::default()
            });
        };
        b.ranges.clear();
        b.ack_delay_ns = ack_delay_ns;
        b.sack_blocks = None;
        match (ecn, &mut b.ecn) {
            (Some(c), Some(old)) => **old = c,
            (c, old) => *old = c.map(Box::new),
        }
        b
    }

    /// A boxed copy of this frame, in a box given back on this thread if there is one.
    #[inline]
    pub fn boxed_copy(&self) -> Box<AckFrame> {
        match spare() {
            Some(mut b) => {
                (*b).clone_from(self);
                b
            }
            None => Box::new(self.clone()),
        }
    }

    /// Gives `frame`'s box back for [`AckFrame::boxed`] on this thread (freed if the thread already
    /// keeps [`SPARE_BOXES`]).
    #[inline]
    pub fn recycle(frame: Box<AckFrame>) {
        // A full list frees the box outside the thread-local access.
        if let Err(frame) = with_spares(|s| s.push(frame)) {
            drop(frame);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::packet::AckRanges;

    fn full(ranges: usize) -> Box<AckFrame> {
        Box::new(AckFrame {
            ranges: (0..ranges as u64)
                .rev()
                .map(|k| (10 * k, 10 * k + 5))
                .collect::<AckRanges>(),
            ack_delay_ns: 7,
            ecn: Some(Box::new([1, 2, 3])),
            sack_blocks: Some(3),
        })
    }

    #[test]
    fn ack_box_reused_frames_equal_new_ones_whatever_they_held() {
        // Frames with heap ranges, ECN counts and a SACK count go back; what comes out must equal a new frame.
        for ecn in [None, Some([4, 5, 6])] {
            for held in [0, 2, 40] {
                AckFrame::recycle(full(held));
                let b = AckFrame::boxed(99, ecn);
                let new = AckFrame {
                    ack_delay_ns: 99,
                    ecn: ecn.map(Box::new),
                    ..AckFrame::default()
                };
                assert_eq!(*b, new, "held {held} ranges, ecn {ecn:?}");
                assert!(b.ranges.is_empty());
                AckFrame::recycle(b);
                let src = full(held + 1);
                assert_eq!(src.boxed_copy(), src);
            }
        }
    }

    #[test]
    fn ack_box_reused_frame_keeps_its_ranges_buffer() {
        // A box that held 40 ranges takes 40 again in the same heap buffer: no malloc per ACK after a loss burst.
        let held = full(40);
        let buffer = held.ranges.as_ptr();
        AckFrame::recycle(held);
        let mut b = AckFrame::boxed(0, None);
        let highest_first: Vec<(u64, u64)> = (0..40u64).rev().map(|k| (10 * k, 10 * k + 5)).collect();
        // As a receiver builds a frame: the top range, then the rest; two ranges stay inline.
        b.ranges.set_first_and_rest(highest_first[0], &highest_first[1..2]);
        assert_ne!(b.ranges.as_ptr(), buffer, "two ranges stay inline");
        b.ranges.clear();
        b.ranges.set_first_and_rest(highest_first[0], &highest_first[1..]);
        assert_eq!(b.ranges.as_ptr(), buffer);
        assert_eq!(*b.ranges, *full(40).ranges);
        // Cleared again, it starts inline, as a new frame does.
        b.ranges.clear();
        b.ranges.push((1, 2));
        assert_eq!(*b.ranges, [(1, 2)]);
        assert_ne!(b.ranges.as_ptr(), buffer);
    }

    #[test]
    fn ack_box_free_list_stops_at_its_cap() {
        for _ in 0..SPARE_BOXES + 10 {
            AckFrame::recycle(full(1));
        }
        assert_eq!(with_spares(|s| s.len), SPARE_BOXES);
        for _ in 0..SPARE_BOXES + 10 {
            assert_eq!(*AckFrame::boxed(0, None), AckFrame::default());
        }
        assert_eq!(with_spares(|s| s.len), 0);
    }

    #[test]
    fn ack_box_recycled_while_a_thread_ends_is_freed_not_kept() {
        // A thread-local dropped after the free list's own destructor ran gives a box back: it is
        // freed (the list is no longer watched), not kept past the thread or a panic.
        struct LateFrame;
        impl Drop for LateFrame {
            fn drop(&mut self) {
                AckFrame::recycle(full(3));
                assert!(AckFrame::boxed(0, None).ranges.is_empty());
            }
        }
        thread_local! {
            static LATE: LateFrame = const { LateFrame };
        }
        std::thread::spawn(|| {
            // Registered before the list's destructor, so (last in, first out) dropped after it.
            LATE.with(|_| ());
            for _ in 0..3 {
                AckFrame::recycle(full(2));
            }
            assert_eq!(with_spares(|s| s.len), 3);
        })
        .join()
        .expect("the thread ends cleanly");
    }
}
