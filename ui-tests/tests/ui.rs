//! Runs every compile-fail case (each `.rs` must fail with exactly its reviewed `.stderr`) and
//! every compile-pass case (each must build and its `main` must succeed).
//!
//! Regenerate a `.stderr` with `TRYBUILD=overwrite cargo test -p cy-tools-ui-tests`, then read
//! it like code: it must point at the offending token and state the rule and the fix.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/fail/*.rs");
    cases.pass("tests/pass/*.rs");
}
