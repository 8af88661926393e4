//! What a call tells its client while it runs: its progress as `notifications/progress` (for a
//! request that carried a progress token) and its log messages as `notifications/message`,
//! in the order they were made, all before the call's answer.

#![allow(deprecated)] // MCP 2026-07-28 deprecates logging; 2025-11-25 clients still use it.

use std::future::{Future, poll_fn};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::task::{Poll, Waker};

use cy_tools::ToolResult;
use cy_tools::call::{LogLevel, LogMessage, LogSink, Progress, ProgressSink};
use rmcp::RoleServer;
use rmcp::model::{LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RequestContext};

use super::logging;

/// One thing to tell the client.
enum Note {
    Progress(Progress),
    Log(LogMessage),
}

/// The most log messages of one call waiting to be sent at once: a tool that logs faster than
/// its client reads has the rest dropped (counted, and the client told how many), so a call's
/// messages cannot fill the server's memory. Progress is rate-limited before it gets here.
pub const MAX_PENDING_LOG_MESSAGES: usize = 1024;

/// What a call's sinks share with the loop that runs the call and sends its notes: one
/// allocation per call, no task, no channel (a call costs a few hundred nanoseconds; a channel
/// and a second future joined to the call would double that).
struct Shared {
    queue: Mutex<Vec<Note>>,
    /// The task running the call, woken when a note comes from another thread (a sync tool's).
    waker: Mutex<Option<Waker>>,
    /// The call has answered: a note has nowhere to go.
    done: AtomicBool,
    /// Messages at this level or above are sent; none without one.
    level: Option<LogLevel>,
    /// Log messages dropped since the queue was last taken, past [`MAX_PENDING_LOG_MESSAGES`].
    dropped: AtomicUsize,
    /// Something was pushed (or dropped) since the queue was last taken: a call that tells
    /// nothing, most calls, never takes a lock.
    pending: AtomicBool,
}

impl Shared {
    fn push(&self, note: Note) {
        if self.done.load(Ordering::Acquire) {
            return;
        }
        {
            let mut queue = self.queue.lock().unwrap_or_else(PoisonError::into_inner);
            if matches!(note, Note::Log(_)) && queue.len() >= MAX_PENDING_LOG_MESSAGES {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            } else {
                queue.push(note);
            }
        }
        // Set before the waker is read, and read by the loop after it left its waker: one of
        // the two sees the other (both sequentially consistent), so no note is left unsent.
        self.pending.store(true, Ordering::SeqCst);
        if let Some(waker) = &*self.waker.lock().unwrap_or_else(PoisonError::into_inner) {
            waker.wake_by_ref();
        }
    }

    fn take(&self) -> Vec<Note> {
        if !self.pending.swap(false, Ordering::SeqCst) {
            return Vec::new();
        }
        let mut notes =
            std::mem::take(&mut *self.queue.lock().unwrap_or_else(PoisonError::into_inner));
        let dropped = self.dropped.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            notes.push(Note::Log(LogMessage {
                level: LogLevel::Warning,
                logger: "cy-tools".into(),
                data: format!(
                    "{dropped} log messages of this call were dropped: the tool logged faster than they could be sent (at most {MAX_PENDING_LOG_MESSAGES} wait at once)"
                )
                .into(),
            }));
        }
        notes
    }

    fn wake_with(&self, waker: &Waker) {
        let mut kept = self.waker.lock().unwrap_or_else(PoisonError::into_inner);
        if !kept.as_ref().is_some_and(|kept| kept.will_wake(waker)) {
            *kept = Some(waker.clone());
        }
    }
}

impl LogSink for Shared {
    fn accepts(&self, level: LogLevel) -> bool {
        self.level.is_some_and(|least| level >= least)
    }

    fn log(&self, message: LogMessage) {
        self.push(Note::Log(message));
    }
}

impl ProgressSink for Shared {
    fn report(&self, progress: Progress) {
        self.push(Note::Progress(progress));
    }
}

