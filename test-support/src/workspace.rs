//! Where a session's workspace lives, for the sandbox's behaviour suite run on each backend
//! (`on_each_backend!`): `Local` is a `LocalSandbox` view of the folder, `Remote` a
//! `RemoteSandbox` on a control server on loopback whose root holds the folder, so a test
//! reads and writes the same host folder either way and its body does not change.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cy_tools::services::Sandbox;
use cy_tools_remote::RemoteSandbox;
use cy_tools_sandbox::{ExecLimits, LocalSandbox};

use crate::backend::Backend;
use crate::loopback_server::{Server, TOKEN};

/// A session's view of folder `root/name`, and the server holding it when it is remote.
pub struct Workspace {
    pub env: Arc<dyn Sandbox>,
    /// The folder the view works in, on this host.
    pub folder: PathBuf,
    pub _server: Option<Server>,
}

/// The view of `root/name` on `backend`, with the default command limits.
pub fn open(backend: Backend, root: &Path, name: &str) -> Workspace {
    open_with(backend, root, name, ExecLimits::default())
}

/// The view of `root/name` on `backend`, its commands held to `limits` (by the server, when
/// remote).
pub fn open_with(backend: Backend, root: &Path, name: &str, limits: ExecLimits) -> Workspace {
    let folder = root.join(name);
    std::fs::create_dir_all(&folder).unwrap();
    let folder = folder.canonicalize().unwrap();
    match backend {
        Backend::Local => Workspace {
            env: Arc::new(
                LocalSandbox::new(&folder)
                    .unwrap()
                    .with_limits(limits)
                    .env(),
            ),
            folder,
            _server: None,
        },
        Backend::Remote => {
            let server = Server::start(root, |config| config.limits = limits);
            let env = RemoteSandbox::new(&server.endpoint(), name, TOKEN).unwrap();
            Workspace {
                env: Arc::new(env),
                folder,
                _server: Some(server),
            }
        }
    }
}
