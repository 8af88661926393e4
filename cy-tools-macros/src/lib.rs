//! The `#[tool]` attribute for `cy-tools`. Use it as `cy_tools::tool` (it is also in
//! `cy_tools::prelude`); the documentation is on [`macro@tool`].
//!
//! The pipeline, one file per step: `attr` parses the options, `ast` models the function,
//! `valid` cross-checks (every problem is collected, none stops the others) and `expand`
//! generates the code.

mod ast;
mod attr;
mod caps;
mod catalog;
mod doc;
mod errors;
mod expand;
mod handler;
mod methods;
mod param_attrs;
mod params;
mod types;
mod valid;

use proc_macro::TokenStream;

/// Turns a function into a tool: a registered, schema-checked, capability-checked definition
/// a model can call. (On methods, with `#[tools]` on their `impl`: see "Methods".)
///
/// ```
/// use cy_tools::prelude::*;
///
/// /// Read a UTF-8 text file from the session workspace.
/// #[tool(capabilities(env), read_only)]
/// async fn read_file(
///     ctx: Ctx<'_>,
///     /// Path relative to the workspace root.
///     path: String,
///     /// 1-based line to start from.
///     #[arg(default = 1)]
///     offset: u64,
///     /// Maximum number of lines to return.
///     limit: Option<u64>,
/// ) -> Result<String, ToolError> {
///     let text = String::from_utf8_lossy(&ctx.env().read(&path).await?).into_owned();
///     let lines = text.lines().skip(offset.saturating_sub(1) as usize);
///     let lines: Vec<&str> = match limit {
///         Some(n) => lines.take(n as usize).collect(),
///         None => lines.collect(),
///     };
///     Ok(lines.join("\n"))
/// }
///
/// # use cy_tools::definition::Definition;
/// assert_eq!(READ_FILE.name(), "read_file");
/// assert_eq!(READ_FILE.description(), "Read a UTF-8 text file from the session workspace.");
/// assert_eq!(
///     READ_FILE.schema().unwrap().field_list(),
///     "`path` (string, required), `limit` (integer or null), `offset` (integer)"
/// );
/// ```
///
/// # What the function looks like
///
/// * It is an `async fn`, or a plain `fn`, which runs on tokio's blocking thread pool so it
///   cannot hold up the runtime's other calls (outside a tokio runtime, in place). A plain `fn`
///   runs to its end even when its call is cancelled or times out (it can watch
///   `call.cancel`), and cannot report progress. It is not `const`, `unsafe`, `extern` or
///   generic.
/// * Its doc comment is the tool's description, which the model reads to decide when to call
///   it (`#[doc = include_str!("...")]` works too); a tool without one (and without
///   `description = "..."`) does not compile.
/// * Each parameter is one of:
///   * an **argument** the model sends: `name: Type`, where `Type` is owned and implements
///     `serde::Deserialize` and `schemars::JsonSchema` (so `String`, not `&str`). Its doc
///     comment is the argument's `description` in the schema; a leading `_` (`_mode`) is not
///     part of its name. `Option<T>` is optional; enums, nested structs, `Vec` and maps work
///     through serde and schemars. It takes what a struct field would, for its schema:
///     `#[schemars(range(min = 1))]`, `length`, `regex`/`pattern`, `email`, `url`, `title`,
///     `example`... (checked when the tool is called, so the model is shown what is enforced),
///     `#[serde(rename = "...")]`, `#[serde(default)]` or `#[serde(default = "path")]`; and
///     `#[cfg(...)]`, which leaves it out of the schema too;
///   * `#[args] p: MyParams`: an existing parameter struct taken whole, its fields the tool's
///     arguments (then it is the only argument parameter). A struct as the *only* inline
///     argument is refused when the schema is made, because the model would have to send it
///     nested (`{"p": {...}}`): take it with `#[args]`, or mark it `#[arg(nested)]` to mean it;
///   * `ctx: Ctx<'_>`: the session's context, narrowed to the declared capabilities. Leave it
///     out when the tool needs none;
///   * `call: CallInfo`: the call's id and cancellation token (`CallInfo<'_>` is written for
///     you when the lifetime is left out);
///   * a context field taken directly: `env: &dyn Sandbox`, `executor: &dyn CodeExecutor`,
///     `session: &SessionIdentity`, `factory: &dyn ChildSessionFactory`, `log: &dyn ExecutionLog`,
///     `coordinator: &dyn Coordinator` or `chat: &dyn Chat`. Its capability must be declared;
///   * an application object: `db: State<'_, Db>`, the `Db` the application gave the session
///     (`ToolContext::with_state`, or `with_state` on a session factory for all its sessions).
///     Binding leaves the tool out of a session without one, with the reason, so the body always
///     has it. `Db` must be `Send + Sync + 'static`.
///
///   The context parameters are recognized by the last segment of their type's path (`Ctx`,
///   `cy_tools::Ctx` and `prelude::Ctx` all work), so a type of your own named `Ctx`, `State`,
///   `CallInfo` or `Sandbox` cannot be an argument.
/// * It returns any `serde::Serialize` type, sent as JSON (a string, number, boolean or `null`
///   as its text: `-> i64` answers `5`), or a type that converts itself (`IntoToolResult`):
///   `String`, `&'static str`, `()`, `serde_json::Value`, `ToolResult`, or `Json<T>`, which
///   also declares `T`'s schema as the tool's MCP `outputSchema` (so `T` must implement
///   `JsonSchema`; a `T` that is not an object is declared, and sent, as `{"result": ...}`,
///   since MCP wants an object there). Or a `Result` of any of these, with an error that
///   implements `Display` (`ToolError` takes any `std::error::Error` through `?`).
///
/// ```
/// use cy_tools::prelude::*;
///
/// /// How to sort.
/// #[derive(Default, serde::Deserialize, schemars::JsonSchema)]
/// #[serde(rename_all = "snake_case")]
/// enum Order { #[default] Newest, Oldest }
///
/// /// Count the notes matching a query.
/// #[tool(read_only)]
/// fn count_notes(
///     /// What to look for.
///     #[schemars(length(min = 1, max = 80))]
///     query: String,
///     /// How many at most, 1 to 50.
///     #[schemars(range(min = 1, max = 50))]
///     #[serde(default = "ten")]
///     limit: u32,
///     /// The order (unused by this example).
///     #[serde(default)]
///     _order: Order,
/// ) -> u32 {
///     limit.min(query.len() as u32)
/// }
/// fn ten() -> u32 { 10 }
///
/// # use cy_tools::definition::Definition;
/// assert_eq!(COUNT_NOTES.schema().unwrap().properties(), ["limit", "order", "query"]);
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let session = Session::linked(ToolContext::local(), &["count_notes"]).unwrap();
/// let answer = session.call("count_notes", serde_json::json!({"query": "rust"})).await;
/// assert_eq!(answer.to_string(), "4");
/// let refused = session.call("count_notes", serde_json::json!({"query": "rust", "limit": 99})).await;
/// assert!(refused.is_error && refused.to_string().contains("`limit`"));
/// # });
/// ```
///
/// # Methods
///
/// Put `#[tools]` on an `impl` block and `#[tool]` on its methods that are tools: each takes
/// `&self`, which is the application's object of that type, given to the session like any
/// `State` (`ToolContext::with_state`): the definition stays context-free, and a session
/// without the object leaves the tools out, saying why. The other parameters are as above.
/// The generated items are named after the type and the method (`WEATHER_FORECAST`,
/// `WeatherForecastParams`, `WeatherForecastCaps`) and sit beside the `impl`; the tool's name is
/// the method's. Methods without `#[tool]` are left alone; a `#[tool]` method without `self`,
/// or with `&mut self` or `self`, is refused with the fix, and so is a generic or trait `impl`.
///
/// ```
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use cy_tools::prelude::*;
///
/// struct Counter { total: AtomicU64 }
///
/// #[tools]
/// impl Counter {
///     /// Add to the counter and answer the new total.
///     #[tool]
///     async fn add(&self, /** How much. */ amount: u64) -> u64 {
///         self.total.fetch_add(amount, Ordering::SeqCst) + amount
///     }
/// }
///
/// # use cy_tools::definition::Definition;
/// assert_eq!(COUNTER_ADD.name(), "add");
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let context = ToolContext::local().with_state(Counter { total: AtomicU64::new(1) });
/// let session = Session::linked(context, &["add"]).unwrap();
/// assert_eq!(session.call("add", serde_json::json!({"amount": 2})).await.to_string(), "3");
/// # });
/// ```
///
/// # Options of `#[tool(...)]`
///
/// | option | meaning |
/// |---|---|
/// | `capabilities(env, chat, ...)` | the context fields the body may touch: `env`, `execute_code`, `session`, `factory`, `log`, `coordinator`, `chat` |
/// | `name = "..."` | the tool's name, instead of the function's: MCP's rule, `^[A-Za-z0-9_.-]{1,128}$` (a provider with a stricter rule gets the tool refused or mapped: `cy_tools::dialect::NameMap`). Two registered tools of one name in one module do not compile |
/// | `description = "..."` | the description, instead of the doc comment |
/// | `read_only`, `destructive`, `idempotent`, `open_world`, `title = "..."` | MCP annotations; flags take `= false` too. Defaults are MCP's: destructive, open world |
/// | `timeout = "30s"` | the default timeout of one call: a whole number with `ms`, `s`, `m` or `h` |
/// | `register = false` | define the tool without registering it at link time |
/// | `crate = path` | where the runtime is, when it is not `::cy_tools` (a re-export) |
///
/// Options of `#[arg(...)]` on an argument: `default` (`Default::default()`), `default = expr`
/// (a string literal converts with `Into`, so `default = "main"` works for a `String`),
/// `rename = "..."` (the name the model sees) and `nested` (a struct as the only argument,
/// sent nested under its name on purpose).
///
/// ```
/// use std::collections::BTreeMap;
/// use cy_tools::prelude::*;
/// use cy_tools::services::{Chat, ChatMessage, Sandbox};
///
/// /// How loudly to say it.
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// #[serde(rename_all = "snake_case")]
/// enum Volume { Quiet, Loud }
///
/// /// Say something in the session's chat.
/// #[tool(capabilities(chat, session), open_world = false, timeout = "5s")]
/// async fn say(
///     chat: &dyn Chat,
///     session: &SessionIdentity,
///     call: CallInfo,
///     /// What to say.
///     #[arg(rename = "message")]
///     text: String,
///     /// How loudly.
///     #[arg(default = Volume::Quiet)]
///     volume: Volume,
///     /// Extra labels for the log.
///     #[arg(default)]
///     labels: BTreeMap<String, String>,
/// ) -> Result<String, ToolError> {
///     let text = match volume { Volume::Quiet => text, Volume::Loud => text.to_uppercase() };
///     chat.send(ChatMessage { session_id: session.session_id.clone(), text }).await?;
///     Ok(format!("said it ({} labels, call {})", labels.len(), call.id))
/// }
///
/// /// The numbers to add.
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Pair {
///     /// The first.
///     a: i64,
///     /// The second.
///     b: i64,
/// }
///
/// /// Add two numbers.
/// #[tool(name = "add_numbers", read_only, register = false)]
/// async fn add(#[args] pair: Pair) -> String {
///     (pair.a + pair.b).to_string()
/// }
///
/// # use cy_tools::definition::Definition;
/// assert_eq!(SAY.schema().unwrap().properties(), ["labels", "message", "volume"]);
/// assert_eq!(ADD.name(), "add_numbers");
/// ```
///
/// # What it generates
///
/// Beside the function, which stays as written (so it can be called directly), in the same
/// scope and with the same visibility, for `fn read_file`:
///
/// * `ReadFileParams`: the argument struct, deriving `Deserialize` (with
///   `deny_unknown_fields`) and `JsonSchema` through the runtime's re-exports
///   (`serde`, `schemars`). Each argument is held as a
///   `cy_tools::definition::Arg` of a small reader type generated beside it, which is the one
///   place the argument's type must be `Deserialize` and `JsonSchema`: a type that is not gets
///   one error, on that argument, naming the derive to add. Not generated for an `#[args]`
///   struct, which is used as it is.
/// * `ReadFileCaps`: the capability set, an alias of the `cy_tools::capability::Caps` type
///   whose flags grant exactly the declared capabilities; `Ctx<'_>` in the signature becomes
///   `Ctx<'_, ReadFileCaps>`. Not generated when no capability is declared (the set is
///   `NoCapabilities`). A grant cannot be added by hand: `Caps` and its grant traits are
///   `cy_tools`'s, so such an impl breaks the orphan rule.
/// * `READ_FILE`: the `static ToolDefinition<ReadFileParams, ReadFileCaps>`, with the name,
///   description, annotations, timeout and the application state types its `State`
///   parameters need.
/// * An `inventory` registration of `READ_FILE`, so `ToolRegistry::linked()` finds it, and a
///   hidden item named after the tool's name, so two tools of one name in a module are a
///   compile error (unless `register = false`; across modules and crates, `linked()` refuses
///   them, naming both).
///
/// Every generated public item is documented, so `#![deny(missing_docs)]` holds. A `#[cfg]`
/// on the function applies to every generated item too.
///
/// # Capabilities are checked by the compiler
///
/// A body that touches a context field it did not declare does not compile:
///
/// ```compile_fail
/// use cy_tools::prelude::*;
///
/// /// Tell the chat.
/// #[tool(capabilities(env))]
/// async fn tell(ctx: Ctx<'_>) -> String {
///     let _ = ctx.chat(); // error: this function uses `ctx.chat()` but does not declare the `chat` capability
///     String::new()
/// }
/// ```
///
/// Nor does a signature that asks for an undeclared field (`chat: &dyn Chat` without
/// `capabilities(chat)`): the error points at that parameter.
///
/// # Testing a tool without a registry
///
/// Call the function. Build its `Ctx` from a `ToolContext` with `Ctx::new`, naming the
/// generated capability set, and per-call data with `CallInfo::for_test`:
///
/// ```
/// use std::sync::Arc;
/// use cy_tools::prelude::*;
/// use cy_tools::{memory::MemorySandbox, services::Sandbox};
///
/// /// Count the bytes of a file.
/// #[tool(capabilities(env), read_only)]
/// async fn file_size(ctx: Ctx<'_>, call: CallInfo, /** The file. */ path: String) -> Result<String, ToolError> {
///     Ok(format!("{}: {} bytes", call.id, ctx.env().read(&path).await?.len()))
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let sandbox = Arc::new(MemorySandbox::new());
/// sandbox.write("a.txt", b"hello".to_vec()).await.unwrap();
/// let context = ToolContext::new(SessionIdentity::root("test", "acme")).with_env(sandbox);
/// let ctx = Ctx::<FileSizeCaps>::new(&context).unwrap();
/// let cancel = CancellationToken::new();
/// let answer = file_size(ctx, CallInfo::for_test("c1", &cancel), "a.txt".into()).await.unwrap();
/// assert_eq!(answer, "c1: 5 bytes");
/// # });
/// ```
///
/// # Errors
///
/// Mistakes are compile errors that point at the offending token and say the rule and the
/// fix; all of them are reported at once. The function is still emitted (without the
/// generated items), so other code that calls it keeps compiling.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::attribute(attr::Kind::Tool, args.into(), input.into()).into()
}

