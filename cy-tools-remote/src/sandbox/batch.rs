//! A burst of small read-only operations in one exchange.
//!
//! Reads, listings, walks and searches started together (code mode's concurrent calls, a model
//! turn's parallel `read_file`s) would each pay a round trip, most of which, on one host or
//! across a network, is waiting. So the first of them to arrive, finding nobody gathering,
//! gathers: it lets the tasks ready to run at that moment run once
//! ([`tokio::task::yield_now`]), takes every operation they added meanwhile, and sends them
//! with its own as one [`SandboxOp::Batch`](super::wire::SandboxOp::Batch); then each caller
//! gets its own result or error.
//! An operation alone pays one yield and finds nothing to gather: it goes as it always did.
//!
//! Only read-only operations are gathered, which is what makes it safe to send an operation
//! again alone when its batch did not get through: a server from before batches (which answers
//! `400`, and this transport then stops batching) or a batch over the server's body limit
//! (`413`), whose operations the gatherer then sends one after another; or a gatherer dropped
//! before it had the answer (its caller cancelled), whose waiting operations each go alone. A gathering
//! goes out at once, beside any exchange already in flight, so nothing waits behind a slow
//! operation it does not belong with.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use cy_tools::services::{ServiceError, ServiceErrorKind};
use hyper::StatusCode;
use hyper::body::Bytes;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::oneshot;

use super::transport::Transport;
use super::wire::{BatchReply, BatchResult, MAX_BATCH_OPS, MAX_BATCH_READ_BYTES, SandboxRequest};
use crate::executor::wire::ErrorReply;

/// Most bytes of one batch's request: a quarter of the control server's default body limit
/// (1 MiB), so a server configured lower still takes most batches (and a batch it refuses
/// with `413` is sent again one by one).
const BATCH_REQUEST_BYTES: usize = 256 * 1024;

/// How long an operation waits for the gatherer to take it into its batch before it goes
/// alone. The gatherer takes it as soon as it runs again, one yield after it began, so this
/// is only reached when the gatherer's caller holds it without polling it.
const GATHER_PATIENCE: std::time::Duration = std::time::Duration::from_millis(5);

/// What a caller waiting in a gathering receives: the value its operation answered, or its
/// error. A dropped sender means "send it yourself".
type Reply = Result<Value, ServiceError>;

/// The gathering of one transport (shared by a sandbox and its narrower views).
pub(super) struct Batcher {
    gather: Mutex<Gather>,
    /// Off when the caller asked for lone exchanges, or the server does not know batches.
    enabled: AtomicBool,
}

impl Default for Batcher {
    fn default() -> Self {
        Batcher {
            gather: Mutex::new(Gather::default()),
            enabled: AtomicBool::new(true),
        }
    }
}

impl Batcher {
    /// Turns gathering on or off for operations started from now on.
    pub(super) fn enable(&self, on: bool) {
        self.enabled.store(on, Ordering::Relaxed);
    }

    /// Takes waiting operation `number` out of the gathering; false when the gatherer has
    /// taken it already (its answer is then on the way).
    fn leave(&self, number: u64) -> bool {
        let mut gather = self.lock();
        let before = gather.waiting.len();
        gather.waiting.retain(|w| w.number != number);
        gather.waiting.len() < before
    }

    fn lock(&self) -> MutexGuard<'_, Gather> {
        self.gather.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[derive(Default)]
struct Gather {
    /// Someone is gathering: the operations that arrive meanwhile wait in `waiting`.
    open: bool,
    waiting: Vec<Waiting>,
    /// The number the next waiting operation gets.
    next: u64,
}

/// An operation waiting for the gatherer to send it.
struct Waiting {
    /// Its number, by which it leaves the gathering if the gatherer is slow to take it.
    number: u64,
    /// The request as JSON, ready to go in the batch.
    json: Vec<u8>,
    budget: usize,
    reply: oneshot::Sender<Reply>,
}

/// The gatherer's hold on the gathering: dropped before it is finished (its caller
/// cancelled), it closes the gathering and lets the waiting go alone.
struct Gathering<'a> {
    batcher: &'a Batcher,
    finished: bool,
}

impl Gathering<'_> {
    fn finish(mut self) -> Vec<Waiting> {
        self.finished = true;
        let mut gather = self.batcher.lock();
        gather.open = false;
        std::mem::take(&mut gather.waiting)
    }
}

impl Drop for Gathering<'_> {
    fn drop(&mut self) {
        if !self.finished {
            let mut gather = self.batcher.lock();
            gather.open = false;
            // Dropping their senders tells each to go alone.
            gather.waiting.clear();
        }
    }
}

/// One operation of a batch being sent: its JSON, and where its result goes (`None`: the
/// gatherer's own).
struct Member {
    json: Vec<u8>,
    budget: usize,
    reply: Option<oneshot::Sender<Reply>>,
}

