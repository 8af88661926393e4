//! Requests to the sandbox endpoint over a few kept-alive connections.
//!
//! File tools make many small requests, and a fresh TCP connection for each would cost more
//! than most operations, so finished connections are kept for the next request, for a short
//! while (the server closes idle ones). Each connection is driven inside the request using it,
//! never by a task of its own, so a request dropped midway (a cancelled `exec`) closes its
//! connection at once: that is how the server learns to stop the command.

use std::pin::pin;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use cy_tools::services::{ServiceError, ServiceErrorKind};
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Bytes;
use hyper::client::conn::http1::{Connection, SendRequest};
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use serde::de::DeserializeOwned;
use tokio::net::TcpStream;

use super::batch::Batcher;
use crate::executor::wire::ErrorReply;

/// Idle connections kept for reuse.
const KEPT: usize = 4;

/// How long an idle connection is reused: well within the control server's shortest sensible
/// `header_timeout` (10 s by default), after which it closes idle connections.
const REUSE_WITHIN: Duration = Duration::from_secs(2);

/// One connection: the sender of its requests, the connection itself (driven by whoever uses
/// it), and when it last finished a request.
struct Conn {
    sender: SendRequest<Full<Bytes>>,
    connection: Connection<TokioIo<TcpStream>, Full<Bytes>>,
    idle_since: Instant,
}

/// Where and how to send requests.
pub(super) struct Transport {
    pub(super) endpoint: String,
    host: String,
    port: u16,
    /// The request line's target, the `Host` and the `Authorization` of every request, made
    /// (parsed and checked) once, not again for each request.
    uri: Uri,
    host_header: HeaderValue,
    authorization: HeaderValue,
    pub(super) connect_timeout: Duration,
    pub(super) max_reply_bytes: usize,
    idle: Mutex<Vec<Conn>>,
    /// The operations gathered to go in one batch.
    pub(super) batcher: Batcher,
}

