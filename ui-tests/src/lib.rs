//! Compile-fail and compile-pass cases for `#[tool]` live in `tests/fail` and `tests/pass`, one
//! case per file, named after what it checks; `tests/ui.rs` runs them with trybuild.