impl Transport {
    /// Sends `request` and decodes its answer as `T`: gathered with the read-only operations
    /// started at the same moment into one batch, or alone.
    pub(super) async fn call_op<T: DeserializeOwned>(
        &self,
        request: &SandboxRequest,
    ) -> Result<T, ServiceError> {
        let json = serde_json::to_vec(request).map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::Other,
                format!("could not encode the request: {err}"),
            )
        })?;
        if !request.op.is_batchable() || !self.batcher.enabled.load(Ordering::Relaxed) {
            return self.call(json).await;
        }
        let budget = request.op.answer_budget();
        let waiting = {
            let mut gather = self.batcher.lock();
            if gather.open {
                let (reply, answer) = oneshot::channel();
                let number = gather.next;
                gather.next += 1;
                gather.waiting.push(Waiting {
                    number,
                    json: json.clone(),
                    budget,
                    reply,
                });
                Some((number, answer))
            } else {
                gather.open = true;
                None
            }
        };
        if let Some((number, mut answer)) = waiting {
            // The gatherer takes the waiting operations as soon as it runs again; if its
            // caller does not poll it meanwhile, this one leaves and goes alone rather than
            // wait on a future it does not own.
            let reply = match tokio::time::timeout(GATHER_PATIENCE, &mut answer).await {
                Ok(reply) => reply,
                Err(_) if self.batcher.leave(number) => return self.call(json).await,
                Err(_) => answer.await,
            };
            return match reply {
                Ok(reply) => reply.and_then(|value| self.value_as(value)),
                // The gatherer could not send it: it goes alone (it only reads, so even if
                // the batch did run, running it again changes nothing).
                Err(_) => self.call(json).await,
            };
        }
        let gathering = Gathering {
            batcher: &self.batcher,
            finished: false,
        };
        // The operations started together with this one add themselves now.
        tokio::task::yield_now().await;
        let others = gathering.finish();
        if others.is_empty() {
            return self.call(json).await;
        }
        let mut members = Vec::with_capacity(others.len() + 1);
        members.push(Member {
            json,
            budget,
            reply: None,
        });
        members.extend(others.into_iter().map(|w| Member {
            json: w.json,
            budget: w.budget,
            reply: Some(w.reply),
        }));
        let mut own = None;
        for group in groups(members) {
            if let Some(result) = self.send_group(group).await {
                own = Some(result);
            }
        }
        // The gatherer's own operation is in the first group, which always answers it.
        let result = own.unwrap_or_else(|| {
            Err(ServiceError::new(
                ServiceErrorKind::Other,
                "the operation was gathered but never sent; this is a bug, send it again",
            ))
        });
        result.and_then(|value| self.value_as(value))
    }

    fn value_as<T: DeserializeOwned>(&self, value: Value) -> Result<T, ServiceError> {
        serde_json::from_value(value).map_err(|err| self.not_understood(&err))
    }

    /// Sends one group (alone if it is one operation), hands each waiting member its result,
    /// and returns the gatherer's own if it is in the group. A group whose batch the server
    /// refused as a whole (`400`, `413`) is sent again one operation after another, not all at
    /// once, which would only meet the server's run cap.
    async fn send_group(&self, group: Vec<Member>) -> Option<Reply> {
        if group.len() == 1 || !self.batcher.enabled.load(Ordering::Relaxed) {
            // Alone, or an earlier group found the server does not know batches.
            return self.send_alone(group).await;
        }
        let mut body =
            Vec::with_capacity(32 + group.iter().map(|m| m.json.len() + 1).sum::<usize>());
        body.extend_from_slice(br#"{"op":{"kind":"batch","ops":["#);
        for (n, member) in group.iter().enumerate() {
            if n > 0 {
                body.push(b',');
            }
            body.extend_from_slice(&member.json);
        }
        body.extend_from_slice(b"]}}");
        let results: Vec<Reply> = match self.send(Bytes::from(body)).await {
            Ok((StatusCode::OK, bytes)) => match serde_json::from_slice::<BatchReply>(&bytes) {
                Ok(reply) if reply.results.len() == group.len() => reply
                    .results
                    .into_iter()
                    .map(|result| self.result_of(result))
                    .collect(),
                Ok(reply) => {
                    let err = ServiceError::new(
                        ServiceErrorKind::Unavailable,
                        format!(
                            "the control server at {} answered {} results to a batch of {}; check that it runs `cy-tools control-server` of this version",
                            self.endpoint,
                            reply.results.len(),
                            group.len()
                        ),
                    );
                    group.iter().map(|_| Err(err.clone())).collect()
                }
                Err(err) => {
                    let err = self.not_understood(&err);
                    group.iter().map(|_| Err(err.clone())).collect()
                }
            },
            Ok((status, _))
                if matches!(
                    status,
                    StatusCode::BAD_REQUEST | StatusCode::PAYLOAD_TOO_LARGE
                ) =>
            {
                // A server from before batches does not know the kind; a batch over the body
                // limit is refused whole. Either way each operation goes alone, and after the
                // first, nothing is gathered for this server again.
                if status == StatusCode::BAD_REQUEST {
                    self.batcher.enable(false);
                }
                return self.send_alone(group).await;
            }
            Ok((status, bytes)) => {
                let err = self.refused(status, &bytes);
                group.iter().map(|_| Err(err.clone())).collect()
            }
            Err(err) => group.iter().map(|_| Err(err.clone())).collect(),
        };
        let mut own = None;
        for (member, result) in group.into_iter().zip(results) {
            match member.reply {
                Some(reply) => {
                    let _ = reply.send(result);
                }
                None => own = Some(result),
            }
        }
        own
    }

    /// Sends each member in an exchange of its own, one after another; the gatherer's own
    /// result, if it is among them.
    async fn send_alone(&self, group: Vec<Member>) -> Option<Reply> {
        let mut own = None;
        for member in group {
            let result = self.call::<Value>(member.json).await;
            match member.reply {
                Some(reply) => {
                    let _ = reply.send(result);
                }
                None => own = Some(result),
            }
        }
        own
    }

    /// One operation's result in a batch, as the same operation alone would have ended.
    fn result_of(&self, result: BatchResult) -> Reply {
        match result {
            BatchResult::Done { ok } => Ok(ok),
            BatchResult::Refused {
                error,
                kind,
                status,
            } => {
                let status = status
                    .and_then(|s| StatusCode::from_u16(s).ok())
                    .unwrap_or(StatusCode::UNPROCESSABLE_ENTITY);
                Err(self.refused_with(status, ErrorReply { error, kind }))
            }
        }
    }
}

