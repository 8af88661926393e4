//! Arbitrary paths against a `SandboxView` on a real folder (`cy_tools_fuzz_harness::targets::path_resolution`).
//! The body lives in the harness crate, where the corpus replay test runs it too.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cy_tools_fuzz_harness::targets::path_resolution::run(data));
