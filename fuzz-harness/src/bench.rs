//! Every linked tool bound to a context that is safe to fuzz: the fixture's sandbox with
//! commands refused, and fake services.

use std::sync::Arc;

use cy_tools::{SessionIdentity, ToolContext, ToolRegistry, Toolset};
use cy_tools_builtin::LocalSandbox;
// The built-in tools register at link time; naming the crate keeps them linked.
use cy_tools_builtin as _;

use crate::{Fixture, services};

/// Every linked tool, bound once to a context whose sandbox is a real [`LocalSandbox`] on the
/// fixture's root (with commands refused) and whose other services are fakes.
pub struct Bench {
    /// The workspace and its sentinels.
    pub fixture: Fixture,
    /// The bound tools, in registry (name) order.
    pub tools: Toolset,
    /// Their names, in the same order.
    pub names: Vec<String>,
    /// Reset before each input, so queued signals do not carry over.
    pub coordinator: Arc<services::InstantCoordinator>,
    /// A current-thread runtime, made once.
    pub runtime: tokio::runtime::Runtime,
}

impl Bench {
    /// Builds the bench.
    ///
    /// # Panics
    /// The fixture or runtime cannot be made, or a linked tool cannot be bound (every tool
    /// must be fuzzed: a new capability needs a fake here).
    pub fn new() -> Self {
        let fixture = Fixture::new();
        let sandbox = LocalSandbox::new(&fixture.root).expect("sandbox");
        let env = Arc::new(services::NoExecSandbox::new(Arc::new(sandbox.env())));
        let coordinator = Arc::new(services::InstantCoordinator::default());
        let context = ToolContext::new(SessionIdentity::root("fuzz", "fuzz-tenant"))
            .with_env(env)
            .with_executor(Arc::new(services::RefusingExecutor))
            .with_factory(Arc::new(services::InstantFactory))
            .with_log(Arc::new(services::NullLog))
            .with_coordinator(Arc::clone(&coordinator) as _)
            .with_chat(Arc::new(services::NullChat));
        let registry = ToolRegistry::linked()
            .expect("the linked registry")
            .on_unavailable(|name, err| panic!("tool `{name}` cannot be bound for fuzzing: {err}"));
        let names: Vec<String> = registry.names().into_iter().map(String::from).collect();
        assert!(!names.is_empty(), "no tool is linked");
        let tools = registry.build(&names, &context);
        assert_eq!(tools.names(), names, "every linked tool is bound");
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        Bench {
            fixture,
            tools,
            names,
            coordinator,
            runtime,
        }
    }
}

impl Default for Bench {
    fn default() -> Self {
        Bench::new()
    }
}
