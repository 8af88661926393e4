//! The integration tests of `cy-tools-code-mode`, in one binary: one link of the crate instead of one per
//! topic. Each topic is a module (a folder where it is big); what the suites of several crates
//! share is in `cy-tools-test-support`, named `support` here.
//!
//! Code mode: code run by `execute_code` calls the session's tools back through `cy_sdk`. The
//! behaviour and the limits both backends share (`cases`, `limits`, run on each), and what only
//! one backend shows, and attacks by a hostile model or client. Attacks measured on a
//! control-server process are `cy-tools-cli`'s (they start the binary).

use cy_tools_test_support as support;

mod approval;
mod attacks;
mod cases;
mod corpus;
mod harness;
mod limits;
mod local;
mod remote;
mod typed;
