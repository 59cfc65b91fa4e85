//! quinn-bulk: a minimal bulk-transfer client and server on quinn 0.11 (a third-party QUIC stack).
//!
//! It is what `cclab emulate` runs through the emulated path in the tests, and the peer the
//! real-mode benchmark compares cclab's own endpoints against. It is not part of cclab's model:
//! it links no cclab crate. One bidirectional stream carries one transfer; see `wire` for the
//! request and `README`-style usage in `args::USAGE`. At the end each side prints one JSON line
//! (`report`) with bytes, seconds, goodput and quinn's path statistics.
#![warn(missing_docs)]

mod args;
mod client;
mod report;
mod server;
mod tls;
mod transport;
mod wire;

use std::process::ExitCode;

fn main() -> ExitCode {
    let command = match args::parse(std::env::args().skip(1)) {
        Ok(command) => command,
        Err(e) => {
            eprintln!("quinn-bulk: {e}\n\n{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    // One thread: a bulk transfer is one connection, and the lab's machines are small and shared.
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("quinn-bulk: cannot start the tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        match command {
            args::Command::Server(server) => server::run(server).await,
            args::Command::Client(client) => client::run(client).await,
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("quinn-bulk: {e}");
            ExitCode::FAILURE
        }
    }
}
