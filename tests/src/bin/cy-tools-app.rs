//! `cy-tools-app`: an application's own `cy-tools`. The same command line as the `cy-tools`
//! binary, with this crate's tools and its test tools (`cy_tools_tests::app`) linked in beside
//! the built-ins, the way an application crate ships one. Its tests run it by path.

// Named so this crate's registrations are linked into the binary.
use cy_tools_tests as _;

fn main() -> std::process::ExitCode {
    cy_tools_builtin::cli::main()
}
