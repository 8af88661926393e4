//! A control server on loopback in a runtime of its own, so a test can kill it as a crash would:
//! every task, connection and run it has stops at once.

use std::path::{Path, PathBuf};

use cy_tools_builtin::control_server::{ControlServer, ControlServerConfig};

/// The token the server is started with, and its clients send.
pub const TOKEN: &str = "test-token-5f1c9a7e2b";

/// A control server on loopback, with the token [`TOKEN`].
pub struct Server {
    runtime: Option<tokio::runtime::Runtime>,
    pub addr: std::net::SocketAddr,
    pub root: PathBuf,
}

impl Server {
    pub fn start(root: &Path, tune: impl FnOnce(&mut ControlServerConfig)) -> Server {
        let mut config = ControlServerConfig::new("127.0.0.1:0".parse().unwrap(), root);
        config.token = Some(TOKEN.to_string());
        tune(&mut config);
        // Built on a thread of its own: a test's runtime cannot block on another.
        let (runtime, addr) = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .enable_all()
                .build()
                .unwrap();
            let server = runtime.block_on(ControlServer::bind(config)).unwrap();
            let addr = server.local_addr().unwrap();
            runtime.spawn(server.run());
            (runtime, addr)
        })
        .join()
        .unwrap();
        Server {
            runtime: Some(runtime),
            addr,
            root: root.canonicalize().unwrap(),
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn kill(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}
