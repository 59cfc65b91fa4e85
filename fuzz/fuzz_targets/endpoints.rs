//! Decoded datagrams fed straight into the sender and receiver state machines (QUIC, TCP, TFRC): bounded
//! work per datagram (a hang is a timeout, a burst beyond the cap a panic), no panic. The input is a script
//! read by `crates/cclab-core/tests/fuzz_support/endpoints.rs`, shared with the stable property test
//! `crates/cclab-core/tests/fuzz_endpoints.rs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/cclab-core/tests/fuzz_support/endpoints.rs"]
mod endpoints;

fuzz_target!(|data: &[u8]| endpoints::run(data));
