//! The same 16 tools written with rmcp's `#[tool]` / `#[tool_router]`, in the form rmcp's
//! documentation gives for a server: methods on a handler type that keeps its `ToolRouter` in
//! a field, taking `Parameters<T>` of the shared parameter structs, and `#[tool_handler]`
//! routing `tools/call` and `tools/list` through that field.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::{ServerHandler, tool, tool_handler, tool_router};

use crate::tools::{self, *};

/// One rmcp session's server: the tool router is built when the server is.
#[derive(Clone)]
pub struct RmcpTools {
    tool_router: ToolRouter<RmcpTools>,
}

impl Default for RmcpTools {
    fn default() -> Self {
        RmcpTools::new()
    }
}

impl RmcpTools {
    /// A server with its 16 tools routed: what rmcp does for each new session.
    pub fn new() -> Self {
        RmcpTools {
            tool_router: Self::tool_router(),
        }
    }

    /// The router, for listing and calling directly.
    pub fn router(&self) -> &ToolRouter<RmcpTools> {
        &self.tool_router
    }
}

#[tool_router]
impl RmcpTools {
    /// Read a UTF-8 text file from the workspace, a range of lines at a time.
    #[tool(annotations(read_only_hint = true, destructive_hint = false))]
    async fn read_file(&self, Parameters(p): Parameters<ReadFile>) -> String {
        tools::read_file(p)
    }

    /// Write a whole file in the workspace, replacing what was there.
    #[tool]
    async fn write_file(&self, Parameters(p): Parameters<WriteFile>) -> String {
        tools::write_file(p)
    }

    /// List the entries of a folder in the workspace.
    #[tool(annotations(read_only_hint = true, destructive_hint = false))]
    async fn list_dir(&self, Parameters(p): Parameters<ListDir>) -> String {
        tools::list_dir(p)
    }

    /// Search files for lines matching a regular expression.
    #[tool(annotations(read_only_hint = true, destructive_hint = false))]
    async fn search_text(&self, Parameters(p): Parameters<SearchText>) -> String {
        tools::search_text(p)
    }

    /// Replace exact text in a file.
    #[tool]
    async fn replace_text(&self, Parameters(p): Parameters<ReplaceText>) -> String {
        tools::replace_text(p)
    }

    /// Run a program in the workspace and return its output.
    #[tool]
    async fn run_command(&self, Parameters(p): Parameters<RunCommand>) -> String {
        tools::run_command(p)
    }

    /// Send an HTTP request and return the response.
    #[tool]
    async fn http_request(&self, Parameters(p): Parameters<HttpRequest>) -> String {
        tools::http_request(p)
    }

    /// Open an issue in the project's tracker.
    #[tool]
    async fn create_issue(&self, Parameters(p): Parameters<CreateIssue>) -> String {
        tools::create_issue(p)
    }

    /// Change the state or labels of an issue, or comment on it.
    #[tool]
    async fn update_issue(&self, Parameters(p): Parameters<UpdateIssue>) -> String {
        tools::update_issue(p)
    }

    /// Put an event in the team calendar and invite people.
    #[tool]
    async fn schedule_event(&self, Parameters(p): Parameters<ScheduleEvent>) -> String {
        tools::schedule_event(p)
    }

    /// Post a message in a team chat channel.
    #[tool]
    async fn send_message(&self, Parameters(p): Parameters<SendMessage>) -> String {
        tools::send_message(p)
    }

    /// Run a read-only SQL query and return one page of rows.
    #[tool(annotations(read_only_hint = true, destructive_hint = false))]
    async fn query_database(&self, Parameters(p): Parameters<QueryDatabase>) -> String {
        tools::query_database(p)
    }

    /// Convert a length from one unit to another.
    #[tool]
    async fn convert_units(&self, Parameters(p): Parameters<ConvertUnits>) -> String {
        tools::convert_units(p)
    }

    /// Find the coordinates of a postal address.
    #[tool]
    async fn geocode(&self, Parameters(p): Parameters<Geocode>) -> String {
        tools::geocode(p)
    }

    /// Resize an image file and convert its format.
    #[tool]
    async fn resize_image(&self, Parameters(p): Parameters<ResizeImage>) -> String {
        tools::resize_image(p)
    }

    /// Summarize a sample of numbers: count, mean, percentiles.
    #[tool]
    async fn summarize_stats(&self, Parameters(p): Parameters<SummarizeStats>) -> String {
        tools::summarize_stats(p)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RmcpTools {}
