//! The wall clock of a real run, and waiting on sockets until a deadline.
//!
//! Endpoints and link models see only [`Time`]: nanoseconds since the run's epoch. This module
//! is the one place that reads the OS clock for them.

use cclab_core::time::{Dur, Time};
use std::io;
use std::os::fd::RawFd;
use std::time::Instant;

/// Nanoseconds since the run started.
#[derive(Clone, Copy, Debug)]
pub struct WallClock {
    epoch: Instant,
}

impl WallClock {
    /// A clock whose zero is now.
    pub fn start() -> WallClock {
        WallClock { epoch: Instant::now() }
    }

    /// Time since the epoch.
    pub fn now(&self) -> Time {
        Time(self.epoch.elapsed().as_nanos() as u64)
    }
}

/// Lets this thread's timed waits end within 1 ns of their deadline instead of Linux's default
/// 50 µs timer slack, which alone would exceed the emulator's timing budget.
pub fn tighten_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument and affects only the calling thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// Asks for real-time scheduling (`SCHED_FIFO`) for this thread, so a loaded machine delays
/// its wake-ups less; true if granted (root, or `CAP_SYS_NICE`). Linux's RT throttling keeps a
/// runaway thread from taking a whole core, and the emulator sleeps whenever no release is near.
pub fn request_realtime_priority() -> bool {
    request_realtime_priority_at(10)
}

/// [`request_realtime_priority`] at `priority` (1–99; the emulator's is 10): for a thread that must
/// answer promptly but give way to the emulator when both are ready.
pub fn request_realtime_priority_at(priority: i32) -> bool {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: pid 0 is the calling thread; `param` is a valid sched_param.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}

/// CPU time this thread has used.
pub fn thread_cpu_time() -> Dur {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid out-pointer; CLOCK_THREAD_CPUTIME_ID always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Dur(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// Most descriptors one wait watches (the relay's two sockets).
const MAX_WAIT_FDS: usize = 2;

/// Blocks until one of `fds` (at most two) has `events` (`libc::POLLIN`, `POLLOUT`) or `timeout`
/// passes. Nanosecond resolution (`ppoll`), unlike `poll`'s milliseconds; no allocation, as every
/// driver loop waits here.
pub fn wait_fds(fds: &[RawFd], events: libc::c_short, timeout: Dur) -> io::Result<()> {
    assert!(
        fds.len() <= MAX_WAIT_FDS,
        "wait_fds watches at most {MAX_WAIT_FDS} descriptors"
    );
    let mut all = [libc::pollfd {
        fd: -1,
        events: 0,
        revents: 0,
    }; MAX_WAIT_FDS];
    for (p, &fd) in all.iter_mut().zip(fds) {
        *p = libc::pollfd { fd, events, revents: 0 };
    }
    let pfds = &mut all[..fds.len()];
    let ts = libc::timespec {
        tv_sec: (timeout.0 / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout.0 % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `pfds` holds `pfds.len()` initialised entries and `ts` outlives the call.
    let r = unsafe { libc::ppoll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, &ts, std::ptr::null()) };
    if r < 0 {
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(())
}
