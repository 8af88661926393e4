//! `LocalChat`: the default chat, kept in memory and appended to a file.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use cy_tools::{
    BoxFuture,
    services::{Chat, ChatMessage, ServiceError, ServiceErrorKind},
};

/// A chat for local runs: every message is kept in memory and, when the chat has a file,
/// appended to it as one JSON line (`{"session_id": ..., "text": ...}`), so the conversation
/// outlives the process and can be followed with `tail -f`.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use cy_tools::services::{Chat, ChatMessage};
/// use cy_tools_session::LocalChat;
///
/// let dir = tempfile::tempdir().unwrap();
/// let chat = LocalChat::open(dir.path().join("chat.jsonl")).unwrap();
/// chat.send(ChatMessage { session_id: "s-1".into(), text: "done".into() }).await.unwrap();
/// assert_eq!(chat.messages()[0].text, "done");
/// let reopened = LocalChat::open(dir.path().join("chat.jsonl")).unwrap();
/// assert_eq!(reopened.messages().len(), 1);
/// # });
/// ```
#[derive(Debug, Default)]
pub struct LocalChat {
    state: Mutex<State>,
    path: Option<PathBuf>,
}

#[derive(Debug, Default)]
struct State {
    messages: Vec<ChatMessage>,
    file: Option<std::fs::File>,
}

impl LocalChat {
    /// A chat kept in memory only.
    pub fn in_memory() -> Self {
        LocalChat::default()
    }

    /// A chat appended to `path` (created if missing), with the messages already there loaded.
    ///
    /// # Errors
    /// The file cannot be opened for appending, or a line of it is not a message.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ServiceError> {
        let path = path.as_ref().to_path_buf();
        let fail = |what: String| {
            ServiceError::new(
                ServiceErrorKind::Other,
                format!("cannot open the chat file `{}`: {what}", path.display()),
            )
        };
        let mut messages = Vec::new();
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                for (n, line) in text
                    .lines()
                    .enumerate()
                    .filter(|(_, l)| !l.trim().is_empty())
                {
                    let message = serde_json::from_str(line).map_err(|err| {
                        fail(format!("line {} is not a chat message ({err})", n + 1))
                    })?;
                    messages.push(message);
                }
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => return Err(fail(err.to_string())),
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|err| fail(err.to_string()))?;
        Ok(LocalChat {
            state: Mutex::new(State {
                messages,
                file: Some(file),
            }),
            path: Some(path),
        })
    }

    /// Every message so far, oldest first.
    pub fn messages(&self) -> Vec<ChatMessage> {
        self.lock().messages.clone()
    }

    /// The file the chat is appended to, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Chat for LocalChat {
    fn send(&self, message: ChatMessage) -> BoxFuture<'_, Result<(), ServiceError>> {
        let result = (|| {
            let mut state = self.lock();
            if let Some(file) = state.file.as_mut() {
                let mut line = serde_json::to_string(&message).map_err(|err| {
                    ServiceError::new(ServiceErrorKind::InvalidInput, err.to_string())
                })?;
                line.push('\n');
                // One write of the whole line, so concurrent appenders never interleave halves.
                file.write_all(line.as_bytes()).map_err(|err| {
                    ServiceError::new(
                        ServiceErrorKind::Other,
                        format!("the message could not be written to the chat file: {err}; try again later"),
                    )
                })?;
            }
            state.messages.push(message);
            Ok(())
        })();
        Box::pin(async { result })
    }
}