impl Transport {
    pub(super) fn new(
        endpoint: String,
        host: String,
        port: u16,
        authority: String,
        path: String,
        token: String,
    ) -> Result<Self, ServiceError> {
        let bad = |what: &str| {
            ServiceError::new(
                ServiceErrorKind::InvalidInput,
                format!("{what} cannot go in an HTTP header or request line; use printable ASCII"),
            )
        };
        let uri = path
            .parse()
            .map_err(|_| bad(&format!("the request path `{path}`")))?;
        let host_header = HeaderValue::from_str(&authority)
            .map_err(|_| bad(&format!("the address `{authority}`")))?;
        let mut authorization =
            HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| bad("the token"))?;
        authorization.set_sensitive(true);
        Ok(Transport {
            endpoint,
            host,
            port,
            uri,
            host_header,
            authorization,
            connect_timeout: Duration::from_secs(5),
            max_reply_bytes: 16 * 1024 * 1024,
            idle: Mutex::new(Vec::new()),
            batcher: Batcher::default(),
        })
    }

    /// Sends `body` and decodes the `200` answer as `T`; any other answer becomes the error
    /// it carries (a `422` is the sandbox's own error, word for word).
    pub(super) async fn call<T: DeserializeOwned>(&self, body: Vec<u8>) -> Result<T, ServiceError> {
        let (status, bytes) = self.send(Bytes::from(body)).await?;
        if status == StatusCode::OK {
            return serde_json::from_slice(&bytes).map_err(|err| self.not_understood(&err));
        }
        Err(self.refused(status, &bytes))
    }

    /// The error of a `200` answer that does not parse as what was asked.
    pub(super) fn not_understood(&self, err: &serde_json::Error) -> ServiceError {
        ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "the control server at {} sent a reply this sandbox does not understand ({err}); check that it runs `cy-tools control-server` of this version",
                self.endpoint
            ),
        )
    }

    /// The error an answer other than `200` carries (a `422` is the sandbox's own error, word
    /// for word).
    pub(super) fn refused(&self, status: StatusCode, body: &[u8]) -> ServiceError {
        match serde_json::from_slice::<ErrorReply>(body) {
            Ok(reply) => self.refused_with(status, reply),
            Err(_) => self.refused_why(
                status,
                format!(
                    "no explanation ({} bytes); check that the address points at a `cy-tools control-server` of this version and read its log",
                    body.len()
                ),
            ),
        }
    }

    /// The error of an answer `status` explained by `reply`.
    pub(super) fn refused_with(&self, status: StatusCode, reply: ErrorReply) -> ServiceError {
        if status == StatusCode::UNPROCESSABLE_ENTITY {
            return reply.into_error();
        }
        self.refused_why(status, reply.error)
    }

    fn refused_why(&self, status: StatusCode, why: String) -> ServiceError {
        let kind = match status {
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => ServiceErrorKind::PermissionDenied,
            StatusCode::BAD_REQUEST | StatusCode::PAYLOAD_TOO_LARGE => {
                ServiceErrorKind::InvalidInput
            }
            StatusCode::NOT_FOUND => ServiceErrorKind::NotFound,
            _ => ServiceErrorKind::Unavailable,
        };
        ServiceError::new(
            kind,
            format!(
                "the control server at {} answered {status}: {why}",
                self.endpoint
            ),
        )
    }

    /// Sends `body` on a kept connection, else a fresh one: the answer's status and body.
    pub(super) async fn send(&self, body: Bytes) -> Result<(StatusCode, Bytes), ServiceError> {
        // A kept connection the server has closed meanwhile gives the request back unsent;
        // it then goes on a fresh one.
        if let Some(mut conn) = self.take_idle() {
            match self.exchange(&mut conn, self.request(body.clone())?).await {
                Ok(Ok(answer)) => {
                    self.keep(conn);
                    return Ok(answer);
                }
                Ok(Err(err)) => return Err(err),
                Err(()) => {}
            }
        }
        let mut conn = self.connect().await?;
        match self.exchange(&mut conn, self.request(body)?).await {
            Ok(Ok(answer)) => {
                self.keep(conn);
                Ok(answer)
            }
            Ok(Err(err)) => Err(err),
            Err(()) => Err(self.lost(std::io::Error::other(
                "the connection closed before the request was sent",
            ))),
        }
    }

    /// One request on `conn`, driving the connection meanwhile; `Err(())` when the request
    /// was given back unsent.
    async fn exchange(
        &self,
        conn: &mut Conn,
        request: Request<Full<Bytes>>,
    ) -> Result<Result<(StatusCode, Bytes), ServiceError>, ()> {
        let exchange = async {
            let response = match conn.sender.try_send_request(request).await {
                Ok(response) => response,
                Err(err) if err.message().is_some() => return Err(()),
                Err(err) => return Ok(Err(self.lost(err.into_error()))),
            };
            let status = response.status();
            Ok(Limited::new(response.into_body(), self.max_reply_bytes)
                .collect()
                .await
                .map(|body| (status, body.to_bytes()))
                .map_err(|err| self.lost(err)))
        };
        let mut exchange = pin!(exchange);
        let mut connection_done = false;
        loop {
            tokio::select! {
                answer = &mut exchange => return answer,
                // The connection ending first is not the answer: the exchange then finishes
                // with what was received, or with the error that ended it.
                _ = &mut conn.connection, if !connection_done => connection_done = true,
            }
        }
    }
    fn request(&self, body: Bytes) -> Result<Request<Full<Bytes>>, ServiceError> {
        Request::post(self.uri.clone())
            .header(HOST, self.host_header.clone())
            .header(AUTHORIZATION, self.authorization.clone())
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
            .body(Full::new(body))
            .map_err(|err| {
                ServiceError::new(
                    ServiceErrorKind::InvalidInput,
                    format!("could not build the request to {}: {err}", self.endpoint),
                )
            })
    }

    fn take_idle(&self) -> Option<Conn> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(conn) = idle.pop() {
            if !conn.sender.is_closed() && conn.idle_since.elapsed() < REUSE_WITHIN {
                return Some(conn);
            }
        }
        None
    }

    fn keep(&self, mut conn: Conn) {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < KEPT && !conn.sender.is_closed() {
            conn.idle_since = Instant::now();
            idle.push(conn);
        }
    }

    async fn connect(&self) -> Result<Conn, ServiceError> {
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
        // Requests are small and answered whole; batching them only adds latency.
        let _ = stream.set_nodelay(true);
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|err| self.lost(err))?;
        Ok(Conn {
            sender,
            connection,
            idle_since: Instant::now(),
        })
    }

    fn unreachable(&self, why: &str) -> ServiceError {
        ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "could not reach the control server at {} holding this session's workspace: {why}; check that `cy-tools control-server` is running there and listening on that address, then try again",
                self.endpoint
            ),
        )
    }

    fn lost(&self, err: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> ServiceError {
        let err = err.into();
        let why = crate::executor::with_causes(&*err);
        ServiceError::new(
            ServiceErrorKind::Unavailable,
            format!(
                "the connection to the control server at {} broke before its answer arrived ({why}); the server may have stopped, so the operation's outcome is unknown. Check the server, then try again",
                self.endpoint
            ),
        )
        .with_source(err)
    }
}
