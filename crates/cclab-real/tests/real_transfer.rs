//! Real mode end to end on this machine's loopback: transfers arrive whole and intact, over
//! plain loopback and through the emulator, and the emulator keeps its rate and times.

use cclab_real::{run_real, RealOptions};
use cclab_sim::{RunOutput, Scenario};

fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text, "test.toml", &[]).expect("valid scenario")
}

fn run(text: &str) -> RunOutput {
    run_real(&scenario(text), RealOptions::default()).expect("real run")
}

fn bulk(path: &str, size: &str, extra: &str) -> String {
    format!(
        r#"
[scenario]
name = "real-test"
duration = "20s"
{path}
[[flow]]
source = {{ kind = "bulk", size = "{size}" }}
{extra}
"#
    )
}

const LOOPBACK: &str = r#"
[path.forward]
rate = "unlimited"
delay = "0s"
[path.return]
rate = "unlimited"
delay = "0s"
"#;

#[test]
fn plain_loopback_delivers_every_byte_intact() {
    let out = run(&bulk(LOOPBACK, "8MB", "cc = { algorithm = \"cubic\" }"));
    let f = &out.summary.flows[0];
    assert_eq!(out.summary.mode, "real");
    assert_eq!(f.bytes_delivered, 8_000_000, "{f:?}");
    assert_eq!(f.decode_errors, Some(0));
    assert!(f.completion_time_s.is_some());
    assert!(out.summary.emulator.is_none(), "plain loopback needs no relay");
    assert!(f.cpu_time_sender_s.unwrap() > 0.0);
}

#[test]
fn tcp_and_dccp_profiles_run_as_udp_datagrams() {
    let tcp = run(&bulk(LOOPBACK, "2MB", "profile = \"tcp\""));
    assert_eq!(tcp.summary.flows[0].bytes_delivered, 2_000_000);
    assert_eq!(tcp.summary.flows[0].decode_errors, Some(0));
}

#[test]
fn emulated_path_survives_loss_reordering_and_duplication() {
    let path = r#"
[path.forward]
rate = "50Mbps"
delay = "2ms"
loss = { model = "bernoulli", p = 0.1 }
reorder = { p = 0.05, delay = "1ms" }
duplicate = 0.05
[path.return]
rate = "50Mbps"
delay = "2ms"
"#;
    let out = run(&bulk(path, "3MB", "cc = { algorithm = \"newreno\" }"));
    let f = &out.summary.flows[0];
    assert_eq!(f.bytes_delivered, 3_000_000, "{f:?}");
    assert_eq!(f.decode_errors, Some(0));
    let fwd = &out.summary.links[0];
    assert!(fwd.drops > 0, "{fwd:?}");
    let emu = out.summary.emulator.as_ref().expect("emulated");
    assert!(emu.packets > 0);
}
