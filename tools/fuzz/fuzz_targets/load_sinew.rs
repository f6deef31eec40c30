//! Arbitrary bytes as a `.sinew` file: load, then use the rigs.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| sinew_fuzz::load_sinew(data));
