//! Processor idle states (`cpu.idle_states`): work that finds the core asleep waits for its exit.
//!
//! ```text
//!  [CBR sender] ──10 µs──▶ [receiver CPU, 5 µs per datagram, idle states]
//! ```

mod common;

use cclab_core::time::{Dur, Time};
use cclab_sim::host::{CpuConfig, HostConfig, IdleStateConfig};
use common::{cbr_to_sink, cpu_bound_transfer};

const END: Time = Time(60_000_000_000);

/// C6 and C10 of Linux intel_idle's Meteor Lake table (µs): residency 420 / 930, exit 140 / 310.
fn meteor_lake() -> Vec<IdleStateConfig> {
    [(420, 140), (930, 310)]
        .map(|(r, e)| IdleStateConfig {
            residency: Dur::from_micros(r),
            exit_latency: Dur::from_micros(e),
        })
        .to_vec()
}

/// Receive times of `count` datagrams sent every `gap` to a receiver with Meteor Lake's idle states,
/// and the receiver's time spent waking.
fn receive_times(gap: Dur, count: u64) -> (Vec<Time>, Dur) {
    let receiver = HostConfig {
        cpu: CpuConfig {
            recv_cost: Dur::from_micros(5),
            idle_states: meteor_lake(),
            ..Default::default()
        },
        socket_buffer: None,
    };
    let (mut net, d, arrivals) = cbr_to_sink(&receiver, Dur::from_micros(10), gap, count);
    net.run(END, None, &mut ());
    let times = arrivals.lock().unwrap().iter().map(|(t, _)| *t).collect();
    (times, net.hosts()[d.0 as usize].stats().waking)
}

#[test]
fn host_idle_states_delay_work_by_the_deepest_state_reached() {
    // Datagram k arrives at k·gap + 10 µs and finds the core idle since the previous one was done;
    // it waits for the exit of the deepest state whose residency that idle time passed, then 5 µs.
    // 500 µs: 495 µs idle → C6, done 155 µs after arrival, so the next idles 355 µs → no state.
    // 1.5 ms: 1175 µs idle → C10 every time.
    let us = Dur::from_micros;
    for (gap_us, exits_us) in [(100, [0, 0]), (500, [140, 0]), (1_500, [310, 310])] {
        let gap = us(gap_us);
        let (times, waking) = receive_times(gap, 100);
        assert_eq!(times.len(), 100);
        // The first datagram finds a core idle for 10 µs: no wake-up.
        assert_eq!(times[0], Time::ZERO + us(15));
        let mut total = Dur::ZERO;
        for (k, t) in times.iter().enumerate().skip(1) {
            let exit = us(exits_us[(k - 1) % 2]);
            total += exit;
            assert_eq!(
                *t,
                Time::ZERO + gap * k as u64 + us(10) + exit + us(5),
                "gap {gap_us} µs, datagram {k}"
            );
        }
        assert_eq!(waking, total, "gap {gap_us} µs");
    }
}

#[test]
fn host_idle_states_cost_a_cpu_bound_sender_nothing() {
    // A window-limited sender whose core is always busy (host_stalls.rs builds the same transfer):
    // it never idles long enough to sleep, so only the final wait for ACKs could wake it.
    let cpu = CpuConfig {
        send_cost: Dur::from_micros(10),
        idle_states: meteor_lake(),
        ..Default::default()
    };
    let (net, s, _) = cpu_bound_transfer(cpu, 10, 20_000, END);
    let st = net.hosts()[s.0 as usize].stats();
    assert_eq!(st.busy, Dur::from_micros(10) * 20_000);
    assert!(st.waking <= Dur::from_micros(310), "waking {:?}", st.waking);
}
