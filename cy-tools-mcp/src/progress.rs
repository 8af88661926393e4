//! A call's progress as `notifications/progress`, for a request that carried a progress token.

use std::future::Future;
use std::sync::Arc;

use cy_tools::call::{Progress, ProgressSink};
use rmcp::RoleServer;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RequestContext};
use tokio::sync::mpsc;

/// The sink a call reports into, and the future that sends its reports to the client, in
/// order; `None` when the request carried no progress token (then nothing is sent, as the
/// specification requires). The future ends once the sink is dropped and every report is sent:
/// the call's answer is sent after it, so no notification follows the result.
pub(super) fn forwarder(
    context: &RequestContext<RoleServer>,
) -> Option<(
    Arc<dyn ProgressSink>,
    impl Future<Output = ()> + Send + 'static,
)> {
    let token = context.meta.get_progress_token()?;
    let (send, mut received) = mpsc::unbounded_channel::<Progress>();
    let sink: Arc<dyn ProgressSink> = Arc::new(move |progress: Progress| {
        // The receiver lives until the call has answered; a report after that has nowhere to go.
        let _ = send.send(progress);
    });
    let peer = context.peer.clone();
    let forward = async move {
        while let Some(progress) = received.recv().await {
            notify(&peer, &token, progress).await;
        }
    };
    Some((sink, forward))
}

async fn notify(peer: &Peer<RoleServer>, token: &ProgressToken, progress: Progress) {
    let mut param = ProgressNotificationParam::new(token.clone(), progress.done);
    if let Some(total) = progress.total {
        param = param.with_total(total);
    }
    if let Some(message) = progress.message {
        param = param.with_message(message);
    }
    if let Err(err) = peer.notify_progress(param).await {
        tracing::debug!("a progress notification could not be sent: {err}");
    }
}
