//! A newline-delimited JSON-RPC client over a server's stdin and stdout, and the file-operation
//! loop run through it.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{Mutex as AsyncMutex, oneshot};

use super::stats::quantile_us;

/// Whose tool names and arguments to use.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// cy-tools' file tools.
    Cy,
    /// `@modelcontextprotocol/server-filesystem`'s.
    Reference,
}

impl Dialect {
    pub fn parse(text: &str) -> Option<Dialect> {
        match text {
            "cy" => Some(Dialect::Cy),
            "reference" => Some(Dialect::Reference),
            _ => None,
        }
    }

    /// The file tools and their arguments for `path`, in the order write, read, edit, list,
    /// search.
    pub fn calls(self, path: &str, folder: &str, content: &str) -> [(&'static str, Value); 5] {
        match self {
            Dialect::Cy => [
                ("write_file", json!({"path": path, "content": content})),
                ("read_file", json!({"path": path})),
                (
                    "edit_file",
                    json!({"path": path, "old_string": "line 07", "new_string": "LINE 07"}),
                ),
                ("list_directory", json!({"path": folder})),
                ("find_files", json!({"path": folder, "pattern": "*.txt"})),
            ],
            Dialect::Reference => [
                ("write_file", json!({"path": path, "content": content})),
                ("read_text_file", json!({"path": path})),
                (
                    "edit_file",
                    json!({"path": path, "edits": [{"oldText": "line 07", "newText": "LINE 07"}]}),
                ),
                ("list_directory", json!({"path": folder})),
                ("search_files", json!({"path": folder, "pattern": "*.txt"})),
            ],
        }
    }
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Value>>>>;

/// A connected server.
pub struct Server {
    child: Child,
    stdin: Arc<AsyncMutex<ChildStdin>>,
    pending: Pending,
    next_id: Mutex<u64>,
}

impl Server {
    /// Starts `command` (in `cwd`) and does the `initialize` handshake.
    pub async fn start(
        command: &[String],
        cwd: Option<&std::path::Path>,
    ) -> Result<Server, String> {
        let mut spawn = Command::new(&command[0]);
        spawn
            .args(&command[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        if let Some(cwd) = cwd {
            spawn.current_dir(cwd);
        }
        let mut child = spawn
            .spawn()
            .map_err(|err| format!("cannot start {command:?}: {err}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let pending: Pending = Arc::default();
        let routes = Arc::clone(&pending);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(message) = serde_json::from_str::<Value>(&line) else {
                    continue;
                };
                let Some(id) = message.get("id").and_then(Value::as_u64) else {
                    continue;
                };
                if let Some(waiter) = routes.lock().unwrap().remove(&id) {
                    let _ = waiter.send(message);
                }
            }
        });
        let server = Server {
            child,
            stdin: Arc::new(AsyncMutex::new(stdin)),
            pending,
            next_id: Mutex::new(1),
        };
        let init = server
            .request(
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "mcp_load", "version": "0"}}),
            )
            .await?;
        if init.get("result").is_none() {
            return Err(format!("initialize failed: {init}"));
        }
        server
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await?;
        Ok(server)
    }

    async fn send(&self, message: &Value) -> Result<(), String> {
        let mut line = serde_json::to_vec(message).map_err(|err| err.to_string())?;
        line.push(b'\n');
        let mut stdin = self.stdin.lock().await;
        stdin
            .write_all(&line)
            .await
            .map_err(|err| err.to_string())?;
        stdin.flush().await.map_err(|err| err.to_string())
    }

    /// Sends a request and waits (at most a minute) for its response.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        let id = {
            let mut next = self.next_id.lock().unwrap();
            *next += 1;
            *next
        };
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await?;
        tokio::time::timeout(Duration::from_secs(60), rx)
            .await
            .map_err(|_| format!("no answer to `{method}` within a minute"))?
            .map_err(|_| "the server closed its stdout".to_string())
    }

    /// A `tools/call`: its result, or the JSON-RPC error as an `Err`.
    pub async fn call(&self, tool: &str, arguments: Value) -> Result<Value, Value> {
        match self
            .request("tools/call", json!({"name": tool, "arguments": arguments}))
            .await
        {
            Ok(mut message) => match message.get_mut("result") {
                Some(result) => Ok(result.take()),
                None => Err(message),
            },
            Err(err) => Err(json!({"transport": err})),
        }
    }

    pub async fn stop(mut self) {
        drop(self.stdin);
        let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
        let _ = self.child.kill().await;
    }
}

/// The text of a result's text blocks, joined.
pub fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// `lanes` loops of the five file operations at once, for `seconds`; the server runs in the
/// current folder, which must hold a folder `bench`.
pub async fn run(
    dialect: Dialect,
    lanes: usize,
    seconds: u64,
    command: &[String],
) -> Result<Value, String> {
    let server = Arc::new(Server::start(command, None).await?);
    let content: String = (1..=20).map(|n| format!("line {n:02}\n")).collect();
    let until = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for lane in 0..lanes {
        let (server, content) = (Arc::clone(&server), content.clone());
        tasks.push(tokio::spawn(async move {
            let path = format!("bench/lane{lane}.txt");
            let mut latencies = Vec::new();
            let mut per_tool: HashMap<&'static str, Vec<Duration>> = HashMap::new();
            while Instant::now() < until {
                for (tool, arguments) in dialect.calls(&path, "bench", &content) {
                    let sent = Instant::now();
                    let result = server.call(tool, arguments).await;
                    match result {
                        Ok(result) if result["isError"] != true => {
                            latencies.push(sent.elapsed());
                            per_tool.entry(tool).or_default().push(sent.elapsed());
                        }
                        Ok(result) => return Err(format!("{tool} failed: {}", text(&result))),
                        Err(error) => return Err(format!("{tool} failed: {error}")),
                    }
                }
            }
            Ok::<_, String>((latencies, per_tool))
        }));
    }
    let mut all = Vec::new();
    let mut per_tool: HashMap<&'static str, Vec<Duration>> = HashMap::new();
    for task in tasks {
        let (latencies, tools) = task.await.map_err(|err| err.to_string())??;
        all.extend(latencies);
        for (tool, mut latencies) in tools {
            per_tool.entry(tool).or_default().append(&mut latencies);
        }
    }
    all.sort_unstable();
    let per_tool: serde_json::Map<String, Value> = per_tool
        .into_iter()
        .map(|(tool, mut latencies)| {
            latencies.sort_unstable();
            let mean = latencies.iter().sum::<Duration>() / latencies.len().max(1) as u32;
            let stats = json!({"p50_us": quantile_us(&latencies, 0.5), "mean_us": mean.as_secs_f64() * 1e6});
            (tool.to_string(), stats)
        })
        .collect();
    if let Ok(server) = Arc::try_unwrap(server) {
        server.stop().await;
    }
    Ok(json!({
        "lanes": lanes,
        "calls": all.len(),
        "calls_per_s": all.len() as f64 / seconds as f64,
        "p50_us": quantile_us(&all, 0.5),
        "p99_us": quantile_us(&all, 0.99),
        "per_tool": per_tool,
    }))
}
