//! `RemoteExecutor`: sends the code to a control server, which runs it in its own sandbox.

use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use cy_tools::{
    BoxFuture,
    services::{CodeExecutor, CodeOptions, SdkCalls, ServiceError, ServiceErrorKind, ShellResult},
};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::header::{AUTHORIZATION, CONNECTION, CONTENT_TYPE, HOST, UPGRADE};
use hyper::{Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::task::JoinSet;

use super::wire::{
    CODE_MODE_PROTOCOL, ErrorReply, ExecuteRequest, check_session_id, code_mode_path, execute_path,
    read_line,
};
use cy_tools_sandbox::executor::CANCELLED;

/// Runs code on a control server (`cy-tools control-server`), in the workspace the server keeps
/// for this session id.
///
/// One HTTP/1.1 request per run, with the bearer token. Cancelling the run (the
/// [`CodeOptions::cancel`] token, or dropping the future) closes the connection, and the server
/// kills the run and every process it started. Nothing waits forever: connecting is bounded by
/// the connect timeout, and the whole exchange by the run's timeout plus a margin for the
/// server to answer. A refused connection, a non-2xx answer and a reply that is not a run
/// result all become a [`ServiceError`] that names the server and what to check.
///
/// Plain HTTP: across machines, reach the server through a tunnel or a TLS-terminating proxy
/// so the token and the code are not sent in the clear.
///
/// ```
/// use cy_tools_remote::RemoteExecutor;
///
/// let executor = RemoteExecutor::new("http://127.0.0.1:8700", "s-1", "a-long-shared-secret").unwrap();
/// assert_eq!(executor.endpoint(), "http://127.0.0.1:8700");
/// let err = RemoteExecutor::new("https://sandbox.example:8700", "s-1", "t").unwrap_err();
/// assert!(err.to_string().starts_with("control server address `https://sandbox.example:8700` is not plain `http://host:port`"));
/// ```
#[derive(Clone)]
pub struct RemoteExecutor {
    endpoint: String,
    host: String,
    port: u16,
    authority: String,
    path: String,
    code_mode_path: String,
    token: String,
    scope: Option<String>,
    connect_timeout: Duration,
    reply_margin: Duration,
    default_timeout: Duration,
    max_reply_bytes: usize,
}

impl RemoteExecutor {
    /// An executor for session `session_id` on the control server at `endpoint`
    /// (`http://host:port`), authenticating with `token`.
    ///
    /// # Errors
    /// [`InvalidInput`](ServiceErrorKind::InvalidInput) when `endpoint` is not an
    /// `http://host:port` address or `session_id` cannot name a workspace.
    pub fn new(
        endpoint: &str,
        session_id: &str,
        token: impl Into<String>,
    ) -> Result<Self, ServiceError> {
        let bad = |why: &str| {
            ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!(
                    "control server address `{endpoint}` is not plain `http://host:port` ({why}); write it like `http://127.0.0.1:8700`"
                ),
            )
        };
        let uri: Uri = endpoint.parse().map_err(|_| bad("it does not parse"))?;
        if uri.scheme_str() != Some("http") {
            return Err(bad(
                "only `http` is spoken; put TLS in front with a proxy or tunnel",
            ));
        }
        if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
            return Err(bad("it has a path"));
        }
        let authority = uri.authority().ok_or_else(|| bad("it has no host"))?;
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        check_session_id(session_id)?;
        Ok(RemoteExecutor {
            endpoint: format!("http://{authority}"),
            host,
            port: authority.port_u16().unwrap_or(80),
            authority: authority.to_string(),
            path: execute_path(session_id),
            code_mode_path: code_mode_path(session_id),
            token: token.into(),
            scope: None,
            connect_timeout: Duration::from_secs(5),
            reply_margin: Duration::from_secs(15),
            default_timeout: Duration::from_secs(60),
            max_reply_bytes: 16 * 1024 * 1024,
        })
    }

    /// The same executor running code in `folder` of the session's workspace (a child's
    /// folder), which the code cannot leave.
    #[must_use]
    pub fn with_scope(mut self, folder: impl Into<String>) -> Self {
        self.scope = Some(folder.into());
        self
    }

    /// How long connecting may take (5 s by default).
    #[must_use]
    pub fn with_connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// How long past the run's timeout the answer may take (15 s by default): the time to
    /// send the code, kill a run at its timeout and send back its output.
    #[must_use]
    pub fn with_reply_margin(mut self, margin: Duration) -> Self {
        self.reply_margin = margin;
        self
    }

    /// The timeout sent for a run that sets none (60 s by default); the server refuses one
    /// above its maximum.
    #[must_use]
    pub fn with_default_timeout(mut self, timeout: Duration) -> Self {
        self.default_timeout = timeout;
        self
    }

    /// The server's address, `http://host:port`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    async fn run(&self, code: &str, options: CodeOptions) -> Result<ShellResult, ServiceError> {
        let timeout = options.timeout.unwrap_or(self.default_timeout);
        let sdk = options.sdk.clone();
        let body = serde_json::to_vec(&ExecuteRequest {
            code: code.to_string(),
            filename: options.filename,
            timeout_ms: Some(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX)),
            scope: self.scope.clone(),
            sdk_module: sdk
                .as_ref()
                .and_then(|sdk| sdk.python_module())
                .map(|module| module.to_string()),
        })
        .map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::Other,
                format!("could not encode the request: {err}"),
            )
        })?;
        let wait = timeout.saturating_add(self.reply_margin);
        // Leaving this select drops the exchange, which closes the connection: that is how
        // the server learns to kill the run.
        tokio::select! {
            biased;
            () = options.cancel.cancelled() => {
                Err(ServiceError::new(ServiceErrorKind::Other, CANCELLED))
            }
            answer = tokio::time::timeout(wait, async {
                match sdk {
                    Some(sdk) => self.exchange_code_mode(body, sdk).await,
                    None => self.exchange(body).await,
                }
            }) => match answer {
                Ok(answer) => answer,
                Err(_) => Err(ServiceError::new(
                    ServiceErrorKind::TimedOut,
                    format!(
                        "the control server at {} did not answer within {} ms (the run's timeout of {} ms plus {} ms); the connection was closed so the run is stopped there. Check that the server is healthy, then run the code again",
                        self.endpoint,
                        wait.as_millis(),
                        timeout.as_millis(),
                        self.reply_margin.as_millis()
                    ),
                )),
            },
        }
    }

    /// One request on a fresh connection, driven in this future, so dropping it closes the
    /// connection at once.
    async fn exchange(&self, body: Vec<u8>) -> Result<ShellResult, ServiceError> {
        let stream = self.connect().await?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|err| self.lost(err))?;
        let request = Request::post(self.path.as_str())
            .header(HOST, self.authority.as_str())
            .header(AUTHORIZATION, format!("Bearer {}", self.token))
            .header(CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body)))
            .map_err(|err| {
                ServiceError::new(
                    ServiceErrorKind::InvalidInput,
                    format!("could not build the request to {}: {err}", self.endpoint),
                )
            })?;
        let exchange = async {
            let response = sender
                .send_request(request)
                .await
                .map_err(|err| self.lost(err))?;
            let status = response.status();
            let bytes = Limited::new(response.into_body(), self.max_reply_bytes)
                .collect()
                .await
                .map_err(|err| self.lost(err))?
                .to_bytes();
            Ok::<_, ServiceError>((status, bytes))
        };
        let mut exchange = pin!(exchange);
        let mut connection = pin!(connection);
        let mut connection_done = false;
        let (status, bytes) = loop {
            tokio::select! {
                answer = &mut exchange => break answer?,
                // The connection ending first is not the answer: the exchange then finishes
                // with what was received, or with the error that ended it.
                _ = &mut connection, if !connection_done => connection_done = true,
            }
        };
        self.interpret(status, &bytes)
    }

    /// A code-mode run: an upgrade to [`CODE_MODE_PROTOCOL`] on a fresh connection, the request
    /// as the first line, then the server's `call` lines answered by `sdk` (here, in the
    /// runtime) until its `done` or `refused` line.
    async fn exchange_code_mode(
        &self,
        mut body: Vec<u8>,
        sdk: Arc<dyn SdkCalls>,
    ) -> Result<ShellResult, ServiceError> {
        let stream = self.connect().await?;
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|err| self.lost(err))?;
        tokio::spawn(connection.with_upgrades());
        let request = Request::get(self.code_mode_path.as_str())
            .header(HOST, self.authority.as_str())
            .header(AUTHORIZATION, format!("Bearer {}", self.token))
            .header(CONNECTION, "upgrade")
            .header(UPGRADE, CODE_MODE_PROTOCOL)
            .body(Full::new(Bytes::new()))
            .map_err(|err| {
                ServiceError::new(
                    ServiceErrorKind::InvalidInput,
                    format!("could not build the request to {}: {err}", self.endpoint),
                )
            })?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|err| self.lost(err))?;
        if response.status() != StatusCode::SWITCHING_PROTOCOLS {
            let status = response.status();
            let bytes = Limited::new(response.into_body(), self.max_reply_bytes)
                .collect()
                .await
                .map_err(|err| self.lost(err))?
                .to_bytes();
            return self.interpret(status, &bytes);
        }
        let upgraded = hyper::upgrade::on(response)
            .await
            .map_err(|err| self.lost(err))?;
        let (read, mut write) = tokio::io::split(TokioIo::new(upgraded));
        let mut reader = BufReader::new(read);
        body.push(b'\n');
        write.write_all(&body).await.map_err(|err| self.lost(err))?;
        let (replies, mut outgoing) = mpsc::unbounded_channel::<Vec<u8>>();
        let mut calls = JoinSet::new();
        loop {
            tokio::select! {
                line = read_line(&mut reader, self.max_reply_bytes) => {
                    let Some(line) = line else {
                        return Err(self.lost(std::io::Error::other("the connection closed before the run's result")));
                    };
                    let message: serde_json::Value = serde_json::from_slice(&line).map_err(|err| self.lost(err))?;
                    if let Some(call) = message.get("call") {
                        let id = call["id"].clone();
                        let request = call["request"].clone();
                        let sdk = Arc::clone(&sdk);
                        let replies = replies.clone();
                        // Calls from several connections of the code may be in flight at once;
                        // in a `JoinSet`, so leaving this exchange (cancelled, timed out) stops them.
                        calls.spawn(async move {
                            let response = sdk.call(request).await;
                            let mut line = serde_json::to_vec(&serde_json::json!({"reply": {"id": id, "response": response}})).unwrap_or_default();
                            line.push(b'\n');
                            let _ = replies.send(line);
                        });
                    } else if let Some(done) = message.get("done") {
                        return serde_json::from_value::<ShellResult>(done.clone()).map_err(|err| self.lost(err));
                    } else if let Some(refused) = message.get("refused") {
                        return Err(serde_json::from_value::<ErrorReply>(refused.clone()).map_err(|err| self.lost(err))?.into_error());
                    }
                }
                Some(line) = outgoing.recv() => {
                    write.write_all(&line).await.map_err(|err| self.lost(err))?;
                }
                Some(_) = calls.join_next(), if !calls.is_empty() => {}
            }
        }
    }

    async fn connect(&self) -> Result<TcpStream, ServiceError> {
        let stream = match tokio::time::timeout(
            self.connect_timeout,
            TcpStream::connect((self.host.as_str(), self.port)),
        )
        .await
        {
            Ok(Ok(stream)) => stream,
            Ok(Err(err)) => return Err(self.unreachable(&err.to_string())),
            Err(_) => {
                return Err(self.unreachable(&format!(
                    "no connection within {} ms",
                    self.connect_timeout.as_millis()
                )));
            }
        };
        // Requests are small and answered whole; waiting to batch them only adds latency.
        let _ = stream.set_nodelay(true);
        Ok(stream)
    }

    fn interpret(&self, status: StatusCode, bytes: &[u8]) -> Result<ShellResult, ServiceError> {
        if status == StatusCode::OK {
            return serde_json::from_slice::<ShellResult>(bytes).map_err(|err| {
                ServiceError::new(
                    ServiceErrorKind::Unavailable,
                    format!(
                        "the control server at {} sent a reply that is not a run result ({err}): {}; check that the address points at a `cy-tools control-server` of this version",
                        self.endpoint,
                        snippet(bytes)
                    ),
                )
            });
        }
        let reply = serde_json::from_slice::<ErrorReply>(bytes);
        if status == StatusCode::UNPROCESSABLE_ENTITY
            && let Ok(reply) = reply
        {
            // The run itself was refused: the executor's own message, as a local run gives it.
            return Err(reply.into_error());
        }
        let kind = match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => ServiceErrorKind::PermissionDenied,
            StatusCode::BAD_REQUEST | StatusCode::PAYLOAD_TOO_LARGE => {
                ServiceErrorKind::InvalidInput
            }
            StatusCode::NOT_FOUND => ServiceErrorKind::NotFound,
            _ => ServiceErrorKind::Unavailable,
        };
        let why = match reply {
            Ok(reply) => reply.error,
            Err(_) => format!(
                "no explanation ({}); check that the address points at a `cy-tools control-server` and read its log",
                snippet(bytes)
            ),
        };
        Err(ServiceError::new(
            kind,
            format!(
                "the control server at {} answered {status}: {why}",
                self.endpoint
            ),
        ))
    }

    fn unreachable(&self, why: &str) -> ServiceError {
        ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "could not reach the control server at {}: {why}; check that `cy-tools control-server` is running there and listening on that address, then run the code again",
                self.endpoint
            ),
        )
    }

    fn lost(&self, err: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> ServiceError {
        let err = err.into();
        let why = with_causes(&*err);
        ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "the connection to the control server at {} broke before the run's result arrived ({why}); the server may have stopped, so the run's outcome is unknown. Check the server, then run the code again",
                self.endpoint
            ),
        )
        .with_source(err)
    }
}

