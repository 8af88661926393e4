//! This application's own binary, `cy-tools-app`: the `cy-tools` command line with this crate's
//! tools, and its test tools, linked in beside the built-ins.

use std::process::Command;

/// A command running `cy-tools-app`, which cargo builds for these tests (the crate's `app`
/// feature, turned on by its dev-dependency on itself).
pub fn app() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cy-tools-app"))
}
