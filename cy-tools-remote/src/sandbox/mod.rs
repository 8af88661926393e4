//! `RemoteSandbox`: a session's workspace on an execution host, reached through the control
//! server's sandbox endpoint, so a session whose code runs there has one workspace for every
//! tool.
//!
//! The server does the work with the local sandbox in the named workspace folder under its
//! root (`<root>/<name>`, the folder the execute endpoint runs `<name>`'s code in), so every
//! operation is confined, limited and isolated there exactly as a local one is, and answers
//! with the same errors. The protocol is in [`wire`].

#[cfg(feature = "client")]
mod batch;
#[cfg(feature = "client")]
mod processes;
#[cfg(feature = "client")]
mod transport;
pub mod wire;

#[cfg(feature = "client")]
pub use client::RemoteSandbox;

#[cfg(feature = "client")]
mod client;
