//! The integration tests of `cy-tools-session`, in one binary: one link of the crate instead of one per
//! topic. Each topic is a module (a folder where it is big); what the suites of several crates
//! share is in `cy-tools-test-support`, named `support` here.
//!
//! Sessions from a spec (built by the factory, resumed by id in another process, killed
//! mid-write, run concurrently, their children isolated), on SQLite and on PostgreSQL, faults
//! from outside (a tool that panics or hangs, code killed mid-run, a store on a full or
//! read-only disk), run slots shared by a factory's sessions, `uv` as the default runner, and
//! the load test (`scripts/load-test`).

use cy_tools_test_support as support;

mod faults;
#[cfg(all(feature = "postgres", feature = "code-mode"))]
mod load;
#[cfg(feature = "postgres")]
mod postgres;
mod run_slots;
mod session;
mod uv;
