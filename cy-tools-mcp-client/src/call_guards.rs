//! What a call to a server holds while it runs, each let go however the call ends: its
//! cancellation (sent to the server if the call is dropped unanswered), its progress token's
//! listener and its asker.

use cy_tools::call::{Asker, Progress};
use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientNotification,
    ProgressNotificationParam, ProgressToken, RequestId,
};
use rmcp::service::{Peer, RoleClient};

use crate::upstream::{Askers, Progressing};

/// The next report on `reports`; never, for a call nobody listens to.
pub(crate) async fn next_report(
    reports: Option<&mut tokio::sync::mpsc::UnboundedReceiver<ProgressNotificationParam>>,
) -> Option<ProgressNotificationParam> {
    match reports {
        Some(reports) => reports.recv().await,
        None => std::future::pending().await,
    }
}

/// A server's progress notification as the session's report.
pub(crate) fn progress_of(report: ProgressNotificationParam) -> Progress {
    Progress {
        done: report.progress,
        total: report.total,
        message: report.message,
    }
}

/// Sends the server `notifications/cancelled` for a call dropped before its answer (cancelled,
/// or past its timeout), as rmcp's `call_tool` would.
pub(crate) struct CancelOnDrop {
    pub(crate) peer: Peer<RoleClient>,
    pub(crate) id: Option<RequestId>,
}

impl CancelOnDrop {
    /// The call was answered: nothing to cancel.
    pub(crate) fn disarm(&mut self) {
        self.id = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        // Sending waits for the transport, which a drop cannot: a task of its own does.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let cancelled = CancelledNotification::new(CancelledNotificationParam::new(
                Some(id),
                Some(
                    "the cy-tools session stopped the call (cancelled, or past its timeout)".into(),
                ),
            ));
            // A server that is gone needs no telling.
            let _ = peer
                .send_notification(ClientNotification::CancelledNotification(cancelled))
                .await;
        });
    }
}

/// A call's progress token among the server's calls that listen, for as long as the call
/// runs.
pub(crate) struct Listening<'a> {
    progressing: &'a Progressing,
    token: ProgressToken,
}

impl<'a> Listening<'a> {
    pub(crate) fn new(
        progressing: &'a Progressing,
        token: ProgressToken,
        to: tokio::sync::mpsc::UnboundedSender<ProgressNotificationParam>,
    ) -> Self {
        progressing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(token.clone(), to);
        Listening { progressing, token }
    }
}

impl Drop for Listening<'_> {
    fn drop(&mut self) {
        self.progressing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.token);
    }
}

/// A call's asker among the server's, for as long as the call runs (however it ends).
pub(crate) struct Asking<'a> {
    askers: &'a Askers,
    asker: std::sync::Arc<dyn Asker>,
}

impl<'a> Asking<'a> {
    pub(crate) fn new(askers: &'a Askers, asker: std::sync::Arc<dyn Asker>) -> Self {
        askers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(std::sync::Arc::clone(&asker));
        Asking { askers, asker }
    }
}

impl Drop for Asking<'_> {
    fn drop(&mut self) {
        let mut askers = self.askers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(at) = askers
            .iter()
            .rposition(|a| std::sync::Arc::ptr_eq(a, &self.asker))
        {
            askers.remove(at);
        }
    }
}
