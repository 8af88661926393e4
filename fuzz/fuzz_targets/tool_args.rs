//! Every linked tool, any arguments (`cy_tools_fuzz_harness::targets::tool_args`).
//! The body lives in the harness crate, where the corpus replay test runs it too.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| cy_tools_fuzz_harness::targets::tool_args::run(data));
