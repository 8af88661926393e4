//! Code on a control server: [`RemoteExecutor`] (feature `client`), and the protocol it and
//! the server speak ([`wire`]).

#[cfg(feature = "client")]
mod client;
pub mod wire;

#[cfg(feature = "client")]
pub use client::RemoteExecutor;
#[cfg(feature = "client")]
pub(crate) use client::with_causes;
