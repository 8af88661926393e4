//! What a call tells its client while it runs: its progress as `notifications/progress` (for a
//! request that carried a progress token) and its log messages as `notifications/message`,
//! in the order they were made, all before the call's answer.

#![allow(deprecated)] // MCP 2026-07-28 deprecates logging; 2025-11-25 clients still use it.

use std::future::Future;
use std::sync::Arc;

use cy_tools::call::{LogLevel, LogMessage, LogSink, Progress, ProgressSink};
use rmcp::RoleServer;
use rmcp::model::{LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RequestContext};
use tokio::sync::{mpsc, oneshot};

use super::logging;

/// One thing to tell the client.
enum Note {
    Progress(Progress),
    Log(LogMessage),
}

/// Where a call's progress and log messages go, and the future that sends them.
pub(super) struct Notes {
    /// Set when the request carried a progress token.
    pub(super) progress: Option<Arc<dyn ProgressSink>>,
    pub(super) log: Arc<dyn LogSink>,
    /// Tells the sender the call has answered: it sends what is queued, then ends.
    done: oneshot::Sender<()>,
}

impl Notes {
    /// The call has answered: what it queued is sent, then the sender ends.
    pub(super) fn finish(self) {
        let _ = self.done.send(());
    }
}

/// The sinks a call reports and logs into, and the future sending what they receive to the
/// client, which ends once [`Notes::finish`] is called and everything queued is sent: the
/// answer is sent after it, so no notification follows the result. A sink a sync tool's
/// thread still holds after that sends nowhere.
pub(super) fn forwarder(
    context: &RequestContext<RoleServer>,
    level: Option<LogLevel>,
) -> (Notes, impl Future<Output = ()> + Send + 'static) {
    let token = context.meta.get_progress_token();
    let (send, mut received) = mpsc::unbounded_channel::<Note>();
    let progress: Option<Arc<dyn ProgressSink>> = token.as_ref().map(|_| {
        let send = send.clone();
        Arc::new(move |progress: Progress| {
            // The receiver lives until the call has answered; a report after that has nowhere to go.
            let _ = send.send(Note::Progress(progress));
        }) as Arc<dyn ProgressSink>
    });
    let log = Arc::new(Logger { send, level });
    let (done, mut finished) = oneshot::channel();
    let peer = context.peer.clone();
    let forward = async move {
        loop {
            tokio::select! {
                biased;
                note = received.recv() => match note {
                    Some(note) => tell(&peer, token.as_ref(), note).await,
                    None => return,
                },
                _ = &mut finished => break,
            }
        }
        while let Ok(note) = received.try_recv() {
            tell(&peer, token.as_ref(), note).await;
        }
    };
    (
        Notes {
            progress,
            log,
            done,
        },
        forward,
    )
}

/// The log sink: messages at `level` or above; none without one (a client that did not opt in).
struct Logger {
    send: mpsc::UnboundedSender<Note>,
    level: Option<LogLevel>,
}

impl LogSink for Logger {
    fn accepts(&self, level: LogLevel) -> bool {
        self.level.is_some_and(|least| level >= least)
    }

    fn log(&self, message: LogMessage) {
        let _ = self.send.send(Note::Log(message));
    }
}

async fn tell(peer: &Peer<RoleServer>, token: Option<&ProgressToken>, note: Note) {
    let sent = match note {
        Note::Progress(progress) => {
            let Some(token) = token else { return };
            let mut param = ProgressNotificationParam::new(token.clone(), progress.done);
            if let Some(total) = progress.total {
                param = param.with_total(total);
            }
            if let Some(message) = progress.message {
                param = param.with_message(message);
            }
            peer.notify_progress(param).await
        }
        Note::Log(message) => {
            let mut param =
                LoggingMessageNotificationParam::new(logging::to_mcp(message.level), message.data);
            param.logger = Some(message.logger);
            peer.notify_logging_message(param).await
        }
    };
    if let Err(err) = sent {
        tracing::debug!("a notification could not be sent: {err}");
    }
}
