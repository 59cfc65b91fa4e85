//! Prague beside CUBIC over DualPI2: the coupling (RFC 9332 §2.1, `p_CL = 2·p'` for the L queue
//! against `p_C = p'²` for the C queue) is sized for a scalable flow whose window follows `2/p_L`
//! and a Classic one following `1.22/√p_C`, so both get about the same rate. Prague gets there
//! only by growing as its draft and Linux `tcp_prague` do (`cc/scalable/mod.rs`,
//! `Response::Prague`): through the round after a CE cut, on unmarked bytes, and, past 500 round
//! trips, cutting at most once per 25 ms virtual RTT. `aqm_sharing.rs` checks the catalog's
//! 100 Mbit/s, 20 ms case (share 0.36 before, 0.58 now); on this slow, short path, frozen for the
//! round after each cut as DCTCP is and cutting every 10 ms round trip, Prague kept 18 % of the
//! link beside CUBIC; now 40 %.
//!
//!  prague: sender ──10 Gbit/s, 1 ms──┐                       ┌── receiver
//!                                    ├─ 10 Mbit/s, 4 ms ─────┤   (DualPI2; return 10 Mbit/s, 4 ms)
//!  cubic:  sender ──10 Gbit/s, 1 ms──┘                       └── receiver

use cclab_sim::{run, RunOptions, Scenario};

const SCENARIO: &str = r#"
[scenario]
name = "prague-coupling"
duration = "20s"
topology = "dumbbell"

[path.forward]
rate = "10Mbps"
delay = "4ms"
queue = { kind = "dualpi2" }

[path.return]
rate = "10Mbps"
delay = "4ms"

[[flow]]
name = "prague"
source = { kind = "bulk", size = "10GB" }
cc = { algorithm = "prague" }
access = { rate = "10Gbps", delay = "1ms" }

[[flow]]
name = "cubic"
source = { kind = "bulk", size = "10GB" }
cc = { algorithm = "cubic" }
access = { rate = "10Gbps", delay = "1ms" }
"#;

#[test]
fn prague_and_cubic_share_a_slow_dualpi2_link_within_a_factor_of_two() {
    let s = Scenario::from_toml_str(SCENARIO, "prague-coupling.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&s, RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let (prague, cubic) = (&out.summary.flows[0], &out.summary.flows[1]);
    let share = prague.goodput_bps / (prague.goodput_bps + cubic.goodput_bps);
    // Equal rates are the coupling's aim; neither flow may take twice the other's rate.
    assert!(
        (1.0 / 3.0..=2.0 / 3.0).contains(&share),
        "Prague's share {share:.3} ({:.1} against {:.1} Mbit/s)",
        prague.goodput_bps / 1e6,
        cubic.goodput_bps / 1e6
    );
    // The L queue stays shallow while it does: Prague's median RTT within 2.5 ms of the 10 ms base
    // (one 1500-byte packet takes 1.2 ms at 10 Mbit/s).
    let rtt = prague.rtt_p50_s.unwrap_or(f64::NAN);
    assert!(rtt < 0.0125, "Prague's median RTT {rtt} s");
    assert!(
        out.summary.links[0].utilisation > 0.95,
        "{}",
        out.summary.links[0].utilisation
    );
}
