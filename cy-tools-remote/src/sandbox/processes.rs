//! The background processes of a remote workspace: kept by the control server, which holds a
//! workspace's process table while any of its processes runs, and after that until the
//! session has made no request for the server's `view_idle_timeout`.

use std::sync::Arc;

use cy_tools::{
    BoxFuture,
    services::{ExecOptions, ProcessInfo, ProcessOutput, ProcessTable, ServiceError},
};
use serde::de::DeserializeOwned;

use super::transport::Transport;
use super::wire::{SandboxOp, SandboxRequest, WireExec, encode};

/// A [`ProcessTable`] whose processes run on the execution host.
pub(super) struct RemoteProcessTable {
    transport: Arc<Transport>,
    scope: Option<String>,
}

impl RemoteProcessTable {
    pub(super) fn new(transport: Arc<Transport>, scope: Option<String>) -> Self {
        RemoteProcessTable { transport, scope }
    }

    async fn op<T: DeserializeOwned>(&self, op: SandboxOp) -> Result<T, ServiceError> {
        let body = serde_json::to_vec(&SandboxRequest {
            scope: self.scope.clone(),
            op,
        })
        .map_err(|err| {
            ServiceError::new(
                cy_tools::services::ServiceErrorKind::Other,
                format!("could not encode the request: {err}"),
            )
        })?;
        self.transport.call(body).await
    }
}

impl ProcessTable for RemoteProcessTable {
    fn start<'a>(
        &'a self,
        command: &'a str,
        options: ExecOptions,
    ) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>> {
        Box::pin(async move {
            let shown = match &self.scope {
                Some(scope) => format!("`/workspace/{scope}`"),
                None => "`/workspace`".to_string(),
            };
            let options = WireExec::from_options(&options, &shown)?;
            self.op(SandboxOp::Start {
                command: command.to_string(),
                options,
            })
            .await
        })
    }

    fn status<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>> {
        Box::pin(self.op(SandboxOp::Status { id: id.to_string() }))
    }

    fn output<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessOutput, ServiceError>> {
        Box::pin(self.op(SandboxOp::Output { id: id.to_string() }))
    }

    fn write_stdin<'a>(
        &'a self,
        id: &'a str,
        data: Vec<u8>,
    ) -> BoxFuture<'a, Result<(), ServiceError>> {
        Box::pin(self.op(SandboxOp::WriteStdin {
            id: id.to_string(),
            data: encode(&data),
        }))
    }

    fn kill<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<ProcessInfo, ServiceError>> {
        Box::pin(self.op(SandboxOp::Kill { id: id.to_string() }))
    }

    fn list(&self) -> BoxFuture<'_, Result<Vec<ProcessInfo>, ServiceError>> {
        Box::pin(self.op(SandboxOp::List {}))
    }
}
