//! The server's side of a newline-delimited JSON-RPC connection, with every line checked
//! ([`line_check`](super::line_check)) before `rmcp` sees it.
//!
//! Three parts run together: a reader that takes lines from the input and hands `rmcp` the
//! messages it accepts (already parsed, so each line is parsed once), the [`Transport`]
//! `rmcp` serves over, and a writer that puts on the output both `rmcp`'s messages and the
//! reader's error replies, each a whole line, so they never interleave within a line.

use std::future::Future;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::mpsc;

use super::line_check::{self, Checked, INVALID_REQUEST};
use super::lines::{Line, Lines, MAX_LINE};

/// Messages read ahead of `rmcp`; beyond that, reading waits (the client's writes too).
const READ_AHEAD: usize = 16;
/// Lines queued for the output; beyond that, senders wait for the writer.
const WRITE_AHEAD: usize = 16;
/// Input buffer size.
const READ_BUFFER: usize = 64 * 1024;

/// The transport `rmcp` serves over.
pub(super) struct LineTransport {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    /// `None` once `rmcp` closed it.
    outgoing: Option<mpsc::Sender<Vec<u8>>>,
}

/// A connection over `input` and `output`: the transport for `rmcp`, and the future that
/// reads and writes for it. That future ends once the input has ended (or `stop` resolved)
/// and everything queued for the output is written.
pub(super) fn connect<R, W>(
    input: R,
    output: W,
    stop: impl Future<Output = ()>,
) -> (LineTransport, impl Future<Output = ()>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let (to_rmcp, incoming) = mpsc::channel(READ_AHEAD);
    let (to_output, lines_out) = mpsc::channel(WRITE_AHEAD);
    let reading = {
        let to_output = to_output.clone();
        async move {
            tokio::select! {
                () = read(input, &to_rmcp, &to_output) => {}
                () = stop => {}
            }
        }
    };
    let io = async move {
        // The reader's senders go when it ends, `rmcp`'s when it closes the transport: then
        // the writer has written everything and ends too.
        tokio::join!(reading, write(output, lines_out));
    };
    let transport = LineTransport {
        incoming,
        outgoing: Some(to_output),
    };
    (transport, io)
}

/// Reads lines until the input ends, handing messages to `rmcp` and replies to the writer.
async fn read<R: AsyncRead + Unpin>(
    input: R,
    to_rmcp: &mpsc::Sender<ClientJsonRpcMessage>,
    to_output: &mpsc::Sender<Vec<u8>>,
) {
    let mut lines = Lines::new(BufReader::with_capacity(READ_BUFFER, input), MAX_LINE);
    loop {
        let checked = match lines.next().await {
            Ok(Line::Whole(line)) => line_check::check(line),
            Ok(Line::TooLong) => {
                tracing::debug!(MAX_LINE, "a line too long to read, dropped");
                too_long()
            }
            Ok(Line::End) => return,
            Err(err) => {
                tracing::info!(%err, "cannot read the input: stopping");
                return;
            }
        };
        let sent = match checked {
            Checked::Message(message) => to_rmcp.send(*message).await.is_ok(),
            Checked::Reply(line) => to_output.send(line).await.is_ok(),
            Checked::Drop => true,
        };
        if !sent {
            // `rmcp` has stopped, or the output is gone: nothing read could be answered.
            return;
        }
    }
}

/// The reply to a line longer than [`MAX_LINE`]: its `id` was never read.
fn too_long() -> Checked {
    let message = format!(
        "invalid request: the line is longer than {MAX_LINE} bytes, the most one message may be, so it was dropped unread; send smaller messages (pass large data in files the tools read)"
    );
    let response = serde_json::json!({"jsonrpc": "2.0", "id": null,
        "error": {"code": INVALID_REQUEST, "message": message}});
    let mut line = response.to_string().into_bytes();
    line.push(b'\n');
    Checked::Reply(line)
}

/// Writes each queued line whole, flushing whenever the queue is empty, until every sender is
/// gone.
async fn write<W: AsyncWrite + Unpin>(mut output: W, mut lines: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = lines.recv().await {
        let written = async {
            output.write_all(&line).await?;
            if lines.is_empty() {
                output.flush().await?;
            }
            Ok::<_, std::io::Error>(())
        };
        if let Err(err) = written.await {
            // Closing the queue makes `rmcp`'s sends fail, which ends the connection.
            tracing::info!(%err, "cannot write the output: stopping");
            return;
        }
    }
    let _ = output.flush().await;
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let outgoing = self.outgoing.clone();
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        async move {
            let line = line.map_err(std::io::Error::other)?;
            let closed =
                || std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the output is closed");
            outgoing
                .ok_or_else(closed)?
                .send(line)
                .await
                .map_err(|_| closed())
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.outgoing = None;
        Ok(())
    }
}
