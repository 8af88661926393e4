//! The runtime's integration tests, in one binary (one link instead of one per file): binding,
//! the call contract, dialect exports, raw definitions, the registry and the argument validator
//! held to jsonschema, each a module, over the hand-written definitions in `support`.
//!
//! Duplicate link-time registrations are checked by the `linked_duplicates` example instead: a
//! registration is linked into whatever binary holds it, and here it would make
//! `ToolRegistry::linked()` fail for every other test.

mod support;

mod approval;
mod approval_hook;
mod binding;
mod call_contract;
mod dialects;
mod hooks;
mod raw_tools;
mod registry;
mod root_names;
mod validator_parity;
