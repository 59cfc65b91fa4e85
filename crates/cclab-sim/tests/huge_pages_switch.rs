//! A run holds `cclab_alloc`'s huge-page switch while it lasts when, and only when, it has many flows. (Its own
//! test binary: the switch is process-wide, so no other run may hold it meanwhile.)

use cclab_sim::{run, RunOptions, Scenario};
use std::sync::{Arc, Mutex};

/// `n` flows of 10 KB on one 100 Mbit/s path.
fn flows(n: usize) -> Scenario {
    let mut s = String::from(
        "[scenario]\nname = \"switch\"\nduration = \"2s\"\n\
         [path.forward]\nrate = \"100Mbps\"\ndelay = \"1ms\"\n[path.return]\nrate = \"100Mbps\"\ndelay = \"1ms\"\n",
    );
    for _ in 0..n {
        s += "[[flow]]\nsource = { kind = \"bulk\", size = \"10KB\" }\n";
    }
    Scenario::from_toml_str(&s, "switch.toml", &[]).unwrap_or_else(|e| panic!("{e}"))
}

/// Whether the switch was on at each call of the run's progress hook (the last one comes once the run is over,
/// before its network is dropped).
fn switch_during_run(n: usize) -> Vec<bool> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let opts = RunOptions {
        progress: Some(Box::new(move |_| {
            log.lock().unwrap().push(cclab_alloc::huge_pages_on());
            true
        })),
        ..RunOptions::default()
    };
    run(&flows(n), opts).unwrap();
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty(), "the progress hook ran");
    seen
}

#[test]
fn huge_pages_switch_is_held_by_runs_with_many_flows_only() {
    assert!(!cclab_alloc::huge_pages_on());
    assert!(
        switch_during_run(64).iter().all(|&on| on),
        "64 flows: the switch should be on throughout"
    );
    assert!(
        !cclab_alloc::huge_pages_on(),
        "the switch should turn off when the run ends"
    );
    assert!(
        switch_during_run(63).iter().all(|&on| !on),
        "63 flows: the switch should stay off"
    );
    assert!(
        switch_during_run(1).iter().all(|&on| !on),
        "1 flow: the switch should stay off"
    );
}
