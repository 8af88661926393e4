//! One function per fuzz target, taking the fuzzer's bytes; each panics on a finding.

pub mod macro_parse;
pub mod path_resolution;
pub mod tool_args;

/// A target's body: one input, a panic on a finding.
pub type Target = fn(&[u8]);

/// The targets by name, as `fuzz/Cargo.toml` and `fuzz/corpus/<name>/` call them.
pub const ALL: &[(&str, Target)] = &[
    ("macro_parse", macro_parse::run),
    ("path_resolution", path_resolution::run),
    ("tool_args", tool_args::run),
];
