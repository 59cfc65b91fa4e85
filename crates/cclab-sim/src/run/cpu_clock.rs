//! CPU time of the calling thread, for the simulator's cost in `summary.json`: wall time counts
//! whatever else the machine runs, CPU time only the simulation.

use std::time::Instant;

/// Measures the calling thread's CPU time (Linux `/proc/thread-self/schedstat`, in ns), or the
/// wall time where that is not readable.
pub(crate) struct CpuClock {
    cpu0: Option<u64>,
    wall: Instant,
}

fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
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
