//! Property fuzzing of the endpoints' datagram and timer inputs, the stable counterpart of
//! `fuzz/fuzz_targets/endpoints.rs`: arbitrary scripts of semantic and codec-decoded datagrams fed straight
//! into each sender and receiver (`fuzz_support/endpoints.rs` reads them). Nothing may panic, hang or send
//! without bound. Fixed seed; `PROPTEST_RNG_SEED` and `PROPTEST_CASES` override it and the case count.

use proptest::collection::vec;
use proptest::prelude::*;

mod fuzz_support;
use fuzz_support::config;

#[path = "fuzz_support/endpoints.rs"]
mod endpoints;

/// Bytes that keep numbers small and valid more often than uniform bytes do.
fn script_byte() -> impl Strategy<Value = u8> {
    prop_oneof![3 => 0..16u8, 1 => any::<u8>()]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn endpoints_arbitrary_datagram_scripts_never_panic_or_hang(input in vec(script_byte(), 1..400)) {
        endpoints::run(&input);
    }
}

/// Issue #14's 48-byte ACK, through the codec path (op 2) into a QUIC sender (kind 0).
#[test]
fn endpoints_hang_datagram_through_the_script() {
    let hang = "4300000000000000000000000102ffffffffffffffff0000ffffffffffffffffa5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5";
    let mut input = vec![0, 2, 48];
    input.extend(
        (0..hang.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hang[i..i + 2], 16).unwrap()),
    );
    endpoints::run(&input);
}
