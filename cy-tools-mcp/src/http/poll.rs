//! Polling a long call's event stream (SEP-1699): in the session-bearing mode the server ends a
//! call's `POST` event stream once it has been open a while without the answer, after its
//! priming event; the client comes back with `GET` and `Last-Event-ID` for the rest, which the
//! session keeps meanwhile. So a long call holds no connection, and nothing it sends is lost.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::BodyExt as _;
use http_body_util::combinators::BoxBody;
use hyper::body::{Body, Bytes, Frame};
use tokio::time::{Sleep, sleep};

/// A call's event stream, ended at `after` once at least one event (the priming one, with its
/// id and `retry`) went out.
pub(super) struct Polled {
    inner: BoxBody<Bytes, Infallible>,
    deadline: Pin<Box<Sleep>>,
    sent: bool,
}

impl Polled {
    pub(super) fn boxed(
        inner: BoxBody<Bytes, Infallible>,
        after: Duration,
    ) -> BoxBody<Bytes, Infallible> {
        Polled {
            inner,
            deadline: Box::pin(sleep(after)),
            sent: false,
        }
        .boxed()
    }
}

impl Body for Polled {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(frame)) => {
                this.sent = true;
                return Poll::Ready(Some(frame));
            }
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {}
        }
        // Only a stream the client can resume (it has an event id) is ended.
        if this.sent && this.deadline.as_mut().poll(cx).is_ready() {
            tracing::debug!(
                "ended a long call's event stream; the client resumes it with Last-Event-ID"
            );
            return Poll::Ready(None);
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }
}
