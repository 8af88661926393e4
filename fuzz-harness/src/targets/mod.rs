//! One function per fuzz target, taking the fuzzer's bytes; each panics on a finding.

pub mod macro_parse;
pub mod path_resolution;
pub mod tool_args;

/// The targets by name, as `fuzz/Cargo.toml` and `fuzz/corpus/<name>/` call them.
pub const ALL: &[(&str, fn(&[u8]))] = &[
    ("macro_parse", macro_parse::run),
    ("path_resolution", path_resolution::run),
    ("tool_args", tool_args::run),
];
