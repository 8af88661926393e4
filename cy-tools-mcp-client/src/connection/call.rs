//! One `tools/call` to a server: sent so its progress can be routed to it, cancelled when
//! dropped, watched for a server that stops answering, answered as a tool result.

use std::time::Duration;

use cy_tools::ToolResult;
use cy_tools::call::{Asker, Progress};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, RequestNoParam,
    ServerResult,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use serde_json::{Map, Value};

use super::{Server, plain};
use crate::call_guards::{Asking, CancelOnDrop, Listening, next_report, progress_of};
use crate::result::to_result;

/// How often a server is pinged while a call of it runs, and how long the ping may take.
const LIVENESS_EVERY: Duration = Duration::from_secs(3);

/// How long a call whose host listens to its progress waits, after the server's answer, for a
/// report the server sent before it (rmcp delivers each on a task of its own), unless the last
/// one reached its total.
const LATE_PROGRESS: Duration = Duration::from_millis(20);

/// What rmcp's streamable HTTP transport answers a request whose session the server forgot
/// (HTTP 404) after it was sent: the transport opened a new session, but the request was not
/// sent again since the server may have run it.
const SESSION_REINITIALIZED: &str = "streamable HTTP session was re-initialized";

impl Server {
    /// Calls `tool` (the server's name for it) with `arguments`. Dropping the future (the
    /// call cancelled or timed out) sends the server `notifications/cancelled`.
    /// What the server asks while the call runs goes to `asker` (the call's host's), and its
    /// progress notifications for the call to `progress`.
    pub(crate) async fn call(
        &self,
        tool: &str,
        arguments: Map<String, Value>,
        asker: Option<std::sync::Arc<dyn Asker>>,
        progress: Option<&(dyn Fn(Progress) + Sync)>,
    ) -> ToolResult {
        let name = self.name();
        let _asking = asker.map(|asker| Asking::new(&self.askers, asker));
        let (peer, generation) = match self.peer(false).await {
            Ok(peer) => peer,
            Err(err) => return ToolResult::error(err),
        };
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = Some(arguments);
        // Not `peer.call_tool`: rmcp puts a progress token of its own in the request, and only
        // the handle of a request sent this way says which, so the server's progress can be
        // routed to this call. The cancel-on-drop `call_tool` has is `CancelOnDrop`'s.
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = match peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(err) => {
                let said = self.stopped_saying(generation).await;
                return ToolResult::error(format!(
                    "MCP server `{name}` stopped before `{tool}` could be sent ({err}){said}; it is started again for the next call, so call it again"
                ));
            }
        };
        let mut cancel = CancelOnDrop {
            peer: peer.clone(),
            id: Some(handle.id.clone()),
        };
        // Only a call somebody listens to has a channel for its reports (a channel allocates
        // a block of slots when made).
        let (mut reports, _listening) = match progress {
            Some(_) => {
                let (sender, reports) = tokio::sync::mpsc::unbounded_channel();
                let token = handle.progress_token.clone();
                let listening = Listening::new(&self.progressing, token, sender);
                (Some(reports), Some(listening))
            }
            None => (None, None),
        };
        // A server that stopped answering (an HTTP server that restarted and answers the old
        // session with an error no request can be matched to, a process stuck) would leave
        // the call waiting until its timeout: while it runs, the server is pinged, and a ping
        // without any answer, or a transport seen closed, ends the call.
        let watched = async {
            let mut every = tokio::time::interval(LIVENESS_EVERY);
            every.tick().await;
            loop {
                every.tick().await;
                if peer.is_transport_closed() {
                    return "its connection closed";
                }
                let ping = ClientRequest::PingRequest(RequestNoParam {
                    method: Default::default(),
                    extensions: Default::default(),
                });
                // Any answer, an error included, shows it is there.
                if tokio::time::timeout(LIVENESS_EVERY, peer.send_request(ping))
                    .await
                    .is_err()
                {
                    return "it stopped answering (a ping went unanswered)";
                }
            }
        };
        let response = handle.await_response();
        tokio::pin!(watched, response);
        // The last report passed on: whether the server said it got to its total.
        let mut finished = false;
        let answer = loop {
            tokio::select! {
                answer = &mut response => break answer,
                Some(report) = next_report(reports.as_mut()) => {
                    if let Some(progress) = progress {
                        finished = report.total.is_some_and(|total| report.progress >= total);
                        progress(progress_of(report));
                    }
                }
                why = &mut watched => {
                    let said = self.stopped_saying(generation).await;
                    return ToolResult::error(format!(
                        "MCP server `{name}` stopped while `{tool}` ran ({why}){said}; it is started again for the next call, so call it again if it is safe to"
                    ));
                }
            }
        };
        cancel.disarm();
        if let (Some(progress), Some(reports)) = (progress, reports.as_mut()) {
            // rmcp hands each notification to a task of its own, so the reports the server
            // sent just before its answer may land just after it: they are let in first.
            // Those already handed over come at once; while the server's last word was
            // short of its total, a little longer is given to those still on their way.
            for _ in 0..3 {
                tokio::task::yield_now().await;
                while let Ok(report) = reports.try_recv() {
                    finished = report.total.is_some_and(|total| report.progress >= total);
                    progress(progress_of(report));
                }
            }
            while !finished
                && let Ok(Some(report)) = tokio::time::timeout(LATE_PROGRESS, reports.recv()).await
            {
                finished = report.total.is_some_and(|total| report.progress >= total);
                progress(progress_of(report));
            }
        }
        match answer {
            Ok(ServerResult::CallToolResult(answer)) => to_result(answer),
            // Another shape of result (an empty one): read as a tool's, if it is one.
            Ok(other) => match serde_json::to_value(&other)
                .ok()
                .and_then(|v| serde_json::from_value::<CallToolResult>(v).ok())
            {
                Some(answer) => to_result(answer),
                None => ToolResult::error(format!(
                    "MCP server `{name}` answered the call to `{tool}` with something that is not a tool's result"
                )),
            },
            Err(ServiceError::McpError(err)) if err.message.contains(SESSION_REINITIALIZED) => {
                ToolResult::error(format!(
                    "MCP server `{name}` lost its HTTP session while `{tool}` ran (it answered 404: it restarted or expired the session); the call was not sent again since it may have run, and a new session is open, so call it again if it is safe to"
                ))
            }
            Err(ServiceError::McpError(err)) => ToolResult::error(format!(
                "MCP server `{name}` refused the call to `{tool}`: {}",
                err.message
            )),
            Err(err) => {
                // The server stopped under the call: the next call starts it again.
                let said = self.stopped_saying(generation).await;
                ToolResult::error(format!(
                    "MCP server `{name}` stopped while `{tool}` ran ({}){said}; it is started again for the next call, so call it again if it is safe to",
                    plain(&err)
                ))
            }
        }
    }
}
