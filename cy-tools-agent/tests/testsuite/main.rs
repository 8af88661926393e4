//! The integration tests of `cy-tools-agent`: the model loop against a fake provider on
//! 127.0.0.1 that answers in each provider's wire format from fixtures
//! (`support::fake_model`): what the loop sends (tool declarations, results with the right ids),
//! how it reads answers (plain, tool calls, parallel calls, malformed arguments, 429 then
//! success, streamed), its limits and bounds, the model runner of subagents, and its HTTP client
//! (TLS with a test CA, a CONNECT proxy from `HTTPS_PROXY`, connections kept between turns,
//! HTTP/2 with a server that offers it).
//! `cy-tools agent` (`delegate`, approval, code mode, what reaches a terminal) is
//! `cy-tools-cli`'s.

use cy_tools_test_support as support;

mod anthropic;
mod bounds;
mod http2;
mod limits;
mod openai;
#[cfg(feature = "otel")]
mod otlp_receiver;
mod runner;
mod sampling;
mod tokens;
mod tool_search;
#[cfg(feature = "otel")]
mod traces;
mod transport;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use cy_tools::memory::{MemoryLog, MemorySpecs};
use cy_tools::{Session, SessionSpec, ToolRegistry, ToolResult, session::ModelProvider};
use cy_tools_agent::{AgentConfig, AgentEvents, ModelCall, RetryPolicy};
use cy_tools_session::LocalSessionFactory;

use support::fake_model::FakeApi;

/// A session over a fresh workspace holding `notes.txt`, its calls in `log`.
struct Setup {
    _dir: tempfile::TempDir,
    session: Session,
    log: Arc<MemoryLog>,
}

async fn setup(tools: &[&str]) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("w");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("notes.txt"), "hello from the notes\n").unwrap();
    let log = Arc::new(MemoryLog::new());
    let factory = LocalSessionFactory::new(
        Arc::new(ToolRegistry::linked().unwrap()),
        Arc::new(MemorySpecs::new()),
        Arc::clone(&log) as _,
    );
    let spec =
        SessionSpec::root("s-1", "acme", workspace.to_str().unwrap()).with_tools(tools.to_vec());
    let session = factory.create(spec).await.unwrap();
    Setup {
        _dir: dir,
        session,
        log,
    }
}

/// A configuration for the fake API: a key, quick retries.
fn config(provider: ModelProvider, api: &FakeApi) -> AgentConfig {
    let (model, base) = match provider {
        ModelProvider::OpenAi => ("gpt-fake", format!("{}/v1", api.url())),
        ModelProvider::Anthropic => ("claude-fake", api.url()),
    };
    let mut config = AgentConfig::new(provider, model).with_base_url(base);
    config.api_key = Some("test-key".to_string());
    config.retry = RetryPolicy {
        retries: 2,
        base_delay: Duration::from_millis(50),
    };
    config
}

/// What a run reported, in order.
#[derive(Default)]
struct Recorder(Mutex<Vec<String>>);

impl Recorder {
    fn events(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }

    fn text(&self) -> String {
        self.events()
            .iter()
            .filter_map(|e| e.strip_prefix("text:"))
            .collect()
    }
}

impl AgentEvents for Recorder {
    fn text(&self, piece: &str) {
        self.0.lock().unwrap().push(format!("text:{piece}"));
    }

    fn tool_call(&self, call: &ModelCall) {
        self.0
            .lock()
            .unwrap()
            .push(format!("call:{}:{}", call.name, call.id));
    }

    fn tool_result(&self, call: &ModelCall, result: &ToolResult) {
        let mark = if result.is_error { "error" } else { "ok" };
        self.0
            .lock()
            .unwrap()
            .push(format!("result:{}:{mark}", call.id));
    }
}
