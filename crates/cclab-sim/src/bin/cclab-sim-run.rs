fn main() {
    let args: Vec<String> = std::env::args().collect();
    let s = cclab_sim::load_scenario(std::path::Path::new(&args[1]), &args[2..]).unwrap_or_else(|e| panic!("{e}"));
    let out = cclab_sim::run(
        &s,
        cclab_sim::RunOptions {
            out_dir: std::env::var_os("OUT").map(Into::into),
            ..Default::default()
        },
    )
    .unwrap();
    println!("{}", out.summary.to_json_pretty());
}