/// Takes what a client did not ask for.
struct Discard;

impl LogSink for Discard {
    fn accepts(&self, _: LogLevel) -> bool {
        false
    }

    fn log(&self, _: LogMessage) {}
}

static DISCARD: LazyLock<Arc<dyn LogSink>> = LazyLock::new(|| Arc::new(Discard));

/// Where a call's progress and log messages go.
pub(super) struct Notes {
    /// Set when the request carried a progress token.
    pub(super) progress: Option<Arc<dyn ProgressSink>>,
    pub(super) log: Arc<dyn LogSink>,
}

/// Runs a call and sends its notes to the client as they come, in order, all before the
/// call's answer.
pub(super) struct Forward<'a> {
    shared: Arc<Shared>,
    /// The request's own peer, borrowed: a clone and its drop cost more than the rest of this.
    peer: &'a Peer<RoleServer>,
    token: Option<ProgressToken>,
}

impl Forward<'_> {
    /// Runs `call`, sending what it reports and logs meanwhile; its result once every note
    /// made before it answered is sent. A sink a sync tool's thread still holds after that
    /// sends nowhere.
    ///
    /// A plain function around one `async` block that uses `self` in place (an `async fn`
    /// keeps a second copy of it): this future is part of every call's.
    #[allow(clippy::manual_async_fn)] // written out on purpose: see above
    pub(super) fn run<F: Future<Output = ToolResult> + Send>(
        self,
        mut call: Pin<&mut F>,
    ) -> impl Future<Output = ToolResult> + Send {
        async move {
            let mut result = None;
            loop {
                let notes = poll_fn(|cx| {
                    if result.is_none() {
                        match call.as_mut().poll(cx) {
                            Poll::Ready(answer) => result = Some(answer),
                            // Left only when the call waits: a note from another thread then
                            // wakes this loop (one from this thread is taken just below).
                            Poll::Pending => self.shared.wake_with(cx.waker()),
                        }
                    }
                    let notes = self.shared.take();
                    if !notes.is_empty() || result.is_some() {
                        return Poll::Ready(notes);
                    }
                    Poll::Pending
                })
                .await;
                if notes.is_empty()
                    && let Some(result) = result.take()
                {
                    self.shared.done.store(true, Ordering::Release);
                    return result;
                }
                // Boxed: the sending state is only there while notes are sent, not in every
                // call's future.
                Box::pin(tell_all(self.peer, self.token.as_ref(), notes)).await;
            }
        }
    }
}

/// Sends `notes`, in order.
async fn tell_all(peer: &Peer<RoleServer>, token: Option<&ProgressToken>, notes: Vec<Note>) {
    for note in notes {
        tell(peer, token, note).await;
    }
}

/// The sinks a call reports and logs into, and what runs it while sending what they receive
/// ([`Forward::run`]); `None` for a request that asked for neither (no progress token, no log
/// level): its messages are dropped, and the call runs as it is.
pub(super) fn forwarder(
    context: &RequestContext<RoleServer>,
    level: Option<LogLevel>,
) -> (Notes, Option<Forward<'_>>) {
    let token = context.meta.get_progress_token();
    if token.is_none() && level.is_none() {
        let notes = Notes {
            progress: None,
            log: Arc::clone(&DISCARD),
        };
        return (notes, None);
    }
    let shared = Arc::new(Shared {
        queue: Mutex::new(Vec::new()),
        waker: Mutex::new(None),
        done: AtomicBool::new(false),
        level,
        dropped: AtomicUsize::new(0),
        pending: AtomicBool::new(false),
    });
    let notes = Notes {
        progress: token
            .is_some()
            .then(|| Arc::clone(&shared) as Arc<dyn ProgressSink>),
        log: Arc::clone(&shared) as Arc<dyn LogSink>,
    };
    let forward = Forward {
        shared,
        peer: &context.peer,
        token,
    };
    (notes, Some(forward))
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