/// The start of a reply body, for messages.
fn snippet(bytes: &[u8]) -> String {
    const SHOWN: usize = 200;
    if bytes.is_empty() {
        return "an empty body".to_string();
    }
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN)]);
    if bytes.len() > SHOWN {
        format!("`{text}…`")
    } else {
        format!("`{text}`")
    }
}

impl CodeExecutor for RemoteExecutor {
    fn execute<'a>(
        &'a self,
        code: &'a str,
        options: CodeOptions,
    ) -> BoxFuture<'a, Result<ShellResult, ServiceError>> {
        Box::pin(self.run(code, options))
    }

    /// The control server opens the SDK socket next to the code and relays each call back
    /// over the connection carrying the run.
    fn relays_sdk_calls(&self) -> bool {
        true
    }
}

impl std::fmt::Debug for RemoteExecutor {
    // The token stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteExecutor")
            .field("endpoint", &self.endpoint)
            .field("path", &self.path)
            .field("scope", &self.scope)
            .field("connect_timeout", &self.connect_timeout)
            .field("reply_margin", &self.reply_margin)
            .field("default_timeout", &self.default_timeout)
            .finish_non_exhaustive()
    }
}

/// `err` and each of its causes, joined by `: `: hyper's own text is often only "connection
/// error", with the reason (reset, refused) in a cause.
pub(crate) fn with_causes(err: &(dyn std::error::Error + 'static)) -> String {
    let mut why = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        why.push_str(": ");
        why.push_str(&cause.to_string());
        source = cause.source();
    }
    why
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_must_be_plain_http_host_and_port() {
        let ok = RemoteExecutor::new("http://[::1]:9000/", "s-1", "sk-secret-value").unwrap();
        assert_eq!(ok.endpoint(), "http://[::1]:9000");
        assert_eq!((ok.host.as_str(), ok.port), ("::1", 9000));
        assert_eq!(ok.path, "/v1/sessions/s-1/execute");
        let err = RemoteExecutor::new("http://h:1/api", "s-1", "t").unwrap_err();
        assert_eq!(
            err.to_string(),
            "control server address `http://h:1/api` is not plain `http://host:port` (it has a path); write it like `http://127.0.0.1:8700`"
        );
        let err = RemoteExecutor::new("http://h:1", "../x", "t").unwrap_err();
        assert_eq!(err.kind(), ServiceErrorKind::InvalidInput);
        assert!(!format!("{ok:?}").contains("sk-secret-value"));
    }
}