/// Turns an `async fn` into a resource: data a client reads by URI, registered at link time,
/// bound per session, listed and served by the MCP server. Use it as `cy_tools::catalog::resource`
/// (it is also in `cy_tools::prelude`).
///
/// The URI is fixed (`uri = "test://static-text"`) or a URI template whose `{variables}` are
/// exactly the function's arguments, each matching one path segment and read as the
/// argument's type (`{id}` can be a `u64`). Everything else is as for [`macro@tool`]: the doc
/// comment is the description, `ctx: Ctx<'_>`, `call: CallInfo`, context fields and
/// `State<'_, T>` are taken the same way, and a body touching an undeclared capability does
/// not compile. It returns `String` or `&'static str` (text), `Vec<u8>` (bytes),
/// `serde_json::Value` or `Json<T>` (JSON), `ResourceContents` or a `Vec` of them, or a
/// `Result` of one of these whose error is `Display`.
///
/// ```
/// use cy_tools::prelude::*;
///
/// /// One order, as JSON.
/// #[resource(uri = "shop://orders/{id}", mime_type = "application/json", title = "Order")]
/// async fn order(/** The order's number. */ id: u64) -> Json<serde_json::Value> {
///     Json(serde_json::json!({"id": id, "status": "shipped"}))
/// }
///
/// use cy_tools::catalog::Resource;
/// assert_eq!(ORDER.meta().uri(), "shop://orders/{id}");
/// assert!(ORDER.template().unwrap().is_template());
/// ```
///
/// | option | meaning |
/// |---|---|
/// | `uri = "..."` | the URI or URI template (required) |
/// | `name = "..."` | the resource's name, instead of the function's |
/// | `description = "..."` | the description, instead of the doc comment |
/// | `mime_type = "..."` | the media type of what it reads |
/// | `title = "..."` | a title, for a person |
/// | `capabilities(env, ...)` | the context fields the body may touch |
/// | `complete = path` | a `fn(&str, &str) -> Vec<String>` offering values for a variable (else an enum's variants are offered) |
/// | `register = false`, `crate = path` | as for [`macro@tool`] |
///
/// A variable the function does not take, or an argument the URI does not name, is a compile
/// error saying which:
///
/// ```compile_fail
/// use cy_tools::prelude::*;
///
/// /// One row.
/// #[resource(uri = "db://rows/{id}")]
/// async fn row(/** The row. */ key: String) -> String { key } // error: `key` is not a variable of the URI
/// ```
#[proc_macro_attribute]
pub fn resource(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::attribute(attr::Kind::Resource, args.into(), input.into()).into()
}

