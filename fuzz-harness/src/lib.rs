//! The bodies of cy-tools' fuzz targets, on stable Rust, with what they share: the on-disk
//! fixture with its sentinels, session services that are safe to fuzz, and JSON built from
//! fuzzer bytes.
//!
//! `fuzz/` (nightly, cargo-fuzz) wraps each [`targets`] function in a `fuzz_target!`; this
//! crate's tests run the same functions over the committed corpus in `fuzz/corpus/<target>/`,
//! so CI exercises every seed without building libFuzzer.
//!
//! ```no_run
//! // What a fuzz target and the corpus replay both do with one input:
//! cy_tools_fuzz_harness::targets::macro_parse::run(b"name = \"x\"\nasync fn x() {}");
//! ```

pub mod bench;
pub mod fixture;
pub mod json_gen;
pub mod panics;
pub mod services;
pub mod targets;

pub use bench::Bench;
pub use fixture::Fixture;

// The `#[tool]` pipeline, for `macro_parse`: a proc-macro crate cannot be linked as a library,
// and these modules use only `proc_macro2`, so they are compiled in from its sources. At the
// crate root, as in the macro crate, so their `crate::` paths resolve.
#[allow(dead_code, unreachable_pub)]
#[path = "../../cy-tools-macros/src/ast.rs"]
mod ast;
#[allow(dead_code, unreachable_pub)]
#[path = "../../cy-tools-macros/src/attr.rs"]
mod attr;
#[allow(dead_code, unreachable_pub)]
#[path = "../../cy-tools-macros/src/caps.rs"]
mod caps;
#[allow(dead_code, unreachable_pub)]
#[path = "../../cy-tools-macros/src/catalog.rs"]
mod catalog;
#[allow(dead_code, unreachable_pub)]
#[path = "../../cy-tools-macros/src/doc.rs"]
mod doc;
#[allow(dead_code, unreachable_pub)]
#[path = "../../cy-tools-macros/src/errors.rs"]
mod errors;
#[allow(dead_code, unreachable_pub)]
#[path = "../../cy-tools-macros/src/expand.rs"]
mod expand;
#[allow(dead_code, unreachable_pub)]
#[path = "../../cy-tools-macros/src/handler.rs"]
mod handler;
#[allow(dead_code, unreachable_pub)]
#[path = "../../cy-tools-macros/src/methods.rs"]
mod methods;
#[allow(dead_code, unreachable_pub)]
#[path = "../../cy-tools-macros/src/param_attrs.rs"]
mod param_attrs;
#[allow(dead_code, unreachable_pub)]
#[path = "../../cy-tools-macros/src/params.rs"]
mod params;
#[allow(dead_code, unreachable_pub)]
#[path = "../../cy-tools-macros/src/types.rs"]
mod types;
#[allow(dead_code, unreachable_pub)]
#[path = "../../cy-tools-macros/src/valid.rs"]
mod valid;
