//! The integration tests of `cy-tools-remote`, in one binary: one link of the crate instead of one per
//! topic. Each topic is a module (a folder where it is big); what the suites of several crates
//! share is in `cy-tools-test-support`, named `support` here.
//!
//! The control server and its clients: the limits it holds requests to, what it refuses, the
//! workspace views it keeps and releases, the remote sandbox's protocol, and what only the remote
//! executor meets (a server that refuses, dies, is not there, or is not a control server).

use cy_tools_test_support as support;

mod control_server_limits;
mod control_server_refusals;
mod control_server_views;
mod execute_code;
mod remote_sandbox;
mod remote_sandbox_batch;
