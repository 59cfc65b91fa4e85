//! CPU time of the calling thread, for the simulator's cost in `summary.json`: wall time counts
//! whatever else the machine runs, CPU time only the simulation.

use std::time::Instant;

/// Measures the calling thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), or the wall time where that
/// clock is not readable.
pub(crate) struct CpuClock {
    cpu0: Option<u64>,
    wall: Instant,
}

/// The calling thread's CPU time in ns. Not `/proc/thread-self/schedstat`, which this used to read:
/// the kernel brings that figure up to date only at scheduler ticks and switches, so a run of a few
/// milliseconds could read as none, and a 30 ms one off by a tenth.
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec; the call only writes it.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    ok.then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

impl CpuClock {
    pub(crate) fn start() -> CpuClock {
        CpuClock {
            cpu0: thread_cpu_ns(),
            wall: Instant::now(),
        }
    }

    /// (CPU seconds, wall seconds) since `start`.
    pub(crate) fn elapsed(&self) -> (f64, f64) {
        let wall = self.wall.elapsed().as_secs_f64();
        let cpu = self
            .cpu0
            .and_then(|c0| Some(thread_cpu_ns()?.saturating_sub(c0) as f64 * 1e-9))
            .unwrap_or(wall);
        (cpu, wall)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_clock_sees_every_slice_of_work_not_only_scheduler_ticks() {
        // 100 slices of ~50 µs of work each: a precise clock reads more after every slice (the work is done
        // on this thread however the machine is loaded); one updated at ticks (1–4 ms) after a few of them.
        let clock = CpuClock::start();
        let mut last = clock.elapsed().0;
        let mut x = 1u64;
        let mut rose = 0;
        for _ in 0..100 {
            let slice = Instant::now();
            while slice.elapsed().as_micros() < 50 {
                x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
            }
            let now = clock.elapsed().0;
            rose += usize::from(now > last);
            last = now;
        }
        assert!(rose >= 90, "the CPU time rose after {rose} of 100 slices of work");
    }
}