/// Turns an `async fn` into a prompt: a message template a person picks, with typed arguments,
/// registered at link time, bound per session, listed and served by the MCP server. Use it as
/// `cy_tools::catalog::prompt` (it is also in `cy_tools::prelude`).
///
/// Each argument's doc comment is its description; MCP sends argument values as strings, read
/// as the argument's type (a `u32` from `"3"`); `Option<T>` is optional. Everything else is as
/// for [`macro@tool`]. It returns `String` or `&'static str` (one user message),
/// `PromptMessage`, `Vec<PromptMessage>` or `PromptReply`, or a `Result` of one of these whose
/// error is `Display`.
///
/// ```
/// use cy_tools::prelude::*;
/// use cy_tools::catalog::{PromptMessage, Role};
///
/// /// Asks for a review of a file in the workspace.
/// #[prompt(title = "Review a file", capabilities(env))]
/// async fn review_file(
///     ctx: Ctx<'_>,
///     /// The file, relative to the workspace.
///     path: String,
///     /// What to focus on.
///     focus: Option<String>,
/// ) -> Result<Vec<PromptMessage>, ToolError> {
///     let text = String::from_utf8_lossy(&ctx.env().read(&path).await?).into_owned();
///     Ok(vec![
///         PromptMessage::user(format!("Review `{path}`, focusing on {}.", focus.as_deref().unwrap_or("correctness"))),
///         PromptMessage::new(Role::User, Content::embedded_text(format!("file:///{path}"), "text/plain", text)),
///     ])
/// }
/// ```
///
/// Its options are `name`, `description`, `title`, `capabilities(...)`, `complete = path`,
/// `register` and `crate`, as for [`macro@resource`]. A body touching a context field it did not
/// declare does not compile:
///
/// ```compile_fail
/// use cy_tools::prelude::*;
///
/// /// Tells the chat.
/// #[prompt]
/// async fn tell(ctx: Ctx<'_>) -> String {
///     let _ = ctx.chat(); // error: `chat` is not declared
///     String::new()
/// }
/// ```
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::attribute(attr::Kind::Prompt, args.into(), input.into()).into()
}

/// Makes the methods marked `#[tool]` in an `impl` block tools whose `&self` is the
/// application's object of that type, given to the session with `ToolContext::with_state`.
/// See [`macro@tool`] ("Methods").
#[proc_macro_attribute]
pub fn tools(args: TokenStream, input: TokenStream) -> TokenStream {
    methods::tools(args.into(), input.into()).into()
}

/// Not public API: what `cy_tools::capability::capability_set!` expands to (it passes its `$crate` first).
#[doc(hidden)]
#[proc_macro]
pub fn capability_set(input: TokenStream) -> TokenStream {
    caps::capability_set(input.into()).into()
}

/// Not public API: the capability names this crate knows, in order, as a `&[&str]`; a
/// `cy_tools` test checks them against its capability table.
#[doc(hidden)]
#[proc_macro]
pub fn capability_names(input: TokenStream) -> TokenStream {
    let _ = input;
    caps::names().into()
}