/// `members` cut into groups the server takes as one batch: at most [`MAX_BATCH_OPS`]
/// operations, [`MAX_BATCH_READ_BYTES`] of answers and [`BATCH_REQUEST_BYTES`] of request each,
/// in order.
fn groups(members: Vec<Member>) -> Vec<Vec<Member>> {
    let mut groups: Vec<Vec<Member>> = Vec::new();
    let (mut budget, mut bytes) = (0usize, 0usize);
    for member in members {
        let fits = groups.last().is_some_and(|group| {
            group.len() < MAX_BATCH_OPS
                && budget.saturating_add(member.budget) <= MAX_BATCH_READ_BYTES
                && bytes.saturating_add(member.json.len()) <= BATCH_REQUEST_BYTES
        });
        if !fits {
            groups.push(Vec::new());
            (budget, bytes) = (0, 0);
        }
        budget = budget.saturating_add(member.budget);
        bytes = bytes.saturating_add(member.json.len());
        if let Some(group) = groups.last_mut() {
            group.push(member);
        }
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::wire::SandboxOp;

    fn member(budget: usize, json_len: usize) -> Member {
        Member {
            json: vec![b' '; json_len],
            budget,
            reply: None,
        }
    }

    #[test]
    fn groups_stay_within_each_limit_and_keep_the_order() {
        let sizes = |groups: &[Vec<Member>]| groups.iter().map(Vec::len).collect::<Vec<_>>();
        let many: Vec<Member> = (0..MAX_BATCH_OPS * 2 + 1).map(|_| member(10, 10)).collect();
        assert_eq!(sizes(&groups(many)), [MAX_BATCH_OPS, MAX_BATCH_OPS, 1]);
        let big_reads: Vec<Member> = (0..5)
            .map(|_| member(MAX_BATCH_READ_BYTES / 2, 10))
            .collect();
        assert_eq!(sizes(&groups(big_reads)), [2, 2, 1]);
        let long_requests: Vec<Member> = (0..3)
            .map(|_| member(0, BATCH_REQUEST_BYTES / 2 + 1))
            .collect();
        assert_eq!(sizes(&groups(long_requests)), [1, 1, 1]);
        // One over every limit still goes, alone.
        let huge = vec![member(usize::MAX, 1), member(1, 1)];
        assert_eq!(sizes(&groups(huge)), [1, 1]);
        let order: Vec<usize> = groups((0..70).map(|n| member(0, n + 1)).collect())
            .into_iter()
            .flatten()
            .map(|m| m.json.len())
            .collect();
        assert_eq!(order, (1..=70).collect::<Vec<_>>());
    }

    #[test]
    fn only_read_only_operations_are_gathered() {
        let read = SandboxOp::Stat { path: "a".into() };
        assert!(read.is_batchable());
        for op in [
            SandboxOp::Remove { path: "a".into() },
            SandboxOp::List {},
            SandboxOp::Batch { ops: vec![] },
        ] {
            assert!(!op.is_batchable(), "{}", op.name());
        }
    }
}
