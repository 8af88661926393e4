//! The integration tests of `cy-tools-sandbox`, in one binary: one link of the crate instead of one per
//! topic. Each topic is a module (a folder where it is big); what the suites of several crates
//! share is in `cy-tools-test-support`, named `support` here.
//!
//! Every test shares this one process, so a test whose subject is the process itself (peak
//! memory, descriptors, children, threads, an environment variable) runs in a process of its own
//! (`support::alone`). Behaviour the local and remote backends share is written once and run on
//! both (`support::backend::on_each_backend!`): the remote leg is `cy-tools-remote`'s control
//! server on loopback doing the same work with this crate's sandbox.

use cy_tools_test_support as support;

mod exec;
mod execute_code;
mod file_tools;
mod isolation;
mod outliving;
mod path_attacks;
mod process_tool;
mod processes;
mod resource_limits;
mod special_files;
mod terminal_tool;
