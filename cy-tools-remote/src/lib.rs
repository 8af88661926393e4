//! # cy-tools-remote
//!
//! A session's code and workspace on an execution host: the client end, which a session uses
//! in place of the local sandbox and executor, and the host end that serves it.
//!
//! | feature | adds |
//! |---|---|
//! | `client` (default) | [`RemoteExecutor`]: `execute_code`'s runs go to a control server over HTTP; [`RemoteSandbox`]: the session's workspace (files, commands, background processes) lives there too, so a session never has two folders |
//! | `server` | [`control_server`]: the host end, [`ControlServer`], which runs code and sandbox operations with the local sandbox (`cy-tools-sandbox`) in one workspace folder per session, and relays code mode's calls back to the runtime |
//!
//! Both ends speak the protocols in [`executor::wire`] and [`sandbox::wire`]. The local sandbox
//! decides what a path may be ([`cy_tools_sandbox::confine`]), so a remote workspace refuses
//! alike, in the same words.

#![cfg_attr(docsrs, feature(doc_auto_cfg))]

#[cfg(feature = "server")]
pub mod control_server;
pub mod executor;
pub mod sandbox;

#[cfg(feature = "server")]
pub use control_server::{ControlServer, ControlServerConfig};
#[cfg(feature = "client")]
pub use executor::RemoteExecutor;
#[cfg(feature = "client")]
pub use sandbox::RemoteSandbox;
