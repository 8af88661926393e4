//! Where `execute_code` runs a session's code, and the matrix that runs each behaviour the two
//! executors share on both: written once, so the backends cannot drift apart unnoticed.

/// An executor for a session's code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A `LocalExecutor` on the session's own sandbox.
    Local,
    /// A `RemoteExecutor` to a control server on loopback.
    Remote,
}

/// Each `async fn name(backend: Backend) { ... }` inside becomes two tests, `local::name` and
/// `remote::name`, each calling the body with its backend: one list of cases for both, and a
/// filter (`::remote::`) picks one backend.
#[doc(hidden)]
#[macro_export]
macro_rules! __on_each_backend {
    ($($(#[$meta:meta])* async fn $name:ident($backend:ident: Backend) $body:block)*) => {
        $($(#[$meta])* async fn $name($backend: $crate::backend::Backend) $body)*

        /// The cases on the local executor.
        mod local {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::backend::Backend::Local).await;
            })*
        }

        /// The cases on the remote executor, through a control server on loopback.
        mod remote {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::backend::Backend::Remote).await;
            })*
        }
    };
}
pub use crate::__on_each_backend as on_each_backend;
