//! `[[flow]] count` and `stagger`: a table with copies runs exactly as the tables written out one by one,
//! and a bad count is an error naming the key before any copy is made.

use cclab_sim::{run, RunOptions, Scenario, ScenarioError};

const PATH: &str = r#"
[scenario]
name = "copies"
duration = "3s"
topology = "dumbbell"

[path.forward]
rate = "20Mbps"
delay = "5ms"
queue = { kind = "droptail", limit = "40KB" }

[path.return]
rate = "20Mbps"
delay = "5ms"
"#;

const BULK: &str = "source = { kind = \"bulk\", size = \"600KB\" }\ncc = { algorithm = \"cubic\" }\n";

fn load(text: &str, sets: &[&str]) -> Result<Scenario, ScenarioError> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    Scenario::from_toml_str(text, "copies.toml", &sets)
}

/// The run's summary without its CPU and wall-clock figures.
fn summary(s: &Scenario) -> String {
    run(s, RunOptions::default()).unwrap().summary.deterministic_json()
}

#[test]
fn copies_run_exactly_like_the_tables_written_out() {
    let copies = format!(
        "{PATH}[[flow]]\nname = \"first\"\n{BULK}\
         [[flow]]\nname = \"bulk\"\ncount = 3\nstart = \"20ms\"\nstagger = \"15ms\"\n{BULK}\
         [[flow]]\ncount = 2\n{BULK}"
    );
    let mut written = format!("{PATH}[[flow]]\nname = \"first\"\n{BULK}");
    for k in 0..3 {
        written += &format!("[[flow]]\nname = \"bulk-{k}\"\nstart = \"{}ms\"\n{BULK}", 20 + 15 * k);
    }
    written += &format!("[[flow]]\n{BULK}[[flow]]\n{BULK}");
    let (a, b) = (load(&copies, &[]).unwrap(), load(&written, &[]).unwrap());
    let names: Vec<_> = a.config().flow.iter().map(|f| f.name.clone()).collect();
    assert_eq!(
        names,
        [
            Some("first"),
            Some("bulk-0"),
            Some("bulk-1"),
            Some("bulk-2"),
            None,
            None
        ]
        .map(|n| n.map(String::from))
    );
    let (ja, jb) = (summary(&a), summary(&b));
    assert_eq!(ja, jb);
    // Six flows shared the path and all finished, so the equality is not between two empty runs.
    let done = ja.matches("\"completion_time_s\": ").count() - ja.matches("\"completion_time_s\": null").count();
    assert!(done >= 6, "{ja}");
    // The file as loaded still says `count`: loading it again gives the same flows.
    assert!(a.resolved_toml().contains("count = 3"), "{}", a.resolved_toml());
}

#[test]
fn count_is_a_key_a_sweep_can_set() {
    let s = load(
        &format!("{PATH}[[flow]]\n{BULK}"),
        &["flow.0.count=40", "flow.0.stagger=1ms"],
    )
    .unwrap();
    let starts: Vec<u64> = s.config().flow.iter().map(|f| f.start.as_nanos()).collect();
    assert_eq!(starts, (0..40).map(|k| k * 1_000_000).collect::<Vec<_>>());
}

#[track_caller]
fn fails(text: &str, key: &str, words: &str) {
    let e = load(text, &[]).expect_err("must be rejected");
    assert_eq!(e.key_path(), Some(key), "{e}");
    assert!(e.to_string().contains(words), "{e}");
}

#[test]
fn bad_counts_name_the_key_before_any_copy_is_made() {
    fails(
        &format!("{PATH}[[flow]]\ncount = 0\n{BULK}"),
        "flow[0].count",
        "expected at least 1",
    );
    fails(
        &format!("{PATH}[[flow]]\ncount = -2\n{BULK}"),
        "flow[0].count",
        "invalid value",
    );
    // A count of 10^18 is refused at once, not allocated.
    fails(
        &format!("{PATH}[[flow]]\ncount = 1000000000000000000\n{BULK}"),
        "flow[0].count",
        "at most 32767 flows",
    );
    fails(
        &format!("{PATH}[[flow]]\ncount = 32000\n{BULK}[[flow]]\ncount = 800\n{BULK}"),
        "flow[1].count",
        "the tables up to this one make 32800",
    );
    fails(
        &format!("{PATH}[[flow]]\ncount = 32767\n{BULK}[[flow]]\n{BULK}"),
        "flow",
        "at most 32767 flows",
    );
    fails(
        &format!("{PATH}[[flow]]\ncount = 5\nstagger = \"5000000000s\"\n{BULK}"),
        "flow[0].stagger",
        "would start past",
    );
}
